/// The one place a report is put together: a delivery's verdicts (`PayloadJudgement`,
/// Decision/) in the order a record lists them, and the content the phone shows.
extension Report {
    package init(_ plan: PayloadPlan, judgement: PayloadJudgement, source: String, strict: Bool) {
        let (profile, judged, delivery) = (plan.profile, judgement.judged, judgement.delivery)
        let content: ContentSource = switch profile.platform {
        case .ios: .payload(plan.payload, attachments: delivery.attachments, overrides: delivery.overrides)
        case .android: .android(plan.payload, picture: delivery.attachments.first, dimensions: judged.media.all.first?.dimensions,
                                largeIcon: profile.showsLargeIconOnly)
        }
        self.init(
            source: source, sdk: profile.sdk, outcome: delivery.outcome, reason: delivery.reason, media: judged.media,
            // Most payloads of a campaign have only the payload's own findings, or none.
            diagnostics: judged.errors.isEmpty && judged.warnings.isEmpty
                ? judgement.context : judged.errors + judgement.context + judged.warnings,
            contentSource: content, attachments: delivery.attachments, strict: strict, mediaVerdicts: judged.verdicts)
        sdkDetected = plan.profileDetected
        platform = profile.platform
    }
}

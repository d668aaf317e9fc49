/// The one place a report is put together, once the downloads a plan needs
/// are in: the payload's own findings, each entry judged (pure), the
/// profile's failure policy, and what the phone shows.
extension PayloadPlan {
    /// The report, given the download result of every URL in `fetches` (by URL).
    package func report(source: String, results: MediaResults, strict: Bool) -> Report {
        var context = platformLimits.isEmpty ? payloadFindings() : platformLimits + payloadFindings()
        if deviceHeaders { context += deviceDependent(results) }
        // The URLs as written (SPEC 20), each entry named where the payload has several.
        for (entry, finding) in urlFindings {
            context.append(entries.count > 1 ? finding.naming(entry: entry) : finding)
        }
        // Without mutable-content, or without alert text, iOS never runs the extension:
        // the push shows as sent, whatever the media would have done (SPEC 7).
        let neverRuns = context.lazy.map(\.code).first { $0 == .mutableContentMissing || $0 == .noAlert }
        // APNs refuses a payload over its limit: no phone receives anything (SPEC 7).
        let rejected = context.contains { $0.severity == .error && $0.code == .payloadTooLarge }
        var judged = JudgedEntries()
        var delivery: FailurePolicyDelivery
        switch spec {
        case .absent:
            delivery = .unchanged(.noMedia)
        case .invalid(let why):
            judged.errors.append(.error(.invalidMediaSpec, "\(why); \(DiagnosticCode.invalidMediaSpec.fix)"))
            delivery = .unchanged(neverRuns ?? .invalidMediaSpec)
        case .entries(let list, let overrides):
            if list.isEmpty {
                // An empty list is no media, and an SDK's overrides still apply (outcome refers to media).
                delivery = neverRuns == nil ? .unchanged(.noMedia, overrides: overrides) : .unchanged(.noMedia)
            } else {
                judged = judgeEntries(results, requestedAtSendTime: neverRuns == nil && !rejected)
                delivery = neverRuns.map { .unchanged($0) }
                    ?? profile.failurePolicy.delivery(
                        of: judged.attachments, firstFailure: judged.firstFailure,
                        // OneSignal's bicon resource on Android: an icon of the app's, no picture to show (SPEC 15).
                        bundled: judged.bundled && profile.bundleFiles?.attaches == true, overrides: overrides)
            }
        }
        if rejected { delivery = FailurePolicyDelivery(outcome: .rejected, reason: .payloadTooLarge) }
        let content: Report.ContentSource = switch profile.platform {
        case .ios: .payload(payload, attachments: delivery.attachments, overrides: delivery.overrides)
        case .android: .android(payload, picture: delivery.attachments.first, dimensions: judged.media.all.first?.dimensions,
                                largeIcon: profile.showsLargeIconOnly)
        }
        if profile.showsLargeIconOnly, delivery.attachments.first != nil, let size = judged.media.all.first?.dimensions,
           let finding = Self.largeIconOnly(size, sdk: profile.sdk) {
            judged.warnings.append(finding)
        }
        var report = Report(
            source: source, sdk: profile.sdk, outcome: delivery.outcome, reason: delivery.reason, media: judged.media,
            // Most payloads of a campaign have only the payload's own findings, or none.
            diagnostics: judged.errors.isEmpty && judged.warnings.isEmpty ? context : judged.errors + context + judged.warnings,
            contentSource: content, attachments: delivery.attachments, strict: strict, mediaVerdicts: judged.verdicts)
        report.sdkDetected = profileDetected
        report.platform = profile.platform
        return report
    }

    /// `large_icon_only` (SPEC 20): a picture shown as the large icon alone, a square cropped from its middle, that
    /// is more than a quarter wider or taller than square loses what the crop cuts; nil for a picture that reads there.
    static func largeIconOnly(_ size: Dimensions, sdk: SDK) -> Diagnostic? {
        guard size.width > 0, size.height > 0 else { return nil }
        let ratio = Double(size.width) / Double(size.height)
        guard ratio > 1.25 || ratio < 0.8 else { return nil }
        let side = min(size.width, size.height)
        let kept = Int((Double(side) * Double(side) * 100 / (Double(size.width) * Double(size.height))).rounded())
        return Diagnostic(.warning, .largeIconOnly,
            "\(sdk.displayName)'s Android code shows the picture as the large icon, a small square beside the text, never as a big "
                + "picture: the \(size.width)×\(size.height) picture is cropped to its middle \(side)×\(side) (\(kept)% of it) and "
                + "drawn about 64 dp across; \(DiagnosticCode.largeIconOnly.fix)")
    }

    /// `device_dependent` (SPEC 20, `--device-headers`): a URL whose server answered this platform's own
    /// request with another status, type or size than the tool's fetch, naming both answers.
    private func deviceDependent(_ results: MediaResults) -> [Diagnostic] {
        var found: [Diagnostic] = []
        for url in fetches {
            guard let result = results[url.string], !result.facts.deviceAnswers.isEmpty,
                  let answer = result.facts.deviceAnswers.first(where: { $0.platform == profile.platform }) else { continue }
            let facts = result.facts
            let sniffed: String? = if case .fetched(let download, _) = result { download.sniffedMime } else { nil }
            let tool = DeviceAnswer(
                platform: profile.platform, userAgent: "", httpStatus: facts.httpStatus, sniffedMime: sniffed, bytes: facts.bytes)
            guard answer.httpStatus != tool.httpStatus || answer.sniffedMime != tool.sniffedMime || answer.bytes != tool.bytes
                    || answer.failure != nil else { continue }
            let phone = profile.platform == .ios ? "an iPhone's" : "an Android phone's"
            found.append(Diagnostic(.warning, .deviceDependent,
                "the server answers \(phone) request (User-Agent: \(answer.userAgent)) with \(answer.described), where the tool's got "
                    + "\(tool.described.isEmpty ? "no answer" : tool.described) for \(url.string): the verdict above is the tool's fetch, not the "
                    + "phone's; \(DiagnosticCode.deviceDependent.fix)"))
        }
        return found
    }

    /// The payload's own findings, whatever its media does: the lints, and the SDK-choice warnings.
    private func payloadFindings() -> [Diagnostic] {
        let sdk = profile.sdk
        // An Android notification always shows: iOS's lints are about the iOS record alone.
        guard profile.platform == .ios else {
            return Lints.androidDiagnostics(for: payload, namesMedia: spec.namesMedia, displayCode: "\(sdk.displayName)'s")
        }
        // A payload without the profile's media key is a text push: the extension has nothing to show.
        var found = Lints.payloadDiagnostics(for: payload, sdk: sdk, namesMedia: spec.namesMedia)
        if !alsoDetected.isEmpty {
            found.append(Diagnostic(
                .warning, .ambiguousSDK,
                "the payload carries the media keys of \(([sdk] + alsoDetected).map(\.displayName).joined(separator: ", ")): "
                    + "checked as \(sdk.displayName), the first; keep one SDK's media key per payload"))
        }
        let foreignRoots = SDKProfile.foreignMediaKeyRoots[sdk.ordinal]
        let mayCarryForeignKeys = if case .object(let members) = payload.root {
            members.contains { foreignRoots.contains($0.key) }
        } else { false }
        for (other, path, key) in SDKProfile.allMediaKeys
        where mayCarryForeignKeys && other != sdk && payload.root.value(at: path) != nil {
            // CleverTap's two keys are its own even when another SDK's list names one too.
            guard !profile.mediaKeys.contains(path) else { continue }
            found.append(Diagnostic(
                .warning, .foreignMediaKey,
                "this payload has \(key), which the \(sdk.displayName) extension ignores; "
                    + "use \(sdk.displayName)'s media key, or check the payload as \(other.displayName)'s"))
        }
        return found
    }

    /// Each entry judged under the profile, in one pass (a campaign runs this for every
    /// payload, and each pass over a list of verdicts copied them).
    private func judgeEntries(_ results: MediaResults, requestedAtSendTime: Bool) -> JudgedEntries {
        // Each entry's part of the report comes made with its judgement (`JudgedEntry.part`): one entry's is the
        // report's whole; several entries' parts are joined in order. A single-attachment profile's report is its
        // first entry's.
        let single = profile.failurePolicy == .single
        var judged: JudgedEntries?
        for planned in entries {
            let part = profile.judge(planned, results: results, policy: policy, network: network, requestedAtSendTime: requestedAtSendTime).part
            if judged == nil { judged = part } else { judged!.append(part, media: !single) }
        }
        if let judged { return judged }
        var none = JudgedEntries()
        if !single { none.media = .entries([]) }
        return none
    }
}

/// What judging a payload's entries came to: its report's attachments, findings and media.
package struct JudgedEntries: Sendable {
    var attachments: [Attachment] = []
    var errors: [Diagnostic] = []
    var warnings: [Diagnostic] = []
    var firstFailure: DiagnosticCode?
    var bundled = false
    var media: Report.Media = .none
    var verdicts: [MediaVerdict] = []

    init() {}

    /// The part of its report of a single-attachment profile's one entry (`single`): its findings
    /// unnamed, its facts the report's media. Made once with the judgement (`JudgedEntry.part`),
    /// since most payloads of a campaign are this and the same for every record naming the URL.
    init(onlyEntry verdict: EntryVerdict, summary: MediaVerdict?) {
        if let facts = verdict.facts { media = .single(facts) }
        add(verdict, summary: summary, entry: nil)
    }

    /// Joins the next entry's part: its attachments, findings and summary lines after these; its media facts
    /// too when `media` (a several-attachment profile's report lists every entry's).
    mutating func append(_ part: JudgedEntries, media: Bool) {
        attachments += part.attachments
        errors += part.errors
        warnings += part.warnings
        firstFailure = firstFailure ?? part.firstFailure
        bundled = bundled || part.bundled
        verdicts += part.verdicts
        if media, case .entries(let mine) = self.media, case .entries(let theirs) = part.media { self.media = .entries(mine + theirs) }
    }

    /// Adds one entry's judgement; `entry` names it in its findings (a payload of several), nil for one alone.
    mutating func add(_ verdict: EntryVerdict, summary: MediaVerdict?, entry: String?) {
        if let summary { verdicts.append(summary) }
        func named(_ finding: Diagnostic) -> Diagnostic { entry.map { finding.naming(entry: $0) } ?? finding }
        switch verdict {
        case .attached(let attachment, _, let found):
            attachments.append(attachment)
            // An attachment the phone cannot draw or play (SPEC 17) is attached and still an error.
            for finding in found {
                if finding.severity == .error { errors.append(named(finding)) } else { warnings.append(named(finding)) }
            }
        case .failed(_, let reason, let message):
            errors.append(named(.error(reason, message)))
            firstFailure = firstFailure ?? reason
        case .bundleResource(_, let message):
            warnings.append(named(Diagnostic(.warning, .bundleResource, message)))
            bundled = true
        }
        // Whatever this phone made of the media, a certificate about to end fails every phone later.
        if let expiring = verdict.facts?.expiringCertificate {
            warnings.append(named(Diagnostic(.warning, .certificateExpiring,
                "the certificate of \(expiring.host) expires on \(CertificateFacts.date(expiring.notAfter)) (notAfter "
                    + "\(CertificateFacts.timestamp(expiring.notAfter))), within 30 days: a campaign sent after that fails on "
                    + "every phone; \(DiagnosticCode.certificateExpiring.fix)")))
        }
    }
}

/// What the extension hands iOS: the outcome, why, the attachments and the content overrides.
struct FailurePolicyDelivery {
    var outcome: Report.Outcome
    var reason: DiagnosticCode?
    var attachments: [Attachment] = []
    var overrides: ContentOverrides?

    static func unchanged(_ reason: DiagnosticCode, overrides: ContentOverrides? = nil) -> FailurePolicyDelivery {
        FailurePolicyDelivery(outcome: .unchanged, reason: reason, overrides: overrides)
    }
}

extension SDKProfile.FailurePolicy {
    /// How an SDK's failed entries combine, once every entry is judged: one
    /// attachment fails the payload (`single`), each entry fails alone (`perEntry`,
    /// OneSignal), or one failure drops every attachment and the overrides
    /// (`allOrNothing`, Airship).
    func delivery(
        of attachments: [Attachment], firstFailure: DiagnosticCode?, bundled: Bool, overrides: ContentOverrides?
    ) -> FailurePolicyDelivery {
        if let firstFailure, self != .perEntry { return .unchanged(firstFailure) }
        if !attachments.isEmpty {
            return FailurePolicyDelivery(outcome: .attached, reason: nil, attachments: attachments, overrides: overrides)
        }
        return .unchanged(firstFailure ?? (bundled ? .bundleResource : .noMedia))
    }
}

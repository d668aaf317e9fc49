/// Every verdict on one delivery, once the downloads its plan fetches are in, judged
/// from the facts alone: the payload's own findings (the lints, the SDK choice, the
/// URLs as written, what the device answers said), each entry under the profile
/// (`EntryJudge.judge`), and the SDK's failure policy over them. Pure: it names the
/// attachments and makes nothing. The report is assembled from it
/// (Report/ReportAssembly.swift), and its attachments placed after (Placement/).
package struct PayloadJudgement: Sendable {
    /// The payload's own findings, whatever its media does.
    let context: [Diagnostic]
    /// Each entry's verdict, findings and summary line.
    let judged: JudgedEntries
    /// What the extension hands the phone: the outcome, why, the attachments and overrides.
    let delivery: FailurePolicyDelivery

    package init(_ plan: PayloadPlan, results: MediaResults) {
        let profile = plan.profile
        var context = plan.platformLimits.isEmpty ? Self.payloadFindings(plan) : plan.platformLimits + Self.payloadFindings(plan)
        if plan.deviceHeaders { context += Self.deviceDependent(plan, results) }
        // The URLs as written (SPEC 20), each entry named where the payload has several.
        for (entry, finding) in plan.urlFindings {
            context.append(plan.entries.count > 1 ? finding.naming(entry: entry) : finding)
        }
        // Without mutable-content, or without alert text, iOS never runs the extension:
        // the push shows as sent, whatever the media would have done (SPEC 7).
        let neverRuns = context.lazy.map(\.code).first { $0 == .mutableContentMissing || $0 == .noAlert }
        // APNs refuses a payload over its limit, OneSignal a request whose data is over its own: no phone receives
        // anything (SPEC 7, SPEC 20's round five), so nothing is stored.
        let rejectedBy = context.first { $0.severity == .error && ($0.code == .payloadTooLarge || $0.code == .additionalDataTooLarge) }?.code
        let rejected = rejectedBy != nil
        var judged = JudgedEntries()
        var delivery: FailurePolicyDelivery
        switch plan.spec {
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
                judged = Self.judgeEntries(plan, results, requestedAtSendTime: neverRuns == nil && !rejected)
                delivery = neverRuns.map { .unchanged($0) }
                    ?? FailurePolicyDelivery(
                        profile.failurePolicy, attachments: judged.attachments, firstFailure: judged.firstFailure,
                        overrides: overrides)
            }
        }
        if let rejectedBy { delivery = FailurePolicyDelivery(outcome: .rejected, reason: rejectedBy) }
        if profile.showsLargeIconOnly, delivery.attachments.first != nil, let size = judged.media.all.first?.dimensions,
           let finding = Self.largeIconOnly(size, sdk: profile.sdk) {
            judged.warnings.append(finding)
        }
        self.context = context
        self.judged = judged
        self.delivery = delivery
    }

    /// `large_icon_only` (SPEC 20): a picture shown as the large icon alone, a square cropped from its middle, that
    /// is more than a quarter wider or taller than square loses what the crop cuts; nil for a picture that reads there.
    private static func largeIconOnly(_ size: Dimensions, sdk: SDK) -> Diagnostic? {
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
    private static func deviceDependent(_ plan: PayloadPlan, _ results: MediaResults) -> [Diagnostic] {
        let profile = plan.profile
        var found: [Diagnostic] = []
        for url in plan.fetches {
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
    private static func payloadFindings(_ plan: PayloadPlan) -> [Diagnostic] {
        let (profile, payload, spec) = (plan.profile, plan.payload, plan.spec)
        let sdk = profile.sdk
        // An Android notification always shows: iOS's lints are about the iOS record alone.
        guard profile.platform == .ios else {
            return Lints.androidDiagnostics(for: payload, namesMedia: spec.namesMedia, displayCode: "\(sdk.displayName)'s")
        }
        // A payload without the profile's media key is a text push: the extension has nothing to show.
        var found = Lints.payloadDiagnostics(for: payload, sdk: sdk, namesMedia: spec.namesMedia)
        if !plan.alsoDetected.isEmpty {
            found.append(Diagnostic(
                .warning, .ambiguousSDK,
                "the payload carries the media keys of \(([sdk] + plan.alsoDetected).map(\.displayName).joined(separator: ", ")): "
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
    private static func judgeEntries(_ plan: PayloadPlan, _ results: MediaResults, requestedAtSendTime: Bool) -> JudgedEntries {
        let profile = plan.profile
        // Each entry's part of the report comes made with its judgement (`JudgedEntry.part`): one entry's is the
        // report's whole; several entries' parts are joined in order. A single-attachment profile's report is its
        // first entry's.
        let single = profile.failurePolicy == .single
        var judged: JudgedEntries?
        for planned in plan.entries {
            let part = EntryJudge.judge(
                planned, profile: profile, results: results, policy: plan.policy, network: plan.network, requestedAtSendTime: requestedAtSendTime).part
            if judged == nil { judged = part } else { judged!.append(part, media: !single) }
        }
        if let judged { return judged }
        var none = JudgedEntries()
        if !single { none.media = .entries([]) }
        return none
    }
}

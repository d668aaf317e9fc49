/// Everything an extension decides about a payload before any download: whose
/// rules apply, which entries it reads, which URLs it would fetch, and what it
/// already knows has failed. `report` finishes the path once the downloads are in.
package final class PayloadPlan: Sendable {
    package let payload: Payload
    package let profile: SDKProfile
    /// Other SDKs whose media keys the payload carries too (`--sdk auto`: `ambiguous_sdk`).
    package let alsoDetected: [SDK]
    /// The download policy under the profile and the user's options.
    package let policy: MediaPolicy
    package let spec: MediaSpec
    package let entries: [PlannedEntry]
    /// The distinct URLs to download, in the order the entries name them.
    package let fetches: [MediaURL]
    /// The network `slow_network` is judged on, if the user named one.
    package let network: NetworkProfile?
    /// `--sdk auto` chose the profile: people's output says which one.
    package let profileDetected: Bool

    /// One entry and what happens to it before any download.
    package struct PlannedEntry: Sendable {
        package enum Step: Sendable {
            case fetch(MediaURL)
            case failed(DiagnosticCode, String)
            case bundleResource(String)
        }

        package var entry: MediaEntry
        package var step: Step
    }

    /// - Parameters:
    ///   - policies: every SDK's policy under `options`, when the caller made them once for many payloads.
    ///   - checkURL: section 2's URL check (`MediaURL.check`); `check` passes a memoized one.
    package init(
        _ payload: Payload, selection: SDKSelection, options: FetchOptions, policies: PolicyTable? = nil,
        checkURL: (JSONValue?, String, Bool) -> MediaURL.Verdict = { MediaURL.check($0, key: $1, allowHTTP: $2) }
    ) {
        let (sdk, alsoDetected) = selection.resolve(for: payload)
        let profile = sdk.profile
        if case .auto = selection { profileDetected = true } else { profileDetected = false }
        self.payload = payload
        self.profile = profile
        self.alsoDetected = alsoDetected
        self.policy = policies?[sdk] ?? profile.policy(options)
        self.network = options.network
        self.spec = profile.readSpec(payload)
        var planned: [PlannedEntry] = []
        var fetches: [MediaURL] = []
        if case .entries(let entries, _) = spec {
            for entry in entries {
                let step = Self.step(for: entry, profile: profile, policy: policy, checkURL: checkURL)
                if case .fetch(let url) = step, !fetches.contains(where: { $0.string == url.string }) { fetches.append(url) }
                planned.append(PlannedEntry(entry: entry, step: step))
            }
        }
        self.entries = planned
        self.fetches = fetches
    }

    /// Section 2's URL checks under the profile's scheme rule.
    private static func step(
        for entry: MediaEntry, profile: SDKProfile, policy: MediaPolicy, checkURL: (JSONValue?, String, Bool) -> MediaURL.Verdict
    ) -> PlannedEntry.Step {
        if profile.treatsOtherSchemesAsBundleFiles, case .string(let text) = entry.value, !text.isEmpty {
            let scheme = text.range(ofBytes: "://").map { text[..<$0.lowerBound].lowercased() }
            if scheme != "http" && scheme != "https" {
                return .bundleResource(
                    "the value \(quoted(text)) is not an http(s) URL: \(profile.sdk.displayName) attaches the file of that name "
                        + "from the app bundle, if the app ships one; make sure it does, or send a URL")
            }
        }
        switch checkURL(entry.value, entry.key, policy.allowHTTP) {
        case .absent: return .failed(.invalidURL, "\(entry.key) is missing; \(DiagnosticCode.invalidURL.fix)")
        case .invalid(let why): return .failed(.invalidURL, "\(why); \(DiagnosticCode.invalidURL.fix)")
        case .valid(let url): return .fetch(url)
        case .notHTTPS(let scheme):
            if profile.refusesHTTPItself {
                return .failed(.notHTTPS, "the URL scheme is \(scheme): the SDK only downloads https; \(DiagnosticCode.notHTTPS.fix)")
            }
            if scheme == "http" {
                return .failed(.notHTTPS, "the URL scheme is http: App Transport Security blocks plain http on a device "
                    + "unless the app declares an exception; serve the media over https")
            }
            return .failed(
                .notHTTPS, "the URL scheme is \(scheme): the extension downloads https (or http, where the app allows it) only; \(DiagnosticCode.notHTTPS.fix)")
        }
    }

    /// The report, given the download result of every URL in `fetches` (by URL).
    package func report(source: String, results: MediaResults, strict: Bool) -> Report {
        let sdk = profile.sdk
        var errors: [Diagnostic] = []
        var warnings: [Diagnostic] = []
        var context = Lints.payloadDiagnostics(for: payload, sdk: sdk)
        if !alsoDetected.isEmpty {
            context.append(Diagnostic(.warning, .ambiguousSDK,
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
            context.append(Diagnostic(.warning, .foreignMediaKey,
                "this payload has \(key), which the \(sdk.displayName) extension ignores; "
                    + "use \(sdk.displayName)'s media key, or check the payload as \(other.displayName)'s"))
        }
        var mediaVerdicts: [MediaVerdict] = []
        func finish(_ outcome: Report.Outcome, _ reason: DiagnosticCode?, media: Report.Media, attachments: [Attachment], overrides: ContentOverrides?) -> Report {
            var report = Report(
                source: source, sdk: sdk, outcome: outcome, reason: reason, media: media,
                // Most payloads of a campaign have only the payload's own findings, or none.
                diagnostics: errors.isEmpty && warnings.isEmpty ? context : errors + context + warnings,
                contentSource: .payload(payload, attachments: attachments, overrides: overrides),
                attachments: attachments, strict: strict, mediaVerdicts: mediaVerdicts)
            report.sdkDetected = profileDetected
            return report
        }

        // Without mutable-content, or without alert text, iOS never runs the extension:
        // the push shows as sent, whatever the media would have done (SPEC 7).
        let extensionNeverRuns = context.first { $0.code == DiagnosticCode.mutableContentMissing.rawValue || $0.code == DiagnosticCode.noAlert.rawValue }
            .flatMap { DiagnosticCode(rawValue: $0.code) }
        switch spec {
        case .absent:
            return finish(.unchanged, .noMedia, media: .none, attachments: [], overrides: nil)
        case .invalid(let why):
            errors.append(.error(.invalidMediaSpec, "\(why); \(DiagnosticCode.invalidMediaSpec.fix)"))
            return finish(.unchanged, extensionNeverRuns ?? .invalidMediaSpec, media: .none, attachments: [], overrides: nil)
        case .entries(let list, let overrides):
            if list.isEmpty {
                return finish(.unchanged, .noMedia, media: .none, attachments: [], overrides: extensionNeverRuns == nil ? overrides : nil)
            }
        }

        // One pass over the entries, each verdict used where it is made: a campaign
        // runs this for every payload, and each pass over a list of verdicts copied them.
        let networks = NetworkProfile.summarized(adding: network)
        let single = profile.failurePolicy == .single
        var singleFacts: MediaFacts?
        var entryFacts: [MediaFacts] = []
        var firstFailure: DiagnosticCode?
        var bundled = false
        var attachments: [Attachment] = []
        for (position, planned) in entries.enumerated() {
            let verdict = profile.judge(planned, results: results, policy: policy, network: network)
            if var mediaVerdict = MediaVerdict(sdk: sdk, facts: verdict.facts, verdict: verdict, networks: networks) {
                // Its verdict still counts for the fix list, but no phone requests it at send time.
                if extensionNeverRuns != nil { mediaVerdict.requestedAtSendTime = false }
                mediaVerdicts.append(mediaVerdict)
            }
            if single {
                // One attachment: the report's media is the first entry's facts, if its value was a URL string.
                if position == 0 { singleFacts = verdict.facts }
            } else {
                var facts = verdict.facts ?? MediaFacts(url: "", policy: policy)
                facts.identifier = planned.entry.identifier ?? ""
                entryFacts.append(facts)
            }
            // A payload with several entries names the entry in each of its findings (SPEC 10).
            let named: (String) -> String = single ? { $0 } : { "\(planned.entry.key): \($0)" }
            switch verdict {
            case .attached(let attachment, _, let found):
                attachments.append(attachment)
                warnings += single ? found : found.map { var finding = $0; finding.message = named(finding.message); return finding }
            case .failed(_, let reason, let message):
                errors.append(.error(reason, named(message)))
                firstFailure = firstFailure ?? reason
            case .bundleResource(_, let message):
                warnings.append(Diagnostic(.warning, .bundleResource, named(message)))
                bundled = true
            }
        }
        let media: Report.Media = single ? singleFacts.map { .single($0) } ?? .none : .entries(entryFacts)
        let overrides: ContentOverrides? = if case .entries(_, let overrides) = spec { overrides } else { nil }
        if let extensionNeverRuns {
            return finish(.unchanged, extensionNeverRuns, media: media, attachments: [], overrides: nil)
        }
        if let firstFailure, profile.failurePolicy != .perEntry {
            // One attachment, or all or nothing: a failure sends the content unchanged, overrides dropped too.
            return finish(.unchanged, firstFailure, media: media, attachments: [], overrides: nil)
        }
        if !attachments.isEmpty {
            return finish(.attached, nil, media: media, attachments: attachments, overrides: overrides)
        }
        return finish(.unchanged, firstFailure ?? (bundled ? .bundleResource : .noMedia), media: media, attachments: [], overrides: nil)
    }
}

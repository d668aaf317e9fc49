import Glibc

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
    ///   - platform: whose delivery `payload` is: an APNs payload (iOS), or a send request's Android message.
    ///   - lifetime: how long the push waits for an offline phone, as its request sets it; nil: the platform's default.
    ///   - platformLimits: the limits the platform that builds this delivery breaks (SPEC 20), found with the request.
    package init(
        _ payload: Payload, selection: SDKSelection, options: FetchOptions, policies: PolicyTable? = nil, platform: Platform = .ios,
        lifetime: SendRequest.Lifetime? = nil, platformLimits: [Diagnostic] = [],
        checkURL: (JSONValue?, String, Bool) -> MediaURL.Verdict = { MediaURL.check($0, key: $1, allowHTTP: $2) }
    ) {
        let profile: SDKProfile
        let alsoDetected: [SDK]
        switch platform {
        case .ios:
            let resolved = selection.resolve(for: payload)
            profile = resolved.sdk.profile
            alsoDetected = resolved.alsoPresent
            self.policy = policies?[resolved.sdk] ?? profile.policy(options)
        case .android:
            profile = SDKProfile.android(for: payload, selection: selection)
            alsoDetected = []
            self.policy = policies?[android: profile] ?? profile.policy(options)
        }
        if case .auto = selection { profileDetected = true } else { profileDetected = false }
        self.payload = payload
        self.profile = profile
        self.alsoDetected = alsoDetected
        self.network = options.network
        self.spec = profile.readSpec(payload)
        var planned: [PlannedEntry] = []
        var fetches: [MediaURL] = []
        if case .entries(let entries, _) = spec {
            // At their size at once: most payloads name one entry, and growing from empty cost a copy.
            planned.reserveCapacity(entries.count)
            fetches.reserveCapacity(entries.count)
            for entry in entries {
                let step = Self.step(for: entry, profile: profile, policy: policy, checkURL: checkURL)
                if case .fetch(let url) = step, !fetches.contains(where: { $0.string == url.string }) { fetches.append(url) }
                planned.append(PlannedEntry(entry: entry, step: step))
            }
        }
        self.entries = planned
        self.fetches = fetches
        // The URL as the campaign wrote it (SPEC 20): what `MediaURL.check` found once per URL text.
        var urlFindings: [(entry: String, finding: Diagnostic)] = []
        for planned in planned {
            guard case .fetch(let url) = planned.step, url.encodedFrom != nil || url.expiry != nil else { continue }
            if let written = url.encodedFrom {
                urlFindings.append((planned.entry.key, Diagnostic(.warning, .urlNeedsEncoding,
                    "the URL holds spaces or non-ASCII characters (\(quoted(written))): iOS 17 and later encode it for apps built with "
                        + "their SDK, and the tool downloads it so (\(url.string)), but apps built before, and Android, refuse or mangle it; "
                        + DiagnosticCode.urlNeedsEncoding.fix)))
            }
            if let expiry = url.expiry {
                if let finding = SignedURL.finding(for: expiry, now: Int(time(nil)), sendAt: options.sendAt, lifetime: lifetime,
                                                   platform: profile.platform) {
                    urlFindings.append((planned.entry.key, finding))
                }
            }
        }
        self.deviceHeaders = options.deviceHeaders
        self.urlFindings = urlFindings
        self.platformLimits = platformLimits
    }

    /// The limits the platform that builds this delivery breaks, before any phone (SPEC 20).
    package let platformLimits: [Diagnostic]

    /// `--device-headers`: the downloads carry each platform's own answer (`device_dependent`).
    package let deviceHeaders: Bool

    /// Findings about the URLs as written, whatever their downloads (`url_expires`), by entry key.
    package let urlFindings: [(entry: String, finding: Diagnostic)]

    /// Section 2's URL checks under the profile's scheme rule.
    private static func step(
        for entry: MediaEntry, profile: SDKProfile, policy: MediaPolicy, checkURL: (JSONValue?, String, Bool) -> MediaURL.Verdict
    ) -> PlannedEntry.Step {
        if let bundleFiles = profile.bundleFiles, case .string(let text) = entry.value, !text.isEmpty, !bundleFiles.isURL(text) {
            // Template code left in the value is the platform's failure, whatever the SDK would make of the text
            // (a URL's own template code is the URL check's).
            if let marker = MediaURL.templateMarker(in: text) { return .failed(.unrenderedTemplate, Self.templateMessage(marker)) }
            return .bundleResource(bundleFiles.message(quoted(text), sdk: profile.sdk))
        }
        switch checkURL(entry.value, entry.key, policy.allowHTTP) {
        case .absent: return .failed(.invalidURL, "\(entry.key) is missing; \(DiagnosticCode.invalidURL.fix)")
        case .invalid(let why): return .failed(.invalidURL, "\(why); \(DiagnosticCode.invalidURL.fix)")
        case .unrenderedTemplate(let marker): return .failed(.unrenderedTemplate, Self.templateMessage(marker))
        case .valid(let url): return .fetch(url)
        case .notHTTPS(let scheme):
            if profile.refusesHTTPItself {
                return .failed(.notHTTPS, "the URL scheme is \(scheme): the SDK only downloads https; \(DiagnosticCode.notHTTPS.fix)")
            }
            if scheme == "http" && profile.platform.blocksCleartext {
                return .failed(.notHTTPS, "the URL scheme is http: Android's default network security policy (apps targeting "
                    + "Android 9, API 28, or later) blocks cleartext http unless the app permits it; serve the media over https")
            }
            if scheme == "http" {
                return .failed(.notHTTPS, "the URL scheme is http: App Transport Security blocks plain http on a device "
                    + "unless the app declares an exception; serve the media over https")
            }
            return .failed(
                .notHTTPS, "the URL scheme is \(scheme): the extension downloads https (or http, where the app allows it) only; \(DiagnosticCode.notHTTPS.fix)")
        }
    }

    /// `unrendered_template`'s message (SPEC 20).
    static func templateMessage(_ marker: String) -> String {
        "the URL still holds template code (\(marker)): the platform sends it as written when personalisation did not run, "
            + "and no phone can fetch it; \(DiagnosticCode.unrenderedTemplate.fix)"
    }
}

/// The limits and trust settings a download runs under.
///
/// `MediaPolicy.sdk` is what the Notti SDK uses on a device; tests and users
/// may narrow or widen it, and every report says which limits applied.
package struct MediaPolicy: Sendable, Equatable {
    /// The SDK's size cap: 10 MiB, inclusive.
    package static let sdkMaxBytes = 10_485_760
    /// The SDK's deadline for the whole transfer, in seconds.
    package static let sdkTimeoutSeconds = 20.0
    /// How many redirects the SDK follows; one more is `too_many_redirects`.
    package static let sdkMaxRedirects = 5

    package static let sdk = MediaPolicy()

    /// Largest accepted body, in decoded bytes.
    package var maxBytes: Int
    /// A smaller cap that only an announced Content-Length is held to (OneSignal on iOS:
    /// 50,000,000); a body without one is counted against `maxBytes`. nil: `maxBytes` for both.
    package var announcedMaxBytes: Int?
    /// Whose limit `announcedMaxBytes` is, for messages.
    package var announcedCapDescription: String?
    /// Deadline for everything: lookup, connect, TLS, redirects and body.
    package var timeoutSeconds: Double
    package var maxRedirects: Int
    /// Extra trusted CA certificates (PEM), in addition to the system store.
    package var extraCAFile: String?
    /// libcurl `CURLOPT_CONNECT_TO` entries (`HOST:PORT:CONNECT-HOST:CONNECT-PORT`),
    /// so bundled samples can name a stable host while a local server answers.
    package var connectTo: [String]
    /// Refuse loopback, private, link-local, CGNAT, multicast and unspecified
    /// addresses (off by default, as on a device).
    package var denyPrivateNetworks: Bool
    /// Plain http is fetched too, on the URL and every hop (an app with an App
    /// Transport Security exception); never for Notti.
    package var allowHTTP: Bool
    /// Plain http is refused by App Transport Security (every SDK but Notti, which
    /// refuses it itself): messages say so.
    package var httpRefusedByATS: Bool
    /// Plain http is refused by Android's default network security policy (apps targeting API 28+): messages say so.
    package var httpRefusedByAndroid = false
    /// The connection is judged as an iPhone judges it (SPEC 18): App Transport Security and
    /// iOS's certificate rules, every hop (iOS's profiles; not Android's).
    package var checksConnectionAsIOS = false
    /// The app allows arbitrary loads (`--allow-http`): App Transport Security's forward-secrecy rule is lifted.
    package var allowsArbitraryLoads = false
    /// The most the connection may take (Airship on Android: 2 s); nil: the deadline alone.
    package var connectTimeoutSeconds: Double?
    /// Files are read by the phone's decoders (SPEC 17); false under `--no-decode`, which the
    /// report's `limits` states (and a `--cache` row under it serves no run that decodes).
    package var decodes = true
    /// Whose limit `maxBytes` is, for messages ("iOS's largest attachment limit
    /// (50000000 bytes, video)"); nil: the SDK's own, or one the user set.
    package var capDescription: String?

    package init(
        maxBytes: Int = MediaPolicy.sdkMaxBytes,
        timeoutSeconds: Double = MediaPolicy.sdkTimeoutSeconds,
        maxRedirects: Int = MediaPolicy.sdkMaxRedirects,
        extraCAFile: String? = nil,
        connectTo: [String] = [],
        denyPrivateNetworks: Bool = false,
        allowHTTP: Bool = false,
        httpRefusedByATS: Bool = false,
        capDescription: String? = nil
    ) {
        self.maxBytes = maxBytes
        self.timeoutSeconds = timeoutSeconds
        self.maxRedirects = maxRedirects
        self.extraCAFile = extraCAFile
        self.connectTo = connectTo
        self.denyPrivateNetworks = denyPrivateNetworks
        self.allowHTTP = allowHTTP
        self.httpRefusedByATS = httpRefusedByATS
        self.capDescription = capDescription
    }

    /// The trust settings, which one libcurl handle keeps for all its fetches.
    var trust: Trust { Trust(extraCAFile: extraCAFile, connectTo: connectTo) }

    struct Trust: Equatable {
        var extraCAFile: String?
        var connectTo: [String]
    }

    /// The most a Content-Length may announce before the body is refused.
    package var announcedLimit: Int { announcedMaxBytes ?? maxBytes }

    /// The `limits` object of a report (an announced-only cap is the SDK's own, so it is the one named).
    package var limitsJSON: JSONValue {
        .object([
            JSONMember("maxBytes", .int(announcedLimit)),
            JSONMember("timeoutSeconds", .double(timeoutSeconds)),
        ] + (decodes ? [] : [JSONMember("decoded", .bool(false))]))
    }
}

// MARK: - One download, many policies
//
// A URL is downloaded once per run, under the loosest policy of the records that
// name it, and judged under each record's own. The download keeps what a stricter
// policy needs to be judged exactly (`TransferFacts`: when the headers came and
// what length they announced, when the body went over each cap in play, how long
// the connection and the whole transfer took), so each record's verdict is the one
// its own download would have met, at its own deadline.

extension MediaPolicy {
    /// The loosest of `policies`: the longest deadline, the largest cap, the most
    /// redirects, http if any allows it, a connect limit only if every one has one.
    /// One download under it can be judged under each of them.
    package static func loosest(of policies: [MediaPolicy]) -> MediaPolicy {
        guard var loosest = policies.first else { return MediaPolicy() }
        for policy in policies.dropFirst() where policy != loosest {
            let announced = max(loosest.announcedLimit, policy.announcedLimit)
            loosest.maxBytes = max(loosest.maxBytes, policy.maxBytes)
            loosest.announcedMaxBytes = announced < loosest.maxBytes ? announced : nil
            loosest.announcedCapDescription = nil
            loosest.timeoutSeconds = max(loosest.timeoutSeconds, policy.timeoutSeconds)
            loosest.maxRedirects = max(loosest.maxRedirects, policy.maxRedirects)
            loosest.allowHTTP = loosest.allowHTTP || policy.allowHTTP
            loosest.httpRefusedByATS = loosest.httpRefusedByATS || policy.httpRefusedByATS
            loosest.httpRefusedByAndroid = loosest.httpRefusedByAndroid || policy.httpRefusedByAndroid
            loosest.checksConnectionAsIOS = loosest.checksConnectionAsIOS && policy.checksConnectionAsIOS
            loosest.allowsArbitraryLoads = loosest.allowsArbitraryLoads || policy.allowsArbitraryLoads
            if let mine = loosest.connectTimeoutSeconds, let theirs = policy.connectTimeoutSeconds {
                loosest.connectTimeoutSeconds = max(mine, theirs)
            } else {
                loosest.connectTimeoutSeconds = nil
            }
            loosest.capDescription = nil
        }
        return loosest
    }

    /// Every cap a record of this run may be judged under (each profile's, iOS's and
    /// Android's, under `options`), ascending: a download notes when its body went
    /// over each, so a stricter record's `too_large` is told from its `timeout`.
    package static func capsInPlay(_ options: FetchOptions) -> [Int] {
        let profiles = SDK.allCases.map(\.profile) + SDKProfile.androidProfiles
        return Array(Set(profiles.map { $0.policy(options).maxBytes })).sorted()
    }
}

extension MediaPolicy {
    /// What of the policy a stored verdict depends on (`--cache`'s rows): a stored verdict serves only the same limits.
    var cacheKey: String {
        "\(maxBytes)|\(announcedMaxBytes.map(String.init) ?? "")|\(NumberText.decimal(timeoutSeconds))|\(maxRedirects)|\(allowHTTP)"
            + (decodes ? "" : "|undecoded")
    }
}

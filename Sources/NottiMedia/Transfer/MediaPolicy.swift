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
    /// The most the connection may take (Airship on Android: 2 s); nil: the deadline alone.
    package var connectTimeoutSeconds: Double?
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

    /// The `limits` object of a report.
    package var limitsJSON: JSONValue {
        .object([
            JSONMember("maxBytes", .int(maxBytes)),
            JSONMember("timeoutSeconds", .double(timeoutSeconds)),
        ])
    }
}

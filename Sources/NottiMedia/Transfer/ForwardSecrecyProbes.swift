internal import CCurl

/// Whether a server offers a suite with forward secrecy, as iOS asks it (SPEC 18):
/// App Transport Security is about what the server offers, not what one handshake
/// chose. The download's own handshake offers every suite libcurl has (Android
/// and curl connect with any), so when it agreed one without forward secrecy
/// (static RSA, DHE), a second, connect-only handshake offers iOS's suites alone:
/// TLS 1.3's and ECDHE's, as `SecProtocolConfiguration`'s `ats` group lists them.
/// If the server accepts it, it merely prefers another suite; if it refuses, an
/// iPhone cannot connect.
///
/// Cost: nothing where the download's handshake chose forward secrecy (nearly
/// every server); otherwise one handshake per host and port in a run, shared by
/// the run's workers, pinned to the address the download reached.
package final class ForwardSecrecyProbes: Sendable {
    /// App Transport Security's TLS 1.2 suites, in OpenSSL's names (TLS 1.3's are all accepted).
    static let iOSCipherList = [
        "ECDHE-ECDSA-AES256-GCM-SHA384", "ECDHE-ECDSA-AES128-GCM-SHA256", "ECDHE-ECDSA-AES256-SHA384",
        "ECDHE-ECDSA-AES128-SHA256", "ECDHE-ECDSA-AES256-SHA", "ECDHE-ECDSA-AES128-SHA", "ECDHE-ECDSA-CHACHA20-POLY1305",
        "ECDHE-RSA-AES256-GCM-SHA384", "ECDHE-RSA-AES128-GCM-SHA256", "ECDHE-RSA-AES256-SHA384", "ECDHE-RSA-AES128-SHA256",
        "ECDHE-RSA-AES256-SHA", "ECDHE-RSA-AES128-SHA", "ECDHE-RSA-CHACHA20-POLY1305",
    ].joined(separator: ":")
    /// The most a probe may take: it is one handshake to a server that just answered.
    static let probeMilliseconds = 5_000

    /// Each probed `host:port`'s answer.
    private let known = Guarded<[(key: String, value: TLSFacts.ForwardSecrecy)]>([])

    package init() {}

    /// Whether the server of `url` (reached at `address`) accepts a handshake offering only iOS's suites;
    /// asked once per host and port, later askers get the first answer.
    func offered(url: String, host: String, address: (ip: String, port: Int), trust: MediaPolicy.Trust) -> TLSFacts.ForwardSecrecy {
        known.value(for: "\(host):\(address.port)") {
            Self.probe(url: url, host: host, address: address, trust: trust)
        }
    }

    private static func probe(url: String, host: String, address: (ip: String, port: Int), trust: MediaPolicy.Trust)
        -> TLSFacts.ForwardSecrecy
    {
        do {
            let easy = try CurlEasy()
            try easy.setNoSignal()
            try easy.restrictProtocols(to: "https")
            try easy.requireTLS12OrNewer()
            if let file = trust.extraCAFile {
                try easy.addTrustedCAs(file: file, systemDirectory: MediaFetcher.systemCADirectory)
            }
            // The address the download reached, whatever the name resolves to now (and past any guard it passed).
            let ip = address.ip.contains(":") ? "[\(address.ip)]" : address.ip
            try easy.setConnectTo(["::\(ip):\(address.port)"])
            try easy.setCipherList(iOSCipherList)
            try easy.setConnectOnly()
            try easy.setURL(url)
            try easy.setTimeout(milliseconds: probeMilliseconds)
            switch easy.perform(while: { true }) {
            case CURLE_OK: return .offered
            // No suite in common: the server answers with an alert (a reset or a close says nothing).
            case CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CIPHER: return easy.heardServer ? .notOffered : .unknown
            default: return .unknown
            }
        } catch {
            return .unknown
        }
    }
}

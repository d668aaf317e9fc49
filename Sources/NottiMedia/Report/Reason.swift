/// Why a payload was delivered without media: the stable codes of SPEC
/// sections 2 and 3. Scripts match on `rawValue`; never rename one.
public enum Reason: String, Sendable, CaseIterable {
    /// The payload has no `notti_image_url`: delivered unchanged, not a failure.
    case noMedia = "no_media"
    /// The payload is not a JSON object.
    case invalidPayload = "invalid_payload"
    /// `notti_image_url` is not a non-empty string holding an absolute URL with a host.
    case invalidURL = "invalid_url"
    /// The URL's scheme is not https.
    case notHTTPS = "not_https"
    /// A redirect pointed at a scheme other than https.
    case insecureRedirect = "insecure_redirect"
    /// More redirects than the policy allows (a sixth, with the SDK's five).
    case tooManyRedirects = "too_many_redirects"
    /// The final response was not 2xx.
    case httpError = "http_error"
    /// A 2xx response with no body.
    case emptyMedia = "empty_media"
    /// More bytes than the policy allows, announced or received.
    case tooLarge = "too_large"
    /// The whole transfer did not finish within the deadline.
    case timeout = "timeout"
    /// The TLS handshake or certificate verification failed.
    case tlsError = "tls_error"
    /// Name lookup, connect, reset or another transport failure.
    case networkError = "network_error"
    /// `--deny-private-networks` refused the address connected to.
    case blockedAddress = "blocked_address"
    /// The attachment could not be written to the output folder.
    case writeError = "write_error"

    /// `no_media` is the one reason that is not a failure.
    public var isFailure: Bool { self != .noMedia }
}

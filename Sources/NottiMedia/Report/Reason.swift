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
    /// The SDK's media key holds something its extension cannot use (a missing
    /// or mistyped field, an Airship spec its decoder rejects).
    case invalidMediaSpec = "invalid_media_spec"
    /// iOS cannot type the file: no extension or hint it recognises (other SDKs;
    /// for Notti, a fallback to jpg is a warning of the same code).
    case unsupportedType = "unsupported_type"
    /// The value names a file in the app bundle (OneSignal): nothing is fetched.
    case bundleResource = "bundle_resource"

    /// `no_media` and `bundle_resource` are the reasons that are not failures.
    public var isFailure: Bool { self != .noMedia && self != .bundleResource }
}

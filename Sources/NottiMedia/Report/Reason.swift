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

    /// What to do about it, in plain words: the end of the reason's message.
    public var fix: String {
        switch self {
        case .noMedia: "add the SDK's media key to show media"
        case .invalidPayload: "make the payload one JSON object, as sent to APNs"
        case .invalidURL: "send an absolute URL with a host and no spaces"
        case .notHTTPS: "serve the media over https"
        case .insecureRedirect: "redirect to https only"
        case .tooManyRedirects: "link the final URL directly"
        case .httpError: "fix the link, or make the server answer 200 with the media"
        case .emptyMedia: "serve the media file itself"
        case .tooLarge: "serve a smaller file: recompress, resize or shorten it"
        case .timeout: "serve it faster or smaller (a CDN near the users)"
        case .tlsError: "give the server a valid certificate for its name, from a trusted CA, and TLS 1.2 or newer"
        case .networkError: "check the host name and that the server accepts connections"
        case .blockedAddress: "serve the media from a public address"
        case .writeError: "free space in the attachment folder, or choose another one"
        case .invalidMediaSpec: "give the SDK's media key the fields its extension reads"
        case .unsupportedType: "serve jpg, png, gif, mp3, m4a, wav, mp4 or m4v under a name or type iOS recognises"
        case .bundleResource: "make sure the app bundle ships that file, or send a URL"
        }
    }

    /// `no_media` and `bundle_resource` are the reasons that are not failures.
    public var isFailure: Bool { self != .noMedia && self != .bundleResource }
}

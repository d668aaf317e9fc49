/// The extension's verdict on one media URL: downloaded, sniffed and stored,
/// or why not. One result serves every payload that names the same URL.
public struct MediaResult: Sendable {
    public var facts: MediaFacts
    /// The stored file; nil when the media failed.
    public var attachment: Attachment?
    /// Why there is no attachment; nil when attached.
    public var failure: Failure?
    /// Findings about attached media (type warnings).
    public var warnings: [Diagnostic]

    public struct Failure: Sendable, Equatable {
        public var reason: Reason
        public var message: String
    }
}

/// What happened to one payload: the verdict, the media facts, the findings
/// and the content delivered (SPEC section 5).
public struct Report: Sendable {
    public enum Outcome: String, Sendable {
        /// The media was downloaded and attached.
        case attached
        /// The content was delivered without media (no media, or anything failed).
        case unchanged
        /// The input was not a JSON object: nothing was delivered.
        case invalidPayload = "invalid_payload"
    }

    /// Where the payload came from: a path, `path:line` or `-`.
    public var source: String
    public var outcome: Outcome
    /// Why the content is unchanged; nil when attached.
    public var reason: Reason?
    /// Facts about the media URL and its download; nil when there is no URL string.
    public var media: MediaFacts?
    public var diagnostics: [Diagnostic]
    /// The content as handed to iOS; nil for an invalid payload.
    public var content: JSONValue?
    /// The attached file (also in `content`'s `attachments`); nil unless attached.
    public var attachment: Attachment?
    /// Warnings fail the payload too (`check --strict`).
    public var strict = false

    /// The report for input that is not a JSON object: nothing is delivered.
    public static func invalidPayload(source: String, error: PayloadError) -> Report {
        Report(
            source: source, outcome: .invalidPayload, reason: .invalidPayload, media: nil,
            diagnostics: [.error(.invalidPayload, error.description)], content: nil)
    }

    /// No diagnostic is an error (with `strict`, no warning either).
    public var passed: Bool {
        !diagnostics.contains { $0.severity == .error || (strict && $0.severity == .warning) }
    }

    public var json: JSONValue {
        .object([
            JSONMember("source", .string(source)),
            JSONMember("outcome", .string(outcome.rawValue)),
            JSONMember("reason", .optional(reason?.rawValue)),
            JSONMember("passed", .bool(passed)),
            JSONMember("media", media?.json ?? .null),
            JSONMember("diagnostics", .array(diagnostics.map(\.json))),
            JSONMember("content", content ?? .null),
        ])
    }
}

/// The `media` object of a report: every key always present, null when unknown.
public struct MediaFacts: Sendable {
    /// The URL as the payload gave it.
    public var url: String
    public var finalURL: String?
    public var redirects: Int?
    public var httpStatus: Int?
    public var declaredMime: String?
    public var urlExtension: String?
    public var decision: TypeDecision?
    public var bytes: Int?
    public var sha256: String?
    public var elapsedMilliseconds: Int?
    public var policy: MediaPolicy

    public init(url: String, policy: MediaPolicy) {
        self.url = url
        self.policy = policy
    }

    public var json: JSONValue {
        .object([
            JSONMember("url", .string(url)),
            JSONMember("finalUrl", .optional(finalURL)),
            JSONMember("redirects", .optional(redirects)),
            JSONMember("httpStatus", .optional(httpStatus)),
            JSONMember("declaredMime", .optional(declaredMime)),
            JSONMember("urlExtension", .optional(urlExtension)),
            JSONMember("sniffedMime", .optional(decision?.sniffedMime)),
            JSONMember("type", .optional(decision?.type.rawValue)),
            JSONMember("sdkType", .optional(decision?.sdkType.rawValue)),
            JSONMember("fallback", .optional(decision?.fallback)),
            JSONMember("bytes", .optional(bytes)),
            JSONMember("sha256", .optional(sha256)),
            JSONMember("elapsedMs", .optional(elapsedMilliseconds)),
            JSONMember("limits", policy.limitsJSON),
        ])
    }
}

/// What happened to one payload: the verdict, the media facts, the findings
/// and the content delivered (SPEC section 5).
public struct Report: Sendable {
    public enum Outcome: String, Sendable {
        /// Media was downloaded and attached.
        case attached
        /// The content was delivered without media (no media, or anything failed).
        case unchanged
        /// The input was not a JSON object: nothing was delivered.
        case invalidPayload = "invalid_payload"
    }

    /// The `media` of a report: none, one entry's facts (as an object), or, for
    /// SDKs that attach several, every entry's (as an array, in listed order).
    public enum Media: Sendable {
        case none
        case single(MediaFacts)
        case entries([MediaFacts])

        public var all: [MediaFacts] {
            switch self {
            case .none: []
            case .single(let facts): [facts]
            case .entries(let list): list
            }
        }

        var json: JSONValue {
            switch self {
            case .none: .null
            case .single(let facts): facts.json
            case .entries(let list): .array(list.map(\.json))
            }
        }
    }

    /// Where the payload came from: a path, `path:line` or `-`.
    public var source: String
    /// True when `source` names a line of JSON Lines (`path:line`), so a
    /// position inside the payload is only a column.
    public var sourceIsLine = false
    /// The payload's 0-based position in the whole input of a `check` run (all
    /// shards), which `merge` joins shards' records by; nil for `process`.
    public var index: Int?
    /// Whose extension was reproduced (under `--sdk auto`, the one detected).
    public var sdk: SDK
    public var outcome: Outcome
    /// Why the content is unchanged; nil when attached.
    public var reason: Reason?
    public var media: Media
    public var diagnostics: [Diagnostic]
    /// The content as handed to iOS; nil for an invalid payload.
    public var content: JSONValue?
    /// The attached files (also in `content`'s `attachments`), in listed order.
    public var attachments: [Attachment]
    /// Warnings fail the payload too (`--strict`).
    public let strict: Bool
    /// Each media URL's own verdict, for the campaign summary (not part of the JSON).
    public var mediaVerdicts: [MediaVerdict] = []

    /// The first attachment, for one-attachment views.
    public var attachment: Attachment? { attachments.first }

    /// The report for input that is not a JSON object: nothing is delivered.
    public static func invalidPayload(source: String, sdk: SDK = .notti, error: PayloadError, strict: Bool = false) -> Report {
        let diagnostic = Diagnostic(
            .error, Reason.invalidPayload.rawValue, "\(error.message); \(Reason.invalidPayload.fix)",
            line: error.line, column: error.column)
        return Report(
            source: source, sdk: sdk, outcome: .invalidPayload, reason: .invalidPayload, media: .none,
            diagnostics: [diagnostic], content: nil, attachments: [], strict: strict)
    }

    /// No diagnostic is an error (with `strict`, no warning either).
    public var passed: Bool {
        !diagnostics.contains { $0.severity == .error || (strict && $0.severity == .warning) }
    }

    public var json: JSONValue {
        .object([
            JSONMember("source", .string(source)),
        ] + (index.map { [JSONMember("index", .int($0))] } ?? []) + (sourceIsLine ? [JSONMember("sourceIsLine", .bool(true))] : []) + [
            JSONMember("sdk", .string(sdk.rawValue)),
            JSONMember("outcome", .string(outcome.rawValue)),
            JSONMember("reason", .optional(reason?.rawValue)),
            JSONMember("passed", .bool(passed)),
            JSONMember("media", media.json),
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
    /// Notti's type decision (sniffed type, SDK-side type).
    public var decision: TypeDecision?
    /// Another SDK's: the extension or hint it gives, and what iOS makes of it.
    public var deviceType: DeviceTypeDecision?
    /// The entry's identifier, for SDKs that attach several.
    public var identifier: String?
    /// What libmagic says the bytes are.
    public var sniffedMime: String?
    public var bytes: Int?
    public var sha256: String?
    public var elapsedMilliseconds: Int?
    /// libcurl's phase times for the fetch (not deterministic, like `elapsedMilliseconds`).
    public var timings: FetchTimings?
    /// The final response's caching headers, as served.
    public var http: HTTPFacts?
    public var policy: MediaPolicy
    // What a stricter profile's policy needs to judge the same download again
    // (`MediaResult.judged(under:)`); not part of the report.
    var announcedBytes: Int?
    var httpHop: RedirectHop?
    var refusedHop: RedirectHop?
    var tooLargeAnnounced = false
    /// The URL's host, once the URL passed its checks (a phone requests it).
    var host: String?
    /// With `--cache`: `fetched` (downloaded and stored) or `revalidated` (a 304 reused the stored copy).
    public var cacheState: String?

    /// The least download time on each named network, once the size is known.
    public func estimate(on network: NetworkProfile) -> Int? {
        bytes.map { network.leastMilliseconds(bytes: $0, redirects: redirects ?? 0) }
    }

    private var estimatesJSON: JSONValue {
        guard bytes != nil else { return .null }
        return .object(NetworkProfile.presets.map { JSONMember($0.name, .optional(estimate(on: $0))) })
    }

    public init(url: String, policy: MediaPolicy) {
        self.url = url
        self.policy = policy
    }

    public var json: JSONValue {
        var members: [JSONMember] = identifier.map { [JSONMember("identifier", .string($0))] } ?? []
        members += [
            JSONMember("url", .string(url)),
            JSONMember("finalUrl", .optional(finalURL)),
            JSONMember("redirects", .optional(redirects)),
            JSONMember("httpStatus", .optional(httpStatus)),
            JSONMember("declaredMime", .optional(declaredMime)),
            JSONMember("urlExtension", .optional(urlExtension)),
            JSONMember("sniffedMime", .optional(sniffedMime)),
        ]
        if let deviceType {
            members += [
                JSONMember("type", .optional(deviceType.recognised?.rawValue)),
                JSONMember("sdkType", .optional(deviceType.fileExtension)),
                JSONMember("fallback", .bool(false)),
                JSONMember("typeHint", .optional(deviceType.hint)),
                JSONMember("typeSource", .string(deviceType.source)),
            ]
        } else {
            members += [
                JSONMember("type", .optional(decision?.type.rawValue)),
                JSONMember("sdkType", .optional(decision?.sdkType.rawValue)),
                JSONMember("fallback", .optional(decision?.fallback)),
            ]
        }
        members += [
            JSONMember("bytes", .optional(bytes)),
            JSONMember("sha256", .optional(sha256)),
            JSONMember("elapsedMs", .optional(elapsedMilliseconds)),
            JSONMember("timings", timings?.json ?? .null),
            JSONMember("http", http?.json ?? .null),
            JSONMember("estimates", estimatesJSON),
            JSONMember("limits", policy.limitsJSON),
        ]
        if let cacheState { members.append(JSONMember("cache", .string(cacheState))) }
        return .object(members)
    }
}

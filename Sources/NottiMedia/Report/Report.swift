/// What happened to one payload: the verdict, the media facts, the findings
/// and the content delivered (SPEC section 5).
public struct Report: Sendable {
    public enum Outcome: String, Sendable {
        /// Media was downloaded and attached.
        case attached
        /// The content was delivered without media (no media, or anything failed).
        case unchanged
        /// APNs refuses the payload (`payload_too_large`): no phone receives anything.
        case rejected
        /// The input was not a JSON object: nothing was delivered.
        case invalidPayload = "invalid_payload"
    }

    /// The `media` of a report: none, one entry's facts (as an object), or, for
    /// SDKs that attach several, every entry's (as an array, in listed order).
    public enum Media: Sendable {
        case none
        case single(MediaOutput)
        case entries([MediaOutput])

        /// Every entry, as the report's JSON lists them.
        public var outputs: [MediaOutput] {
            switch self {
            case .none: []
            case .single(let output): [output]
            case .entries(let list): list
            }
        }

        /// Every entry's download facts.
        public var all: [MediaFacts] { outputs.map(\.facts) }

        package var json: JSONValue {
            switch self {
            case .none: .null
            case .single(let output): output.json
            case .entries(let list): .array(list.map(\.json))
            }
        }
    }

    /// Where the payload came from: a path, `path:line` or `-`.
    public var source: String
    /// True when `source` names a line of JSON Lines (`path:line`), so a
    /// position inside the payload is only a column.
    package var sourceIsLine = false
    /// True when `--sdk auto` detected `sdk`: people's output names the profile.
    package var sdkDetected = false
    /// The payload's 0-based position in the whole input of a `check` run (all
    /// shards), which `merge` joins shards' records by; nil for `process`.
    public var index: Int?
    /// Whose extension was reproduced (under `--sdk auto`, the one detected).
    public var sdk: SDK
    /// The phone the record is about: an APNs payload's is `ios`.
    public var platform: Platform = .ios
    public var outcome: Outcome
    /// Why the content is unchanged; nil when attached.
    public var reason: DiagnosticCode?
    public var media: Media
    public var diagnostics: [Diagnostic]
    /// How the content is had: built when first asked for, since a text or
    /// JUnit output of a million-payload campaign never looks at it.
    package enum ContentSource: Sendable {
        case none
        case value(JSONValue)
        case payload(Payload, attachments: [Attachment], overrides: ContentOverrides?)
        /// An Android delivery: its notification, and the picture it shows, if any (as the large icon alone
        /// under Expo's builder).
        case android(Payload, picture: Attachment?, dimensions: Dimensions?, largeIcon: Bool)
    }

    package var contentSource: ContentSource

    /// The content as handed to iOS; nil for an invalid payload.
    public var content: JSONValue? {
        switch contentSource {
        case .none: nil
        case .value(let value): value
        case .payload(let payload, let attachments, let overrides):
            NotificationContent.json(for: payload, attachments: attachments, overrides: overrides)
        case .android(let payload, let picture, let dimensions, let largeIcon):
            AndroidContent.json(for: payload, picture: picture, dimensions: dimensions, largeIcon: largeIcon)
        }
    }
    /// An Android record whose picture shows as the large icon alone (Expo's builder), not a big picture.
    package var showsLargeIcon: Bool {
        if case .android(_, let picture, _, let largeIcon) = contentSource { return largeIcon && picture != nil }
        return false
    }

    /// The attached files (also in `content`'s `attachments`), in listed order.
    public var attachments: [Attachment]
    /// Warnings fail the payload too (`--strict`).
    package let strict: Bool
    /// Each media URL's own verdict, for the campaign summary (not part of the JSON).
    package var mediaVerdicts: [MediaVerdict] = []

    /// The first attachment, for one-attachment views.
    public var attachment: Attachment? { attachments.first }

    /// The report for input that is not a JSON object: nothing is delivered.
    package static func invalidPayload(source: String, sdk: SDK = .notti, error: PayloadError, strict: Bool = false) -> Report {
        // A platform's refusal is judged under that platform's rules, and says where to look.
        let fix = error.refusedBy.map { "give the request what \($0.displayName)'s API reference requires there" } ?? DiagnosticCode.invalidPayload.fix
        let diagnostic = Diagnostic(.error, .invalidPayload, "\(error.message); \(fix)", line: error.line, column: error.column)
        return Report(
            source: source, sdk: error.refusedBy?.sdk ?? sdk, outcome: .invalidPayload, reason: .invalidPayload, media: .none,
            diagnostics: [diagnostic], contentSource: .none, attachments: [], strict: strict)
    }

    /// A send request its platform refuses: nothing reaches a phone, and each platform's record (`source#ios`,
    /// `source#android`, as `platforms` keeps them) says so.
    package static func refusedRequest(
        source: String, sdk: SDK = .notti, error: PayloadError, strict: Bool = false, platforms: PlatformSelection = .all
    ) -> [Report] {
        Platform.allCases.filter { platforms.includes($0) }.map { platform in
            var report = invalidPayload(source: "\(source)#\(platform.rawValue)", sdk: sdk, error: error, strict: strict)
            report.platform = platform
            return report
        }
    }

    /// No diagnostic is an error (with `strict`, no warning either).
    public var passed: Bool {
        !diagnostics.contains { $0.severity == .error || (strict && $0.severity == .warning) }
    }

    public var json: JSONValue {
        .object([
            JSONMember("source", .string(source)),
        ] + (index.map { [JSONMember("index", .int($0))] } ?? []) + (sourceIsLine ? [JSONMember("sourceIsLine", .bool(true))] : [])
            + (sdkDetected ? [JSONMember("sdkDetected", .bool(true))] : []) + [
            JSONMember("sdk", .string(sdk.rawValue)),
            JSONMember("platform", .string(platform.rawValue)),
            JSONMember("outcome", .string(outcome.rawValue)),
            JSONMember("reason", .optional(reason?.rawValue)),
            JSONMember("passed", .bool(passed)),
            JSONMember("media", media.json),
            JSONMember("diagnostics", .array(diagnostics.map(\.json))),
            JSONMember("content", content ?? .null),
        ])
    }
}

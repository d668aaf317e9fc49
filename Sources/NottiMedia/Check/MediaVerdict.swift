/// What one distinct media URL came to, for the campaign summary.
public struct MediaVerdict: Sendable, Equatable {
    public var url: String
    /// Why payloads naming it go out without media; nil when it attaches.
    public var reason: Reason?
    public var message: String?
    public var type: MediaType?
    public var bytes: Int?
    public var httpStatus: Int?
    /// Codes of the warnings attached media raises (type_mismatch, ...).
    public var warnings: [String]

    /// The verdict in a report, when the payload named a media URL string;
    /// `result` is the download's result, for a valid URL.
    init?(report: Report, result: MediaResult?) {
        guard let media = report.media else { return nil }
        url = media.url
        reason = report.reason
        message = report.reason.flatMap { reason in report.diagnostics.first { $0.code == reason.rawValue }?.message }
        type = media.decision?.type
        bytes = media.bytes
        httpStatus = media.httpStatus
        warnings = result?.attachment != nil ? result?.warnings.map(\.code) ?? [] : []
    }

    /// 2 for a failure, 1 for warnings, 0 for clean: the summary lists the worst first.
    public var severityRank: Int {
        if reason != nil { return 2 }
        return warnings.isEmpty ? 0 : 1
    }

    public var json: JSONValue {
        .object([
            JSONMember("url", .string(url)),
            JSONMember("verdict", .string(reason?.rawValue ?? "attached")),
            JSONMember("message", .optional(message)),
            JSONMember("type", .optional(type?.rawValue)),
            JSONMember("bytes", .optional(bytes)),
            JSONMember("httpStatus", .optional(httpStatus)),
            JSONMember("warnings", .array(warnings.map(JSONValue.string))),
        ])
    }
}

/// Properties that must hold for any input bytes whatsoever, checked by the fuzz
/// target (`scripts/fuzz`) and by the tests on its seeds and past findings.
enum PayloadInvariants {
    /// Runs the payload parser, URL validation, lints, content builder and
    /// report on `bytes` (no network: a valid URL gets a synthetic failure).
    /// - Returns: a description of the first property that does not hold, or nil.
    static func violation(in bytes: [UInt8]) -> String? {
        guard let payload = try? Payload(json: bytes) else { return nil }
        for style in [JSONWriter.Style.compact, .pretty] {
            let written = JSONWriter.string(payload.root, style: style)
            guard let reread = try? JSONParser.parse(Array(written.utf8)) else {
                return "the \(style) output does not parse back: \(written.prefix(200))"
            }
            guard reread == payload.root else { return "the \(style) output parses back to a different value" }
            if style == .compact, JSONWriter.compactByteCount(payload.root) != written.utf8.count {
                return "compactByteCount disagrees with the compact output's length"
            }
        }
        let verdict = MediaURL.check(payload.mediaURLValue)
        var media: MediaResult?
        if case .valid(let url) = verdict {
            media = MediaResult(
                facts: MediaFacts(url: url.string, policy: .sdk), attachment: nil,
                failure: .init(reason: .networkError, message: "not fetched"), warnings: [])
        }
        let report = ServiceExtension.report(for: payload, source: "input", verdict: verdict, media: media, policy: .sdk)
        guard (try? JSONParser.parse(Array(JSONWriter.string(report.json).utf8))) != nil else {
            return "the report is not valid JSON"
        }
        if payload.mediaURLValue == nil && report.reason != .noMedia { return "no URL but reason \(String(describing: report.reason))" }
        if report.outcome == .attached { return "attached without a download" }
        return nil
    }
}

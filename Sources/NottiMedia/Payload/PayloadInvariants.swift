/// Properties that must hold for any input bytes whatsoever, checked by the fuzz
/// target (`scripts/fuzz`) and by the tests on its seeds and past findings.
enum PayloadInvariants {
    /// Runs the payload parser, every SDK profile's reading, URL validation,
    /// lints, content builder and report on `bytes` (no network: a valid URL
    /// gets a synthetic failure).
    /// - Returns: a description of the first property that does not hold, or nil.
    static func violation(in bytes: [UInt8]) -> String? {
        if let violation = decodeAnswerViolation(in: bytes) { return violation }
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
            // `payload_too_large` skips the count below this bound, so it must hold for any text.
            if style == .compact, written.utf8.count > payload.byteCount * Lints.maxSerializedGrowth {
                return "the compact output is more than \(Lints.maxSerializedGrowth) times the text's size"
            }
        }
        // Every profile's report, with each URL's download failed (no network here).
        for sdk in SDK.allCases {
            let plan = PayloadPlan(payload, selection: .fixed(sdk), options: FetchOptions())
            var results = MediaResults()
            for url in plan.fetches {
                results[url.string] = .failed(MediaFacts(url: url.string, policy: plan.policy), .networkError, "not fetched")
            }
            let report = Report(plan, judgement: PayloadJudgement(plan, results: results), source: "input", strict: false)
            guard (try? JSONParser.parse(Array(JSONWriter.string(report.json).utf8))) != nil else {
                return "the \(sdk) report is not valid JSON"
            }
            if report.outcome == .attached { return "attached without a download (\(sdk))" }
            if sdk == .notti && payload.mediaURLValue == nil && report.reason != .noMedia {
                return "no URL but reason \(String(describing: report.reason))"
            }
        }
        return nil
    }

    /// The decode worker's side of its protocol (SPEC 17): any answer, however hostile (the worker reads
    /// hostile bytes, and a broken one may say anything), is read into facts that write valid JSON, keep
    /// what they read (the `--cache` form reads back the same), and are judged on both platforms.
    static func decodeAnswerViolation(in bytes: [UInt8]) -> String? {
        guard let answer = try? JSONParser.parse(bytes) else { return nil }
        for mime in ["image/jpeg", "video/mp4", "audio/mpeg", "text/html"] {
            guard let decoded = DecodedMedia(answer: answer, mime: mime) else { continue }
            guard (try? JSONParser.parse(Array(JSONWriter.string(decoded.json).utf8))) != nil else {
                return "media.decoded is not valid JSON"
            }
            // A failed decode has no --cache form: it is never kept.
            if decoded.failed != nil {
                guard decoded.answer == .null else { return "a failed decode has a --cache form" }
            } else if DecodedMedia(answer: decoded.answer, mime: mime) != decoded {
                return "the decoded facts do not read back from their --cache form"
            }
            for profile in SDK.allCases.map(\.profile) + SDKProfile.androidProfiles {
                _ = DecoderRules(decoded: decoded).findings(profile: profile)
            }
        }
        return nil
    }
}

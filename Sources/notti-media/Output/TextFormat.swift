import NottiMedia

/// `--format text`: every finding of every payload, one line each
/// (`SOURCE: SEVERITY: CODE: MESSAGE`), then a summary people read.
struct TextFormat: CheckRenderer, CheckSink {
    var summaryOnly: Bool
    /// `--errors-only`: warnings are not listed (the summary still counts them).
    var errorsOnly = false

    func render(_ report: Report) -> String? {
        summaryOnly ? nil : report.findingLines(errorsOnly: errorsOnly)
    }

    func write(_ rendered: String) {
        Console.out(rendered)
    }

    func finish(_ summary: CheckSummary) {
        Console.out(Self.summaryText(summary))
    }

    /// `10000 payloads (13334 records: 10000 iOS, 3334 Android)`, inputs and records apart (SPEC 10),
    /// or `11 payloads` when every input is one record. Passed and failed count records.
    static func counted(_ summary: CheckSummary) -> String {
        let inputs = "\(summary.inputs) payload\(summary.inputs == 1 ? "" : "s")"
        guard summary.payloads != summary.inputs else { return inputs }
        let perPlatform = Platform.allCases.map { "\(summary.counts(for: $0).payloads) \($0.displayName)" }.joined(separator: ", ")
        return "\(inputs) (\(summary.payloads) record\(summary.payloads == 1 ? "" : "s"): \(perPlatform))"
    }

    static func summaryText(_ summary: CheckSummary) -> String {
        var lines: [String] = []
        let state = summary.interrupted ? "interrupted after" : "checked"
        // Records are written in input order: an interrupted run says how many more had finished past a stuck one.
        let outOfOrder = summary.interrupted && summary.finishedOutOfOrder > 0
            ? " (and \(summary.finishedOutOfOrder) more finished out of order, after one still running; not written)" : ""
        lines.append("\(state) \(Self.counted(summary))\(outOfOrder): \(summary.passed) passed, \(summary.failed) failed")
        // A line each per platform, once a run has records for more than iOS (send requests).
        if summary.counts(for: .android).payloads > 0 {
            for platform in Platform.allCases {
                let counts = summary.counts(for: platform)
                lines.append("  \(platform.rawValue): \(counts.payloads) record\(counts.payloads == 1 ? "" : "s"): "
                    + "\(counts.passed) passed, \(counts.failed) failed")
            }
        }
        if !summary.decoded {
            lines.append("not decoded (--no-decode): no file was read as the phone reads it; media.decoded is null "
                + "and undecodable_media, truncated_media and unplayable_video were not looked for")
        }
        if !summary.codeCounts.isEmpty {
            lines.append("diagnostics: " + summary.codesByCount.map { "\($0.code) \($0.payloads)" }.joined(separator: ", "))
        }
        let hosts = summary.hostLoads
        if !hosts.isEmpty {
            lines.append("send time: each recipient's phone downloads the media at once (pulls: the bytes all phones "
                + "pull from the host; not what this check downloaded, once per URL)")
            lines.append("  \("host".padding(32)) \("downloads".leftPadding(10)) \("pulls".leftPadding(10)) \("not cacheable".leftPadding(14))")
            for load in hosts {
                lines.append("  \(textEscape(load.host).padding(32)) \(String(load.downloads).leftPadding(10)) "
                    + "\(ByteText.human(load.bytes).leftPadding(10)) \(ByteText.human(load.notCacheableBytes).leftPadding(14))"
                    + (load.atsViolation.map { "  iPhones refuse this server: \($0)" } ?? ""))
            }
            lines.append("networks: records whose media cannot arrive within the deadline")
            for (network, payloads) in summary.payloadsMissing {
                lines.append("  \(network.name) (\(network.description)): \(payloads) of \(summary.payloads)")
            }
        }
        let media = summary.mediaByImpact
        if !media.isEmpty {
            lines.append("media: \(media.count) distinct URL\(media.count == 1 ? "" : "s"), worst first")
            var rows: [(verdict: String, payloads: Int, url: String)] = []
            for entry in media {
                if entry.profiles.count == 1, let (verdict, payloads) = entry.profiles.first {
                    rows.append((describe(verdict), payloads, textEscape(verdict.key)))
                    continue
                }
                // One download, judged differently by the profiles that read it: each one's verdict.
                rows.append(("BY PROFILE", entry.payloads, textEscape(entry.url)))
                for (verdict, payloads) in entry.profiles {
                    rows.append(("  \(verdict.profileName): \(describe(verdict))", payloads, ""))
                }
            }
            // The verdict column as wide as its widest row, so no row runs into the counts.
            let width = max(34, rows.map(\.verdict.count).max() ?? 0)
            lines += rows.map { line($0.verdict, $0.payloads, $0.url, width: width) }
        }
        return lines.joined(separator: "\n")
    }

    private static func line(_ verdict: String, _ payloads: Int, _ url: String, width: Int) -> String {
        let row = "  \(verdict.padding(width))  \(String(payloads).leftPadding(7)) payload\(payloads == 1 ? " " : "s")  \(url)"
        // A profile's row names no URL: no spaces after its count.
        return url.isEmpty ? String(row.reversed().drop { $0 == " " }.reversed()) : row
    }

    /// A verdict in a few words; shared with JUnit's summary.
    static func describe(_ verdict: MediaVerdict) -> String {
        // A bundle file is a warning, not a failure: tested before the failing reasons.
        if verdict.reason == .bundleResource { return "BUNDLE file in the app" }
        if let reason = verdict.reason {
            let status = reason == .httpError ? verdict.httpStatus.map { " (HTTP \($0))" } ?? "" : ""
            return "FAIL \(reason.rawValue)\(status)"
        }
        let what = "\(verdict.type ?? "?") \(verdict.bytes ?? 0) B"
        if let error = verdict.attachedError { return "FAIL \(error) (attached \(what))" }
        return verdict.warnings.isEmpty ? "OK   \(what)" : "WARN \(what) \(verdict.warnings.map(\.codeText).joined(separator: ","))"
    }
}

extension String {
    func padding(_ width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }

    func leftPadding(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}

import NottiMedia

/// `--format text`: every finding of every payload, one line each
/// (`SOURCE: SEVERITY: CODE: MESSAGE`), then a summary people read.
struct TextFormat: CheckRenderer, CheckSink {
    var summaryOnly: Bool
    /// `--errors-only`: warnings are not listed (the summary still counts them).
    var errorsOnly = false
    /// `--top N`: the summary's media rows.
    var top = 20

    func render(_ report: Report) -> String? {
        summaryOnly ? nil : report.findingLines(errorsOnly: errorsOnly)
    }

    func write(_ rendered: String) {
        Console.out(rendered)
    }

    func finish(_ summary: CheckSummary) {
        if let lines = Self.hostLines(summary, errorsOnly: errorsOnly) { Console.out(lines) }
        Console.out(Self.summaryText(summary, top: top))
    }

    /// `10000 payloads (13334 records: 10000 iOS, 3334 Android)`, inputs and records apart (SPEC 10),
    /// or `11 payloads` when every input is one record. Passed and failed count records.
    static func counted(_ summary: CheckSummary) -> String {
        let inputs = "\(summary.inputs) payload\(summary.inputs == 1 ? "" : "s")"
        guard summary.payloads != summary.inputs else { return inputs }
        let perPlatform = Platform.allCases.map { "\(summary.counts(for: $0).payloads) \($0.displayName)" }.joined(separator: ", ")
        return "\(inputs) (\(summary.payloads) record\(summary.payloads == 1 ? "" : "s"): \(perPlatform))"
    }

    /// The findings about hosts, once per host and run (SPEC 10): `HOST: SEVERITY: CODE: MESSAGE`.
    static func hostLines(_ summary: CheckSummary, errorsOnly: Bool) -> String? {
        let lines = summary.hostFindings.filter { !errorsOnly || $0.severity == .error }.map {
            FindingLine.format(Diagnostic($0.severity, $0.code, $0.message), source: $0.host)
        }
        return lines.isEmpty ? nil : lines.joined(separator: "\n")
    }

    static func summaryText(_ summary: CheckSummary, top: Int = 20) -> String {
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
                    + (load.atsViolation.map { "  iPhones refuse this server: \($0)" } ?? "")
                    + (load.certificateNotAfter.map { "  certificate expires \(CertificateFacts.date($0))" } ?? ""))
            }
            lines.append("networks: records whose media cannot arrive within the deadline")
            for (network, payloads) in summary.payloadsMissing {
                lines.append("  \(network.name) (\(network.description)): \(payloads) of \(summary.payloads)")
            }
        }
        lines += mediaRows(summary, top: top)
        return lines.joined(separator: "\n")
    }

    /// The media list (SPEC 13): one row per group of URLs whose downloads have the same content and
    /// the same verdicts (a campaign of personalised URLs of seven files is seven rows), worst first,
    /// at most `top` rows, then how many more; `--format json` keeps every URL.
    private static func mediaRows(_ summary: CheckSummary, top: Int) -> [String] {
        let distinct = summary.media.totals.urls
        guard distinct > 0 else { return [] }
        // One group per signature (the same content and verdicts), its first URL the list's first.
        struct Group {
            var first: CheckSummary.URLMedia
            var urls = 1
            var payloads: Int
            var profilePayloads: [Int]
        }
        var groups: [Group] = []
        var slots: [String: Int] = [:]
        summary.media.list { entry in
            if let slot = slots[entry.signature] {
                groups[slot].urls += 1
                groups[slot].payloads += entry.payloads
                for (index, payloads) in entry.profilePayloads.enumerated() where index < groups[slot].profilePayloads.count {
                    groups[slot].profilePayloads[index] += payloads
                }
            } else if let media = entry.media {
                slots[entry.signature] = groups.count
                groups.append(Group(first: media, payloads: entry.payloads, profilePayloads: entry.profilePayloads))
            }
        }
        // Worst first, then the most records, then by URL (as the list was before grouping).
        groups.sort {
            let (left, right) = ($0.first.worst.severityRank, $1.first.worst.severityRank)
            if left != right { return left > right }
            if $0.payloads != $1.payloads { return $0.payloads > $1.payloads }
            return Array($0.first.url.utf8).lexicographicallyPrecedes(Array($1.first.url.utf8))
        }
        var lines = ["media: \(distinct) distinct URL\(distinct == 1 ? "" : "s"), worst first"
            + (groups.count < distinct ? ", URLs of the same content and verdicts in one row" : "")]
        var rows: [(verdict: String, payloads: Int, url: String)] = []
        for group in groups.prefix(top) {
            let entry = group.first
            let same = entry.profiles.contains { $0.verdict.sha256 != nil } ? "same content as" : "same verdict as"
            let url = group.urls == 1 ? textEscape(entry.url) : "\(group.urls) URLs, \(same) \(textEscape(entry.url))"
            if entry.profiles.count == 1, let verdict = entry.profiles.first?.verdict {
                rows.append((describe(verdict), group.payloads, group.urls == 1 ? textEscape(verdict.key) : url))
                continue
            }
            // One download, judged differently by the profiles that read it: each one's verdict.
            rows.append(("BY PROFILE", group.payloads, url))
            for (index, profile) in entry.profiles.enumerated() {
                rows.append(("  \(profile.verdict.profileName): \(describe(profile.verdict))", group.profilePayloads[index], ""))
            }
        }
        // The verdict column as wide as its widest row, so no row runs into the counts.
        let width = max(34, rows.map(\.verdict.count).max() ?? 0)
        lines += rows.map { line($0.verdict, $0.payloads, $0.url, width: width) }
        if groups.count > top {
            let rest = groups.dropFirst(top)
            let urls = rest.reduce(0) { $0 + $1.urls }
            lines.append("  … and \(rest.count) more row\(rest.count == 1 ? "" : "s") (\(urls) URL\(urls == 1 ? "" : "s")): --top N shows more, "
                + "--format json lists every URL")
        }
        return lines
    }

    /// A row of the media list: its count is of records (SPEC 10: a request's two deliveries are two), said so.
    private static func line(_ verdict: String, _ records: Int, _ url: String, width: Int) -> String {
        let row = "  \(verdict.padding(width))  \(String(records).leftPadding(7)) record\(records == 1 ? " " : "s")  \(url)"
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

import Glibc
import NottiMedia

/// `--format junit`: JUnit XML as Jenkins and GitLab read it, one testcase per
/// payload: failing diagnostics in its `<failure>` (errors; warnings too under
/// `--strict`), warnings in its `<system-out>`, each as a finding line.
///
/// The suite's counts belong in its opening tag but are known only at the end,
/// so testcases stream to a spool in the run's scratch folder and are copied
/// out after the header (`JUnitSink`): memory stays flat.
struct JUnitRenderer: CheckRenderer {
    func render(_ report: Report) -> String? {
        let failing = report.diagnostics.filter { $0.severity == .error || (report.strict && $0.severity == .warning) }
        let warnings = report.diagnostics.filter { $0.severity == .warning }
        var xml = "    <testcase classname=\"notti-media.check\" name=\"\(markupEscape(report.source))\""
        guard !failing.isEmpty || !warnings.isEmpty else { return xml + "/>" }
        xml += ">\n"
        if let first = failing.first {
            xml += "      <failure type=\"\(markupEscape(first.codeText))\" message=\"\(markupEscape(first.message))\">"
            xml += markupEscape(failing.map { FindingLine.format($0, in: report) }.joined(separator: "\n"))
            xml += "</failure>\n"
        }
        if !warnings.isEmpty {
            xml += "      <system-out>" + markupEscape(warnings.map { FindingLine.format($0, in: report) }.joined(separator: "\n"))
            xml += "</system-out>\n"
        }
        return xml + "    </testcase>"
    }
}

/// Spools JUnit testcases, then writes the suite around them, with its `time`
/// (the run's seconds) and `timestamp` (when it started, UTC).
/// `@unchecked`: its spool is used by the writer thread, then by `finish` once
/// that thread is joined; never by two threads at once.
final class JUnitSink: CheckSink, @unchecked Sendable {
    private let spool: Spool
    private let suiteName: String
    private let started = MonotonicInstant.now
    private let timestamp: String

    /// - Parameter shard: `(index, count)` when the run checks one shard; it goes in the suite's name.
    /// `--top N`: the summary's media rows.
    private let top: Int

    init(spool: Spool, shard: (index: Int, count: Int)?, top: Int = 20) {
        self.spool = spool
        self.top = top
        suiteName = "notti-media check" + (shard.map { " (shard \($0.index)/\($0.count))" } ?? "")
        timestamp = UTCTimestamp.now()
    }

    func write(_ rendered: String) {
        spool.writeLine(rendered)
    }

    func finish(_ summary: CheckSummary) throws(LocalError) {
        let name = suiteName + (summary.interrupted ? " (interrupted)" : "")
        // The check's own time (a merge's summary carries its shards'), else this run's.
        let measured = summary.seconds ?? (MonotonicInstant.now - started) / .seconds(1)
        let seconds = NumberText.decimal((measured * 1000).rounded() / 1000)
        let timestamp = summary.startedAt ?? self.timestamp
        Console.out("<?xml version=\"1.0\" encoding=\"UTF-8\"?>")
        Console.out("<testsuites name=\"notti-media\" tests=\"\(summary.payloads)\" failures=\"\(summary.failed)\" errors=\"0\" time=\"\(seconds)\">")
        Console.out("  <testsuite name=\"\(markupEscape(name))\" tests=\"\(summary.payloads)\" failures=\"\(summary.failed)\" errors=\"0\" skipped=\"0\""
            + " time=\"\(seconds)\" timestamp=\"\(timestamp)\">")
        try spool.readBack(Console.outBytes)
        Console.out("    <system-out>\(markupEscape(TextFormat.summaryText(summary, top: top)))</system-out>")
        Console.out("  </testsuite>")
        Console.out("</testsuites>")
    }
}

import Glibc
import NottiMedia

/// `--format junit`: JUnit XML as Jenkins and GitLab read it, one testcase per
/// payload, a failure element carrying the reason and message.
///
/// The suite's counts belong in its opening tag but are known only at the end,
/// so testcases stream to a spool in the run's scratch folder and are copied
/// out after the header (`JUnitSink`): memory stays flat.
struct JUnitRenderer: CheckRenderer {
    func render(_ report: Report) -> String? {
        var xml = "    <testcase classname=\"notti-media.check\" name=\"\(markupEscape(report.source))\""
        guard !report.passed else { return xml + "/>" }
        let failing = report.diagnostics.filter { $0.severity == .error || (report.strict && $0.severity == .warning) }
        let first = failing.first ?? report.diagnostics.first
        xml += ">\n      <failure type=\"\(markupEscape(first?.code ?? "failed"))\" message=\"\(markupEscape(first?.message ?? ""))\">"
        xml += markupEscape(report.diagnostics.map { "\($0.severity.rawValue) \($0.code): \($0.message)" }.joined(separator: "\n"))
        xml += "</failure>\n    </testcase>"
        return xml
    }

}

/// Spools JUnit testcases, then writes the suite around them.
/// `@unchecked`: its spool is used by the writer thread, then by `finish` once
/// that thread is joined; never by two threads at once.
final class JUnitSink: CheckSink, @unchecked Sendable {
    private let spool: Spool

    init(spool: Spool) {
        self.spool = spool
    }

    func write(_ rendered: String) {
        spool.writeLine(rendered)
    }

    func finish(_ summary: CheckSummary) throws(LocalError) {
        let name = summary.interrupted ? "notti-media check (interrupted)" : "notti-media check"
        Console.out("<?xml version=\"1.0\" encoding=\"UTF-8\"?>")
        Console.out("<testsuites name=\"notti-media\" tests=\"\(summary.payloads)\" failures=\"\(summary.failed)\" errors=\"0\">")
        Console.out("  <testsuite name=\"\(name)\" tests=\"\(summary.payloads)\" failures=\"\(summary.failed)\" errors=\"0\" skipped=\"0\">")
        try spool.readBack(Console.outBytes)
        Console.out("    <system-out>\(markupEscape(TextFormat.summaryText(summary)))</system-out>")
        Console.out("  </testsuite>")
        Console.out("</testsuites>")
    }
}

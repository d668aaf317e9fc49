import Glibc
import NottiMedia

/// How `check` writes its records and summary, in two halves: a renderer that
/// runs on worker threads (so serializing a million reports is spread over
/// cores) and a sink that runs on the writer thread, in order, then finishes.
struct CheckFormat {
    var renderer: any CheckRenderer
    var sink: any CheckSink
}

/// Turns a finished report into its output; a value with no state, on any worker thread.
protocol CheckRenderer: Sendable {
    /// The record's output, or nil to write nothing for it.
    func render(_ report: Report) -> String?
}

/// Writes rendered records in input order, then what comes after them.
protocol CheckSink: Sendable {
    func write(_ rendered: String)
    /// Writes what comes after the records; throws when a spool it reads back failed.
    func finish(_ summary: CheckSummary) throws(LocalError)
}

extension Report {
    /// Every finding as a `SOURCE: SEVERITY: CODE: MESSAGE` line (only errors
    /// with `errorsOnly`); nil when there is none to print.
    func findingLines(errorsOnly: Bool) -> String? {
        // A finding about the host is said once per host, before the summary (`TextFormat.hostLines`).
        let shown = diagnostics.filter { (!errorsOnly || $0.severity == .error) && !$0.code.isAboutHost }
        guard !shown.isEmpty else { return nil }
        return shown.map { FindingLine.format($0, in: self) }.joined(separator: "\n")
    }
}

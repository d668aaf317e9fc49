import Glibc
import NottiMedia

/// How `check` writes its records and summary: one value per `--format`.
///
/// `render` runs on worker threads (so serializing a million reports is
/// spread over cores); `write` and `finish` run on the writer thread, in order.
protocol CheckFormat: Sendable {
    /// The record's output, or nil to write nothing for it.
    func render(_ report: Report) -> String?
    func write(_ rendered: String)
    /// Writes what comes after the records; throws when a spool it reads back failed.
    func finish(_ summary: CheckSummary) throws(LocalError)
}

extension Report {
    /// `source: code: message (+N more)` for a failing payload; nil when it passed.
    var failureLine: String? {
        guard !passed else { return nil }
        let worst = diagnostics.first { $0.severity == .error } ?? diagnostics.first
        guard let worst else { return "\(source): failed" }
        let more = diagnostics.count > 1 ? " (+\(diagnostics.count - 1) more)" : ""
        return "\(source): \(worst.code): \(worst.message)\(more)"
    }
}

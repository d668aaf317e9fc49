import NottiMedia

/// One finding as every CI format sees it: the payload file it is in, where in
/// that file (a JSON Lines line, a JSON syntax error's line and column), its
/// code, severity and message. The one finding model the github, sarif and
/// codequality formats render (text, JSON and JUnit print the report itself).
struct Finding {
    /// The payload file (`-` for standard input), without a JSON Lines `:line`.
    var file: String
    /// The line in `file`, where known: a JSON Lines line, or a syntax error's.
    var line: Int?
    var column: Int?
    var code: String
    var severity: Diagnostic.Severity
    /// As the text format prints it: under `--sdk auto` the profile, then the message.
    var message: String
    /// The media entry (`att.hero`), for payloads with several.
    var entry: String?
    /// The report's own source (`file`, `file:line`), for fingerprints.
    var source: String

    /// Every finding of `report`, in its order.
    static func all(in report: Report) -> [Finding] {
        // A send request's records say which delivery they are (`path:7#android`): the file is `path`.
        let source = Platform.splitDelivery(report.source).path
        var file = String(source)
        var line: Int?
        if report.sourceIsLine, let colon = source.lastIndex(of: ":"), let number = Int(source[source.index(after: colon)...]) {
            file = String(source[..<colon])
            line = number
        }
        let under = report.sdkDetected ? "under \(report.sdk.rawValue): " : ""
        // A finding about the host is said once per host, at the end (`about`), not per record.
        return report.diagnostics.filter { !$0.code.isAboutHost }.map { diagnostic in
            Finding(
                file: file, line: diagnostic.column != nil ? (diagnostic.line ?? line) : line, column: diagnostic.column,
                code: diagnostic.codeText, severity: diagnostic.severity, message: under + diagnostic.message, entry: diagnostic.entry,
                source: report.source)
        }
    }

    /// The run's findings about hosts (SPEC 10), once per host: put on the first payload file naming
    /// the host (a CI annotation needs a file), the message naming the host and the records it touches.
    static func about(_ summary: CheckSummary) -> [Finding] {
        summary.hostFindings.map { found in
            Finding(
                file: found.firstFile ?? "-", line: nil, column: nil, code: found.code.rawValue, severity: found.severity,
                message: found.message, entry: nil, source: "host " + found.host)
        }
    }
}

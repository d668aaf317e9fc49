import NottiMedia

/// The one line format for every finding printed for people, in every command:
/// `SOURCE: SEVERITY: CODE: MESSAGE`, with SOURCE `path`, `path:line` (a line of
/// JSON Lines) or `path:line:column` (where a JSON syntax error is), the shape
/// gcc, shellcheck -f gcc and eslint's unix formatter print, so editors and CI
/// problem matchers read it. Everything from input is escaped.
enum FindingLine {
    static func format(_ diagnostic: Diagnostic, in report: Report) -> String {
        format(diagnostic, source: report.source, sourceIsLine: report.sourceIsLine, profile: report.sdkDetected ? report.sdk : nil)
    }

    /// - Parameter profile: under `--sdk auto`, the profile the payload was checked under, named before the message.
    static func format(_ diagnostic: Diagnostic, source: String, sourceIsLine: Bool = false, profile: SDK? = nil) -> String {
        var location = source
        if let column = diagnostic.column {
            location += sourceIsLine ? ":\(column)" : ":\(diagnostic.line ?? 1):\(column)"
        }
        let under = profile.map { "under \($0.rawValue): " } ?? ""
        return "\(textEscape(location)): \(diagnostic.severity.rawValue): \(diagnostic.codeText): \(under)\(textEscape(diagnostic.message))"
    }
}

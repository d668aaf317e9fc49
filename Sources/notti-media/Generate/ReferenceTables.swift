import NottiMedia

/// docs/reference.md's tables, made from the code they describe (`notti-media
/// --generate options|codes`; ReadmeTests checks the file holds them as made).
enum ReferenceTables {
    /// Every option of every command, from `OptionTable`: what `--help` lists, in one table.
    static var options: String {
        var lines = ["| option | commands | what it does |", "|---|---|---|"]
        for spec in OptionTable.all {
            let commands = Command.allCases.filter { spec.commands.contains($0) }.map { "`\($0.rawValue)`" }.joined(separator: ", ")
            lines.append("| `\(cell(spec.synopsis))` | \(commands) | \(cell(spec.help.joined(separator: " "))) |")
        }
        lines.append("| `-h`, `--help` | every command | this help |")
        return lines.joined(separator: "\n")
    }

    /// Every code, from `DiagnosticCode`: the reasons first, then the lints.
    static var codes: String {
        var lines = ["| code | kind | severity | when | what to do |", "|---|---|---|---|---|"]
        let ordered = DiagnosticCode.reasons + DiagnosticCode.known.filter { !$0.isReason }
        for code in ordered {
            let kind = code.isReason ? (code == .unsupportedType ? "reason, lint" : "reason") : (code == .mutableContentMissing || code == .noAlert ? "lint, reason" : "lint")
            lines.append("| `\(code.rawValue)` | \(kind) | \(code.severityText) | \(cell(code.meaning)) | \(cell(code.fix)) |")
        }
        return lines.joined(separator: "\n")
    }

    /// Text for a Markdown table cell: a `|` would end the cell.
    private static func cell(_ text: String) -> String {
        text.split(separator: "|", omittingEmptySubsequences: false).joined(separator: "\\|")
    }
}

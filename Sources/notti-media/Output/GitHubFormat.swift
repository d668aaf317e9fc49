import NottiMedia

/// `--format github`: one GitHub Actions workflow command per finding, so the
/// findings show as annotations on the payload files, then the text format's
/// summary as plain lines (SPEC 16):
/// `::error file=F,line=L,col=C,title=CODE::MESSAGE` (or `::warning`).
struct GitHubFormat: CheckRenderer, CheckSink {
    /// `--top N`: the summary's media rows.
    var top = 20

    func render(_ report: Report) -> String? {
        let commands = Finding.all(in: report).map(Self.command)
        return commands.isEmpty ? nil : commands.joined(separator: "\n")
    }

    static func command(_ finding: Finding) -> String {
        var properties = ["file=\(GitHubEscaping.property(finding.file))"]
        if let line = finding.line { properties.append("line=\(line)") }
        if let column = finding.column { properties.append("col=\(column)") }
        properties.append("title=\(GitHubEscaping.property(finding.code))")
        return "::\(finding.severity.rawValue) \(properties.joined(separator: ","))::\(GitHubEscaping.data(finding.message))"
    }

    func write(_ rendered: String) {
        Console.out(rendered)
    }

    func finish(_ summary: CheckSummary) {
        for finding in Finding.about(summary) { Console.out(Self.command(finding)) }
        // Plain lines, so a workflow command cannot be forged from them: each starts with text.
        Console.out(TextFormat.summaryText(summary, top: top))
    }
}

/// GitHub's escaping for workflow commands (its toolkit's `escapeData` and
/// `escapeProperty`): `%` as `%25`, CR as `%0D`, LF as `%0A`, and in a property
/// also `:` as `%3A` and `,` as `%2C`. Other control characters, which the
/// toolkit passes through, are written `\uXXXX` so no input drives the terminal
/// of a log viewer.
enum GitHubEscaping {
    static func data(_ text: String) -> String { escape(text, property: false) }

    static func property(_ text: String) -> String { escape(text, property: true) }

    private static func escape(_ text: String, property: Bool) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "%": escaped += "%25"
            case "\r": escaped += "%0D"
            case "\n": escaped += "%0A"
            case ":" where property: escaped += "%3A"
            case "," where property: escaped += "%2C"
            case "\u{00}"..."\u{1F}", "\u{7F}"..."\u{9F}":
                let hex = String(scalar.value, radix: 16)
                escaped += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }
}

import NottiMedia

/// `notti-media(1)`, in the man macros, from `--help`'s prose and the option table.
enum ManPage {
    static var text: String {
        var lines = [
            ".TH NOTTI-MEDIA 1 \"\" \"notti-media \(NottiMediaVersion.string)\" \"User Commands\"",
            ".SH NAME",
            "notti-media \\- what a push notification's rich media does on a phone, checked on Linux",
            ".SH SYNOPSIS",
        ]
        for command in Command.allCases {
            lines += [".B notti-media \(command.rawValue)", escaped(Generated.operands(command)) + " [\\fIoptions\\fR]", ".br"]
        }
        lines += [".B notti-media", "\\-\\-help | \\fICOMMAND\\fR \\-\\-help | \\-\\-version", ".SH DESCRIPTION"]
        lines += paragraphs(HelpText.prose(of: HelpText.overview))
        lines.append(".SH COMMANDS")
        for command in Command.allCases {
            lines.append(".SS \(command.rawValue)")
            lines += paragraphs(HelpText.prose(of: HelpText.unwrapped(for: command)))
            for spec in OptionTable.options(for: command) {
                lines.append(".TP")
                lines.append(".B \\-\\-" + escaped(spec.name) + (spec.value.map { " \\fI\(escaped($0))\\fR" } ?? ""))
                lines.append(code(escaped(spec.help.joined(separator: " "))))
            }
        }
        lines += [
            ".SH EXIT STATUS",
            "0 delivered, or every payload passed; 1 a payload or file failed (check, sniff); 2 bad usage, an unreadable or",
            "invalid payload, or a local failure; 129, 130, 141, 143 stopped by SIGHUP, SIGINT, SIGPIPE (or a closed output",
            "pipe), SIGTERM.",
            ".SH FILES",
            ".TP",
            ".I $XDG_CACHE_HOME/notti-media/attachments",
            "(else \\fI~/.cache/notti-media/attachments\\fR) where attachments are stored by SHA\\-256 without \\-\\-out.",
            ".SH SEE ALSO",
            ".BR curl (1),",
            ".BR file (1)",
        ]
        return lines.joined(separator: "\n")
    }

    /// Text as roff reads it: backslashes and hyphens escaped, no line starting a request.
    static func escaped(_ text: String) -> String {
        var body = ""
        for character in text {
            switch character {
            case "\\": body += "\\e"
            case "-": body += "\\-"
            default: body.append(character)
            }
        }
        return body.hasPrefix(".") || body.hasPrefix("'") ? "\\&" + body : body
    }

    private static func paragraphs(_ text: [String]) -> [String] {
        text.flatMap { paragraph in [".PP", code(escaped(paragraph))] }
    }

    /// `--help`'s `code` spans in bold: roff prints backticks as they are.
    static func code(_ text: String) -> String {
        let parts = text.split(separator: "`", omittingEmptySubsequences: false)
        guard parts.count >= 3 && parts.count % 2 == 1 else { return text }
        return parts.enumerated().map { index, part in index % 2 == 1 ? "\\fB\(part)\\fR" : String(part) }.joined()
    }
}

/// Text made from `OptionTable` for places outside `--help`, so none of them is
/// a second copy that can drift: `notti-media --generate KIND` prints it (a
/// hidden flag, for docs/reference.md, the package and the tests).
enum Generated: String, CaseIterable {
    /// docs/reference.md's command synopsis.
    case synopsis
    /// `notti-media(1)`, for the package.
    case man
    /// Shell completions, for the package.
    case bash, zsh, fish
    /// docs/reference.md's tables of options and of codes.
    case options, codes

    static func text(_ kind: Generated) -> String {
        switch kind {
        case .synopsis: commandSynopsis
        case .man: ManPage.text
        case .bash: Completions.bash
        case .zsh: Completions.zsh
        case .fish: Completions.fish
        case .options: ReferenceTables.options
        case .codes: ReferenceTables.codes
        }
    }

    /// What each command takes before its options.
    static func operands(_ command: Command) -> String {
        switch command {
        case .process: "PAYLOAD|-"
        case .check: "PATH..."
        case .sniff: "FILE...|-"
        case .merge: "FILE..."
        case .fix: "PATH... --into DIR"
        case .serve: ""
        case .app: "PATH..."
        }
    }

    /// Every command with every option it takes, `[--name VALUE]`, filled at 100 columns.
    static var commandSynopsis: String {
        var lines: [String] = []
        for command in Command.allCases {
            let head = "notti-media \(command.rawValue) \(operands(command))"
            let indent = String(repeating: " ", count: head.count + 1)
            var line = head
            // An option the operands already name (fix's --into DIR) is required, not bracketed.
            for spec in OptionTable.options(for: command) where !operands(command).contains(spec.synopsis) {
                let word = "[\(spec.synopsis)]"
                if line.count + 1 + word.count > 100 {
                    lines.append(line)
                    line = indent + word
                } else {
                    line += " " + word
                }
            }
            lines.append(line)
        }
        lines.append("notti-media --help | COMMAND --help | --version")
        return lines.joined(separator: "\n")
    }
}

/// Tab completion for bash, zsh and fish, from the option table: each
/// command's options, the fixed values some take, files or folders for the rest.
enum Completions {
    static var bash: String {
        var lines = [
            "# bash completion for notti-media (generated: notti-media --generate bash)",
            "_notti_media() {",
            "    local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"${COMP_WORDS[COMP_CWORD-1]}\" options=\"\"",
            "    if [ \"$COMP_CWORD\" -eq 1 ]; then",
            "        COMPREPLY=($(compgen -W \"\(Command.allCases.map(\.rawValue).joined(separator: " ")) --help --version\" -- \"$cur\"))",
            "        return",
            "    fi",
            "    case \"${COMP_WORDS[1]}\" in",
        ]
        for command in Command.allCases {
            let specs = OptionTable.options(for: command)
            lines.append("        \(command.rawValue))")
            lines.append("            options=\"\((specs.map { "--\($0.name)" } + ["--help"]).joined(separator: " "))\"")
            lines.append("            case \"$prev\" in")
            for spec in specs where spec.valueKind != .none {
                let reply = switch spec.valueKind {
                case .choice: "COMPREPLY=($(compgen -W \"\(spec.choices.joined(separator: " "))\" -- \"$cur\"))"
                case .file: "COMPREPLY=($(compgen -f -- \"$cur\"))"
                case .folder: "COMPREPLY=($(compgen -d -- \"$cur\"))"
                case .text, .none: "COMPREPLY=()"
                }
                lines.append("                --\(spec.name)) \(reply); return ;;")
            }
            lines.append("            esac ;;")
        }
        lines += [
            "    esac",
            "    if [[ \"$cur\" == -* ]]; then",
            "        COMPREPLY=($(compgen -W \"$options\" -- \"$cur\"))",
            "    else",
            "        COMPREPLY=($(compgen -f -- \"$cur\"))",
            "    fi",
            "}",
            "complete -o filenames -F _notti_media notti-media",
        ]
        return lines.joined(separator: "\n")
    }

    static var zsh: String {
        var lines = [
            "#compdef notti-media",
            "# zsh completion for notti-media (generated: notti-media --generate zsh)",
            "_notti_media() {",
            "    local -a commands",
            "    commands=(",
        ]
        // Inside single quotes: an apostrophe in a summary ("check's shards") ends the quote unless written '\''.
        for command in Command.allCases {
            let quoted = summary(command).split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''")
            lines.append("        '\(command.rawValue):\(quoted)'")
        }
        lines += [
            "    )",
            "    if (( CURRENT == 2 )); then",
            "        _describe 'command' commands",
            "        return",
            "    fi",
            "    case ${words[2]} in",
        ]
        for command in Command.allCases {
            lines.append("        \(command.rawValue))")
            var arguments = OptionTable.options(for: command).map { spec -> String in
                let help = quotedForZsh(spec.help.joined(separator: " "))
                let action: String = switch spec.valueKind {
                case .none: ""
                case .choice: ":\(spec.value ?? "value"):(\(spec.choices.joined(separator: " ")))"
                case .file: ":\(spec.value ?? "file"):_files"
                case .folder: ":\(spec.value ?? "folder"):_files -/"
                case .text: ":\(spec.value ?? "value"): "
                }
                return "'--\(spec.name)[\(help)]\(action)'"
            }
            arguments.append("'*:file:_files'")
            lines.append("            _arguments -s \\")
            lines.append(arguments.map { "                \($0)" }.joined(separator: " \\\n"))
            lines.append("            ;;")
        }
        lines += ["    esac", "}", "_notti_media \"$@\""]
        return lines.joined(separator: "\n")
    }

    static var fish: String {
        var lines = [
            "# fish completion for notti-media (generated: notti-media --generate fish)",
            "complete -c notti-media -f",
        ]
        let names = Command.allCases.map(\.rawValue).joined(separator: " ")
        for command in Command.allCases {
            lines.append("complete -c notti-media -n 'not __fish_seen_subcommand_from \(names)' -a \(command.rawValue) -d '\(quotedForFish(summary(command)))'")
        }
        for command in Command.allCases {
            let condition = "-n '__fish_seen_subcommand_from \(command.rawValue)'"
            lines.append("complete -c notti-media \(condition) -F")
            for spec in OptionTable.options(for: command) {
                let value: String = switch spec.valueKind {
                case .none: ""
                case .choice: " -x -a '\(spec.choices.joined(separator: " "))'"
                case .file: " -r -F"
                case .folder: " -x -a '(__fish_complete_directories)'"
                case .text: " -x"
                }
                lines.append("complete -c notti-media \(condition) -l \(spec.name)\(value) -d '\(quotedForFish(spec.help.first ?? ""))'")
            }
        }
        return lines.joined(separator: "\n")
    }

    /// One line about each command, for the completers that show descriptions.
    private static func summary(_ command: Command) -> String {
        switch command {
        case .process: "one payload: the content the phone gets"
        case .check: "many payloads: a verdict each and a summary"
        case .sniff: "local files' types, no network"
        case .merge: "join the JSON outputs of check's shards"
        case .fix: "write media that passes on every phone"
        case .serve: "the verdict over HTTP, for each recipient"
        case .app: "what the app's own build does with its pushes"
        }
    }

    /// Text inside a zsh `'[...]'` description: no quote, and brackets and colons escaped.
    private static func quotedForZsh(_ text: String) -> String {
        var quoted = ""
        for character in text {
            switch character {
            case "'": quoted += "'\\''"
            case "[", "]", ":": quoted += "\\" + String(character)
            default: quoted.append(character)
            }
        }
        return quoted
    }

    private static func quotedForFish(_ text: String) -> String {
        var quoted = ""
        for character in text {
            if character == "'" || character == "\\" { quoted += "\\" }
            quoted.append(character)
        }
        return quoted
    }
}

import NottiMedia

/// A command line that cannot be run: said in one line, exit status 2.
struct UsageError: Error {
    var message: String
    init(_ message: String) { self.message = message }
}

/// Hand-written parsing (no argument package is available here) driven by
/// `OptionTable`: GNU-style `--name value` and `--name=value`, `--` ends
/// options, `-` is standard input.
enum Arguments {
    static func parse(_ arguments: [String]) throws(UsageError) -> Invocation {
        let commands = Command.allCases.map(\.rawValue)
        // "process, check, …, serve or app": every command, from the one list.
        let listed = commands.dropLast().joined(separator: ", ") + " or " + commands.last!
        guard let first = arguments.first else {
            throw UsageError("no command given: expected \(listed) (see notti-media --help)")
        }
        switch first {
        case "--help", "-h", "help": return .help(arguments.dropFirst().first.flatMap(Command.init(rawValue:)))
        case "--version", "-V": return .version
        case "--generate":
            guard arguments.count == 2, let kind = Generated(rawValue: arguments[1]) else {
                throw UsageError("--generate expects one of \(Generated.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            return .generate(kind)
        default: break
        }
        guard let command = Command(rawValue: first) else {
            if first.hasPrefix("-") {
                let typed = first.drop { $0 == "-" }
                throw UsageError("unknown option '\(first)'\(suggestion(String(typed), among: ["help", "version"], prefix: "--")) "
                    + "(a command comes first: \(listed); see notti-media --help)")
            }
            throw UsageError("unknown command '\(first)'\(suggestion(first, among: commands)): expected \(listed) (see notti-media --help)")
        }
        var options = Options(command: command)
        var index = 1
        var optionsEnded = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if optionsEnded || argument == "-" || !argument.hasPrefix("-") {
                options.operands.append(argument)
                continue
            }
            if argument == "--" { optionsEnded = true; continue }
            if argument == "--help" || argument == "-h" { return .help(command) }
            if argument == "--version" || argument == "-V" { return .version }
            var name = argument.hasPrefix("--") ? String(argument.dropFirst(2)) : String(argument.dropFirst())
            var inlineValue: String?
            if let equals = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            guard argument.hasPrefix("--"), let spec = OptionTable.spec(name, for: command) else {
                let known = OptionTable.options(for: command).map(\.name) + ["help", "version"]
                throw UsageError("unknown option '\(argument.split(separator: "=").first ?? "")' for \(command.rawValue)"
                    + "\(suggestion(name, among: known, prefix: "--")) (see notti-media \(command.rawValue) --help)")
            }
            guard spec.value != nil else {
                if inlineValue != nil { throw UsageError("--\(name) takes no value") }
                try spec.apply(&options, "")
                continue
            }
            let value: String
            if let inlineValue {
                value = inlineValue
            } else if index < arguments.count {
                value = arguments[index]
                // `--html --cacert ca.pem` forgot the page's name: a value never starts with `--`
                // (write `--html=--page.html` or `--html ./--page.html` for such a name).
                guard !value.hasPrefix("--") else {
                    throw UsageError("--\(name) expects \(spec.expects), not the option '\(value)' (write --\(name)=VALUE for a value that starts with --)")
                }
                index += 1
            } else {
                throw UsageError("--\(name) expects \(spec.expects)")
            }
            try spec.apply(&options, value)
        }
        try validate(options)
        return .run(options)
    }

    /// `: did you mean '--timeout'?` for a near miss (edit distance 2 or less, or a prefix); "" otherwise.
    static func suggestion(_ typed: String, among names: [String], prefix: String = "") -> String {
        let scored = names.map { ($0, editDistance(typed, $0)) }.filter { $0.1 <= 2 || ($0.0.hasPrefix(typed) && typed.count >= 3) }
        guard let best = scored.min(by: { $0.1 < $1.1 }) else { return "" }
        return ": did you mean '\(prefix)\(best.0)'?"
    }

    /// Levenshtein distance.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty else { return b.count }
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1]
            for (j, y) in b.enumerated() {
                current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }

    /// What no single option can check: operands, and options that do not go together.
    private static func validate(_ options: Options) throws(UsageError) {
        switch options.command {
        case .process:
            if options.report && options.format == .text {
                throw UsageError("--report prints the report as JSON; it does not go with --format text")
            }
            guard options.operands.count == 1 else {
                throw UsageError(options.operands.isEmpty
                    ? "process expects one PAYLOAD file, or - for standard input"
                    : "process takes one PAYLOAD, not \(options.operands.count)")
            }
        case .check:
            guard !options.operands.isEmpty else {
                throw UsageError("check expects at least one PATH: payload files, folders, .jsonl files or -")
            }
            if options.summaryOnly, let format = options.format, format != .text && format != .json {
                throw UsageError("--summary-only goes with --format text or json")
            }
            if options.shardCount != nil && !options.shardAuto {
                throw UsageError("--shard-count goes with --shard auto (a Kubernetes Indexed Job's completions); with --shard I/N, N is the count")
            }
            try validateErrorsOnly(options, drawsPage: options.htmlPath != nil)
        case .sniff:
            guard !options.operands.isEmpty else { throw UsageError("sniff expects at least one FILE") }
        case .app:
            guard !options.operands.isEmpty else { throw UsageError("app expects at least one PATH: an .ipa, or an .xcarchive or .app folder") }
        case .fix:
            guard !options.operands.isEmpty else {
                throw UsageError("fix expects at least one PATH: payload files, folders or .jsonl files")
            }
            guard options.fixInto != nil else { throw UsageError("fix needs --into DIR, the folder the renditions go to") }
            if options.rewriteDirectory != nil && options.baseURL == nil {
                throw UsageError("--rewrite needs --base-url URL: the rewritten payloads point at the renditions served there")
            }
            if options.rewriteDirectory != nil && options.operands.contains("-") {
                throw UsageError("--rewrite writes each payload file again under DIR; standard input (-) has no file to write")
            }
        case .serve:
            guard options.operands.isEmpty else { throw UsageError("serve takes no operands, not '\(options.operands[0])'") }
            if !options.listen.isLoopback && options.tokenPath == nil && options.basicAuthPath == nil {
                throw UsageError("--listen \(options.listen) is not a loopback address: serving it needs --token FILE or --basic-auth FILE")
            }
        case .merge:
            guard !options.operands.isEmpty else {
                throw UsageError("merge expects the FILEs that check --format json --shard I/N wrote, one per shard")
            }
            if options.summaryOnly, let format = options.format, format != .text && format != .json {
                throw UsageError("--summary-only goes with --format text or json")
            }
            try validateErrorsOnly(options, drawsPage: false)
        }
    }

    /// `--errors-only` drops warnings from the text listing (and from the --html page's
    /// cards); JSON and JUnit carry every finding, so there it would do nothing.
    private static func validateErrorsOnly(_ options: Options, drawsPage: Bool) throws(UsageError) {
        guard options.errorsOnly, let format = options.format, format != .text, !drawsPage else { return }
        throw UsageError("--errors-only goes with --format text (or --html); --format \(format.rawValue) carries every finding")
    }
}

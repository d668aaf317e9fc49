import Foundation
import NottiMedia

/// A command line that cannot be run: said in one line, exit status 2.
struct UsageError: Error {
    var message: String
    init(_ message: String) { self.message = message }
}

enum Command: String, CaseIterable {
    case process, check, sniff
}

enum OutputFormat: String {
    case text, json, junit
}

/// What the command line asked for.
enum Invocation {
    case help(Command?)
    case version
    case run(Options)
}

/// The parsed options of one command; nil means the default.
struct Options {
    var command: Command
    var operands: [String] = []
    var outDirectory: String?
    var timeoutSeconds: Double?
    var maxBytes: Int?
    var caFile: String?
    var connectTo: [String] = []
    var report = false
    /// `--format`; nil means the command's default (json for process, text otherwise).
    var format: OutputFormat?
    var strict = false
    var quiet = false
    var denyPrivateNetworks = false
    var jobs: Int?
    var summaryOnly = false
    /// `--html FILE`: the visual preview page.
    var htmlPath: String?
    /// `--sdk`: whose extension to reproduce; Notti by default.
    var sdk: SDKSelection = .fixed(.notti)
    /// `--allow-http`: the app has an App Transport Security exception for plain http.
    var allowHTTP = false
    /// `--allow-empty`: a `check` that finds no payload passes instead of failing as a usage error.
    var allowEmpty = false
    /// `--shard I/N`: check the payloads at positions that are I-1 modulo N.
    var shard: (index: Int, count: Int)?

    /// Downloads are network-bound, so more than the two cores' worth.
    static let defaultJobs = 8
}

/// Hand-written parsing (no argument package is available here): GNU-style
/// `--name value` and `--name=value`, `--` ends options, `-` is standard input.
enum Arguments {
    /// Options each command takes, and whether they take a value.
    private static let accepted: [Command: [String: Bool]] = [
        .process: [
            "out": true, "timeout": true, "max-bytes": true, "cacert": true, "connect-to": true,
            "report": false, "quiet": false, "deny-private-networks": false, "format": true, "strict": false,
            "sdk": true, "allow-http": false,
        ],
        .check: [
            "out": true, "timeout": true, "max-bytes": true, "cacert": true, "connect-to": true,
            "jobs": true, "format": true, "strict": false, "quiet": false, "summary-only": false, "shard": true,
            "deny-private-networks": false, "html": true, "allow-empty": false, "sdk": true, "allow-http": false,
        ],
        .sniff: ["max-bytes": true, "format": true, "strict": false, "quiet": false],
    ]

    static func parse(_ arguments: [String]) throws(UsageError) -> Invocation {
        guard let first = arguments.first else { throw UsageError("no command given: expected process, check or sniff (see notti-media --help)") }
        switch first {
        case "--help", "-h", "help": return .help(arguments.dropFirst().first.flatMap(Command.init(rawValue:)))
        case "--version", "-V": return .version
        default: break
        }
        guard let command = Command(rawValue: first) else {
            if first.hasPrefix("-") { throw UsageError("unknown option '\(first)': a command comes first (process, check or sniff; see notti-media --help)") }
            throw UsageError("unknown command '\(first)': expected process, check or sniff (see notti-media --help)")
        }
        var options = Options(command: command)
        let known = accepted[command] ?? [:]
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
            guard argument.hasPrefix("--") else {
                throw UsageError("unknown option '\(argument)' for \(command.rawValue) (see notti-media \(command.rawValue) --help)")
            }
            var name = String(argument.dropFirst(2))
            var inlineValue: String?
            if let equals = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            guard let takesValue = known[name] else {
                throw UsageError("unknown option '--\(name)' for \(command.rawValue) (see notti-media \(command.rawValue) --help)")
            }
            if !takesValue {
                if inlineValue != nil { throw UsageError("--\(name) takes no value") }
                try apply(flag: name, to: &options)
                continue
            }
            let value: String
            if let inlineValue {
                value = inlineValue
            } else if index < arguments.count {
                value = arguments[index]
                index += 1
            } else {
                throw UsageError("--\(name) expects \(valueName(name))")
            }
            try apply(option: name, value: value, to: &options)
        }
        try validateOperands(options)
        return .run(options)
    }

    private static func valueName(_ option: String) -> String {
        switch option {
        case "out": "DIR, a folder for attachments"
        case "timeout": "SECONDS, a number greater than 0"
        case "max-bytes": "N, a whole number of bytes greater than 0"
        case "cacert": "FILE, a PEM file of CA certificates"
        case "connect-to": "HOST:PORT:CONNECT-HOST:CONNECT-PORT"
        case "format": "text, json or junit"
        case "jobs": "N, concurrent downloads from 1 to 256"
        case "html": "FILE, the preview page to write"
        case "shard": "I/N, with 1 <= I <= N"
        case "sdk": SDK.allCases.map(\.rawValue).joined(separator: ", ") + " or auto"
        default: "a value"
        }
    }

    private static func apply(flag: String, to options: inout Options) throws(UsageError) {
        switch flag {
        case "report": options.report = true
        case "strict": options.strict = true
        case "quiet": options.quiet = true
        case "summary-only": options.summaryOnly = true
        case "deny-private-networks": options.denyPrivateNetworks = true
        case "allow-empty": options.allowEmpty = true
        case "allow-http": options.allowHTTP = true
        default: throw UsageError("unknown option '--\(flag)'")
        }
    }

    private static func apply(option: String, value: String, to options: inout Options) throws(UsageError) {
        switch option {
        case "out":
            guard !value.isEmpty else { throw UsageError("--out expects \(valueName(option))") }
            options.outDirectory = value
        case "timeout":
            guard let seconds = Double(value), seconds.isFinite, seconds > 0, seconds <= 86_400 else {
                throw UsageError("--timeout expects SECONDS, a number greater than 0 and at most 86400, not '\(value)'")
            }
            options.timeoutSeconds = seconds
        case "max-bytes":
            guard let bytes = Int(value), bytes > 0 else {
                throw UsageError("--max-bytes expects \(valueName(option)), not '\(value)'")
            }
            options.maxBytes = bytes
        case "cacert":
            guard FileManager.default.isReadableFile(atPath: value) else {
                throw UsageError("--cacert: cannot read '\(value)'")
            }
            let certificates: Int
            do {
                certificates = try CertificateFile.certificateCount(atPath: value)
            } catch {
                throw UsageError("--cacert: cannot read '\(value)': \(error.message)")
            }
            guard certificates > 0 else {
                throw UsageError("--cacert expects \(valueName(option)), but '\(value)' holds no PEM certificate")
            }
            options.caFile = URL(fileURLWithPath: value).standardizedFileURL.path
        case "connect-to":
            guard value.split(separator: ":", omittingEmptySubsequences: false).count >= 4 else {
                throw UsageError("--connect-to expects \(valueName(option)), not '\(value)'")
            }
            options.connectTo.append(value)
        case "format":
            let allowed: [OutputFormat] = options.command == .check ? [.text, .json, .junit] : [.text, .json]
            guard let format = OutputFormat(rawValue: value), allowed.contains(format) else {
                let names = allowed.map(\.rawValue)
                throw UsageError("--format expects \(names.dropLast().joined(separator: ", ")) or \(names.last!), not '\(value)'")
            }
            options.format = format
        case "sdk":
            if value == "auto" {
                options.sdk = .auto
            } else if let sdk = SDK(rawValue: value) {
                options.sdk = .fixed(sdk)
            } else {
                throw UsageError("--sdk expects \(valueName(option)), not '\(value)'")
            }
        case "html":
            guard !value.isEmpty else { throw UsageError("--html expects \(valueName(option))") }
            options.htmlPath = value
        case "jobs":
            guard let jobs = Int(value), (1...256).contains(jobs) else {
                throw UsageError("--jobs expects \(valueName(option)), not '\(value)'")
            }
            options.jobs = jobs
        case "shard":
            let parts = value.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]), count >= 1, (1...count).contains(index) else {
                throw UsageError("--shard expects \(valueName(option)), not '\(value)'")
            }
            options.shard = (index, count)
        default:
            throw UsageError("unknown option '--\(option)'")
        }
    }

    private static func validateOperands(_ options: Options) throws(UsageError) {
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
        case .sniff:
            guard !options.operands.isEmpty else { throw UsageError("sniff expects at least one FILE") }
        }
    }
}

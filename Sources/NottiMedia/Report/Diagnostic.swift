/// One finding about a payload or its media, as users and scripts read it.
public struct Diagnostic: Sendable, Equatable {
    public enum Severity: String, Sendable {
        /// The payload fails: the push will not show its media as intended.
        case error
        /// The payload passes, but a device may not show what was meant (`--strict` fails it).
        case warning
    }

    public var severity: Severity
    /// What it is: a stable snake_case code, e.g. `too_large` or `type_mismatch`.
    public var code: DiagnosticCode
    /// The code as printed: `code`'s raw value, or, for a code of another version that
    /// `merge` read back (`.unrecognised`), the text that version wrote.
    public var codeText: String { unrecognisedText ?? code.rawValue }
    private var unrecognisedText: String?
    /// One line a campaign manager understands, ending with what to do.
    public var message: String
    /// Where in the payload's text the finding is (a JSON syntax error), counted from 1.
    public var line: Int?
    public var column: Int?
    /// The media entry it is about, for payloads with several (`att.hero`); nil for the payload as a whole.
    public package(set) var entry: String?

    package init(_ severity: Severity, _ code: DiagnosticCode, _ message: String, line: Int? = nil, column: Int? = nil) {
        self.severity = severity
        self.code = code
        self.message = message
        self.line = line
        self.column = column
    }

    /// A finding read back from JSON (`merge`), whose code may be another version's.
    init(_ severity: Severity, code text: String, _ message: String, line: Int? = nil, column: Int? = nil) {
        let known = DiagnosticCode(rawValue: text).flatMap { $0 == .unrecognised ? nil : $0 }
        self.init(severity, known ?? .unrecognised, message, line: line, column: column)
        if known == nil { unrecognisedText = text }
    }

    package static func error(_ reason: DiagnosticCode, _ message: String) -> Diagnostic {
        Diagnostic(.error, reason, message)
    }

    public var json: JSONValue {
        var members = [
            JSONMember("severity", .string(severity.rawValue)),
            JSONMember("code", .string(codeText)),
            JSONMember("message", .string(message)),
        ]
        if let line, let column {
            members += [JSONMember("line", .int(line)), JSONMember("column", .int(column))]
        }
        if let entry { members.append(JSONMember("entry", .string(entry))) }
        return .object(members)
    }
}

extension Diagnostic {
    /// The finding about entry `entry` of a payload of several, its message led by the entry's name
    /// (once: a message that already begins with it, `att.a must be a string`, is not named twice).
    func naming(entry: String) -> Diagnostic {
        var named = self
        named.entry = entry
        if !(message.hasPrefix(entry) && message.dropFirst(entry.count).first == " ") { named.message = "\(entry): \(message)" }
        return named
    }
}

/// One finding about a payload or its media, as users and scripts read it.
public struct Diagnostic: Sendable, Equatable {
    public enum Severity: String, Sendable {
        /// The payload fails: the push will not show its media as intended.
        case error
        /// The payload passes, but a device may not show what was meant (`--strict` fails it).
        case warning
    }

    public var severity: Severity
    /// A stable snake_case code, e.g. `too_large` or `type_mismatch`.
    public var code: String
    /// One line a campaign manager understands, ending with what to do.
    public var message: String
    /// Where in the payload's text the finding is (a JSON syntax error), counted from 1.
    public var line: Int?
    public var column: Int?
    /// The media entry it is about, for payloads with several (`att.hero`); nil for the payload as a whole.
    public package(set) var entry: String?

    package init(_ severity: Severity, _ code: DiagnosticCode, _ message: String, line: Int? = nil, column: Int? = nil) {
        self.init(severity, code: code.rawValue, message, line: line, column: column)
    }

    /// A finding read back from JSON (`merge`), whose code may be a newer version's.
    init(_ severity: Severity, code: String, _ message: String, line: Int? = nil, column: Int? = nil) {
        self.severity = severity
        self.code = code
        self.message = message
        self.line = line
        self.column = column
    }

    package static func error(_ reason: DiagnosticCode, _ message: String) -> Diagnostic {
        Diagnostic(.error, reason, message)
    }

    public var json: JSONValue {
        var members = [
            JSONMember("severity", .string(severity.rawValue)),
            JSONMember("code", .string(code)),
            JSONMember("message", .string(message)),
        ]
        if let line, let column {
            members += [JSONMember("line", .int(line)), JSONMember("column", .int(column))]
        }
        if let entry { members.append(JSONMember("entry", .string(entry))) }
        return .object(members)
    }
}

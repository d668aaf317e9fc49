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
    /// One line a campaign manager understands.
    public var message: String

    public init(_ severity: Severity, _ code: String, _ message: String) {
        self.severity = severity
        self.code = code
        self.message = message
    }

    public static func error(_ reason: Reason, _ message: String) -> Diagnostic {
        Diagnostic(.error, reason.rawValue, message)
    }

    public var json: JSONValue {
        .object([
            JSONMember("severity", .string(severity.rawValue)),
            JSONMember("code", .string(code)),
            JSONMember("message", .string(message)),
        ])
    }
}

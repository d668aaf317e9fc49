/// A JSON value that keeps what a payload said, exactly.
///
/// Foundation's JSON types lose information a push payload relies on:
/// integers beyond 2^53 become doubles and object key order is not kept.
/// Numbers here keep their literal text and objects keep their member order,
/// so `userInfo` comes out with the payload's values and types intact and all
/// output is byte-for-byte deterministic.
public enum JSONValue: Sendable, Equatable {
    case object([JSONMember])
    case array([JSONValue])
    case string(String)
    /// The number's literal text as written, e.g. `18446744073709551615` or `1.50`.
    case number(String)
    case bool(Bool)
    case null

    /// The value of the last member named `key`, as most JSON readers resolve
    /// duplicate keys; nil when this is not an object or has no such member.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.last(where: { $0.key == key })?.value
    }

    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    package var isNumber: Bool {
        if case .number = self { return true }
        return false
    }

    /// The number as an integer, when it is one that fits.
    public var intValue: Int? {
        if case .number(let text) = self { return Int(text) }
        return nil
    }

    package static func int(_ value: Int) -> JSONValue { .number(String(value)) }

    /// A number from a Double, written without a trailing `.0` when integral.
    package static func double(_ value: Double) -> JSONValue {
        .number(NumberText.decimal(value))
    }

    package static func optional(_ value: String?) -> JSONValue {
        value.map(JSONValue.string) ?? .null
    }

    package static func optional(_ value: Int?) -> JSONValue {
        value.map(JSONValue.int) ?? .null
    }

    package static func optional(_ value: Bool?) -> JSONValue {
        value.map(JSONValue.bool) ?? .null
    }
}

/// One `"key": value` pair of a JSON object, in the order it was written.
public struct JSONMember: Sendable, Equatable {
    public var key: String
    public var value: JSONValue

    public init(_ key: String, _ value: JSONValue) {
        self.key = key
        self.value = value
    }
}

/// One payload to check, as the reader found it.
public struct CheckInput: Sendable {
    public enum Body: Sendable {
        case bytes([UInt8])
        /// The payload could not be read; it is reported as `invalid_payload` with this message.
        case unreadable(String)
    }

    /// `path`, `path:line` for JSON Lines, or `-:line` for standard input.
    public var source: String
    public var body: Body
    /// For a line of JSON Lines, its number in the file (from 1): `source` already names it.
    public var lineNumber: Int?
    /// Its 0-based position in the whole input (all shards), once known.
    public var index: Int?
    /// For an element of a JSON array file (`FILE[N]`), where it starts in the file: its findings' lines and
    /// columns, counted in its own bytes, are moved there (SPEC 10).
    package var origin: MediaKeyPositions.Position?

    /// True for a line of JSON Lines.
    package var isLine: Bool { lineNumber != nil }

    public init(source: String, body: Body, lineNumber: Int? = nil, index: Int? = nil) {
        self.source = source
        self.body = body
        self.lineNumber = lineNumber
        self.index = index
    }
}

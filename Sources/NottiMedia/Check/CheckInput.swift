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
    /// True for a line of JSON Lines: `source` already names the line.
    public var isLine: Bool
    /// Its 0-based position in the whole input (all shards), once known.
    public var index: Int?

    public init(source: String, body: Body, isLine: Bool = false, index: Int? = nil) {
        self.source = source
        self.body = body
        self.isLine = isLine
        self.index = index
    }
}

/// The string tokens of one JSON value, each with its byte range (quotes included), its
/// decoded text, and the path of keys that leads to it (array positions left out).
package struct JSONStringScanner {
    package struct Token {
        package var range: Range<Int>
        package var value: String
        package var path: [String]
        /// A value, not an object's key.
        package var isValue: Bool
    }

    private let bytes: ArraySlice<UInt8>
    private var at: Int
    private var tokens: [Token] = []
    private var path: [String] = []

    package init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        at = bytes.startIndex
    }

    /// The tokens; nil when the text is not one JSON value (then nothing of it is rewritten).
    package mutating func scan() -> [Token]? {
        skipSpace()
        guard value(depth: 0) else { return nil }
        skipSpace()
        return at == bytes.endIndex ? tokens : nil
    }

    private mutating func skipSpace() {
        while at < bytes.endIndex, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[at]) { at += 1 }
    }

    private mutating func value(depth: Int) -> Bool {
        guard at < bytes.endIndex, depth < 512 else { return false }
        switch bytes[at] {
        case UInt8(ascii: "{"):
            at += 1
            return items(closedBy: UInt8(ascii: "}")) { scanner in
                guard let key = scanner.string(isValue: false) else { return false }
                scanner.skipSpace()
                guard scanner.at < scanner.bytes.endIndex, scanner.bytes[scanner.at] == UInt8(ascii: ":") else { return false }
                scanner.at += 1
                scanner.skipSpace()
                scanner.path.append(key)
                defer { scanner.path.removeLast() }
                return scanner.value(depth: depth + 1)
            }
        case UInt8(ascii: "["):
            at += 1
            return items(closedBy: UInt8(ascii: "]")) { $0.value(depth: depth + 1) }
        case UInt8(ascii: "\""):
            return string(isValue: true) != nil
        default:
            // A number, true, false or null: its characters, whatever they are (the parser judged them).
            let start = at
            while at < bytes.endIndex, !",]} \t\r\n".utf8.contains(bytes[at]) { at += 1 }
            return at > start
        }
    }

    /// An object's members or an array's elements, after its opening bracket: `item` for each,
    /// separated by commas, up to `close`.
    private mutating func items(closedBy close: UInt8, _ item: (inout Self) -> Bool) -> Bool {
        skipSpace()
        if at < bytes.endIndex, bytes[at] == close {
            at += 1
            return true
        }
        while true {
            skipSpace()
            guard item(&self) else { return false }
            skipSpace()
            guard at < bytes.endIndex else { return false }
            if bytes[at] == UInt8(ascii: ",") {
                at += 1
                continue
            }
            guard bytes[at] == close else { return false }
            at += 1
            return true
        }
    }

    /// A string token at `at`, decoded; recorded as a token.
    private mutating func string(isValue: Bool) -> String? {
        guard at < bytes.endIndex, bytes[at] == UInt8(ascii: "\"") else { return nil }
        let start = at
        at += 1
        var decoded: [UInt8] = []
        while at < bytes.endIndex {
            let byte = bytes[at]
            if byte == UInt8(ascii: "\"") {
                at += 1
                let text = String(decoding: decoded, as: UTF8.self)
                tokens.append(Token(range: start..<at, value: text, path: path, isValue: isValue))
                return text
            }
            if byte == UInt8(ascii: "\\") {
                guard at + 1 < bytes.endIndex else { return nil }
                let escaped = bytes[at + 1]
                at += 2
                switch escaped {
                case UInt8(ascii: "n"): decoded.append(0x0A)
                case UInt8(ascii: "t"): decoded.append(0x09)
                case UInt8(ascii: "r"): decoded.append(0x0D)
                case UInt8(ascii: "b"): decoded.append(0x08)
                case UInt8(ascii: "f"): decoded.append(0x0C)
                case UInt8(ascii: "u"):
                    guard at + 4 <= bytes.endIndex, let unit = UInt32(String(decoding: bytes[at..<(at + 4)], as: UTF8.self), radix: 16)
                    else { return nil }
                    at += 4
                    // A URL to replace has no escapes of this kind worth pairing; a lone unit decodes as U+FFFD.
                    decoded += Array(String(Unicode.Scalar(unit).map(Character.init) ?? "\u{FFFD}").utf8)
                default: decoded.append(escaped)
                }
                continue
            }
            decoded.append(byte)
            at += 1
        }
        return nil
    }
}

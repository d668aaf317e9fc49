/// Serializes `JSONValue`s deterministically: members in their stored order,
/// numbers as their literal text, only the escapes JSON requires.
public enum JSONWriter {
    public enum Style: Sendable {
        /// One line, no spaces: for JSON Lines.
        case compact
        /// Two-space indentation, `"key": value`: for people.
        case pretty
    }

    public static func string(_ value: JSONValue, style: Style = .compact) -> String {
        var output = ""
        write(value, style: style, indent: 0, into: &output)
        return output
    }

    /// The length in bytes of `string(value, style: .compact)`, without building it
    /// (the payload-size lint runs on every payload of a campaign).
    package static func compactByteCount(_ value: JSONValue) -> Int {
        byteCount(value, escapingNonASCII: false)
    }

    /// At least `compactByteCount(value)`, in a walk that reads no character: a string counts six bytes
    /// per UTF-8 byte (the most an escape takes). A limit above it needs no count (the platforms'
    /// limits run on every request of a campaign).
    package static func compactByteCountBound(_ value: JSONValue) -> Int {
        switch value {
        case .null, .bool: return 5
        case .number(let text): return text.utf8.count
        case .string(let text): return 2 + 6 * text.utf8.count
        case .array(let elements): return elements.reduce(1 + max(elements.count, 1)) { $0 + compactByteCountBound($1) }
        case .object(let members):
            return members.reduce(1 + max(members.count, 1)) { $0 + 3 + 6 * $1.key.utf8.count + compactByteCountBound($1.value) }
        }
    }

    /// Bytes of the compact form with every non-ASCII character written as
    /// `\uXXXX` (a surrogate pair past U+FFFF), as many JSON libraries send by
    /// default (Python's `json.dumps`): what APNs counts when a back end sends that.
    package static func asciiEscapedByteCount(_ value: JSONValue) -> Int {
        byteCount(value, escapingNonASCII: true)
    }

    private static func byteCount(_ value: JSONValue, escapingNonASCII: Bool) -> Int {
        switch value {
        case .null: return 4
        case .bool(let flag): return flag ? 4 : 5
        case .number(let text): return text.utf8.count
        case .string(let text): return stringByteCount(text, escapingNonASCII: escapingNonASCII)
        case .array(let elements):
            return elements.reduce(1 + max(elements.count, 1)) { $0 + byteCount($1, escapingNonASCII: escapingNonASCII) }
        case .object(let members):
            return members.reduce(1 + max(members.count, 1)) {
                $0 + stringByteCount($1.key, escapingNonASCII: escapingNonASCII) + 1 + byteCount($1.value, escapingNonASCII: escapingNonASCII)
            }
        }
    }

    /// Bytes `writeString` produces for `text`, quotes included (or, escaping
    /// non-ASCII, what an ASCII-only writer produces).
    private static func stringByteCount(_ text: String, escapingNonASCII: Bool) -> Int {
        var count = 2
        var previous = (UInt8(0), UInt8(0))
        for byte in text.utf8 {
            switch byte {
            case 0x22, 0x5C, 0x0A, 0x0D, 0x09, 0x08, 0x0C: count += 2
            case 0x00...0x1F, 0x7F: count += 6
            // Escaping non-ASCII: a character is counted at its lead byte, six bytes
            // (\uXXXX), or twelve for a surrogate pair; continuation bytes add nothing.
            case 0x80...0xBF where escapingNonASCII: break
            case 0xC0...0xEF where escapingNonASCII: count += 6
            case 0xF0...0xFF where escapingNonASCII: count += 12
            // U+2028 and U+2029 (E2 80 A8/A9) are written as six-byte escapes.
            case 0xA8...0xA9 where previous == (0xE2, 0x80): count += 4
            default: count += 1
            }
            previous = (previous.1, byte)
        }
        return count
    }

    private static func write(_ value: JSONValue, style: Style, indent: Int, into output: inout String) {
        switch value {
        case .null: output += "null"
        case .bool(let flag): output += flag ? "true" : "false"
        case .number(let text): output += text
        case .string(let text): writeString(text, into: &output)
        case .array(let elements):
            guard !elements.isEmpty else { output += "[]"; return }
            output += "["
            for (position, element) in elements.enumerated() {
                if position > 0 { output += "," }
                newline(style, indent + 1, into: &output)
                write(element, style: style, indent: indent + 1, into: &output)
            }
            newline(style, indent, into: &output)
            output += "]"
        case .object(let members):
            guard !members.isEmpty else { output += "{}"; return }
            output += "{"
            for (position, member) in members.enumerated() {
                if position > 0 { output += "," }
                newline(style, indent + 1, into: &output)
                writeString(member.key, into: &output)
                output += style == .pretty ? ": " : ":"
                write(member.value, style: style, indent: indent + 1, into: &output)
            }
            newline(style, indent, into: &output)
            output += "}"
        }
    }

    private static func newline(_ style: Style, _ indent: Int, into output: inout String) {
        guard style == .pretty else { return }
        output += "\n"
        output += String(repeating: "  ", count: indent)
    }

    private static func writeString(_ text: String, into output: inout String) {
        output += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case "\u{08}": output += "\\b"
            case "\u{0C}": output += "\\f"
            case "\u{00}"..."\u{1F}", "\u{7F}", "\u{2028}", "\u{2029}":
                let hex = String(scalar.value, radix: 16, uppercase: true)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
}

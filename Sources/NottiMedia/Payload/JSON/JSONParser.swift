/// A JSON text that could not be read, with where it went wrong.
package struct JSONSyntaxError: Error, Sendable, Equatable {
    package var message: String
    /// 1-based line and column (in characters) of the offending input.
    package var line: Int
    package var column: Int
}

/// A strict RFC 8259 parser over UTF-8 bytes.
///
/// Hand-written rather than Foundation's because a payload is untrusted input:
/// errors must name a line and column, numbers must keep their literal text,
/// and nesting is bounded so hostile input cannot exhaust the stack.
package struct JSONParser {
    /// Deeper nesting than any real payload, shallow enough to be safe to recurse.
    package static let maxDepth = 512

    /// The text, for the parse alone: read through a buffer, every access checked against its
    /// count by the parser itself (an array's own checks, and a buffer taken for each string,
    /// were a third of reading a campaign's payloads).
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    private var depth = 0

    /// Parses one JSON value spanning all of `bytes` (surrounding white space allowed).
    /// - Throws: `JSONSyntaxError` naming the line and column of the first problem.
    package static func parse(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSONValue {
        try parseNotingRepeatedKeys(bytes).value
    }

    /// As `parse`, also saying whether some object repeats a key (`duplicate_key`):
    /// noticed while the members are in hand, so a payload with none, nearly every
    /// one, needs no second walk (the walk was 4% of a campaign).
    package static func parseNotingRepeatedKeys(_ bytes: [UInt8]) throws(JSONSyntaxError) -> (value: JSONValue, repeatsAKey: Bool) {
        try bytes.withUnsafeBufferPointer { bytes throws(JSONSyntaxError) in
            var parser = JSONParser(bytes: bytes)
            parser.skipByteOrderMark()
            parser.skipWhitespace()
            if parser.index == bytes.count { throw parser.error("empty input: expected a JSON value") }
            let value = try parser.parseValue()
            parser.skipWhitespace()
            if parser.index != bytes.count { throw parser.error("unexpected text after the JSON value") }
            return (value, parser.repeatsAKey)
        }
    }

    /// The byte range of each element, when `bytes` holds one JSON array (surrounding white space
    /// allowed): a file or line of several payloads or requests (Expo's API takes an array of
    /// messages), each checked as an input of its own (SPEC 20). Nil when the value is not an array.
    /// - Throws: `JSONSyntaxError` when the text is not one JSON value.
    package static func arrayElementRanges(_ bytes: [UInt8]) throws(JSONSyntaxError) -> [Range<Int>]? {
        try bytes.withUnsafeBufferPointer { bytes throws(JSONSyntaxError) -> [Range<Int>]? in
            var parser = JSONParser(bytes: bytes)
            parser.skipByteOrderMark()
            parser.skipWhitespace()
            guard parser.index < bytes.count, bytes[parser.index] == UInt8(ascii: "[") else { return nil }
            try parser.enter()
            parser.index += 1
            var ranges: [Range<Int>] = []
            parser.skipWhitespace()
            if parser.index < bytes.count, bytes[parser.index] == UInt8(ascii: "]") {
                parser.index += 1
            } else {
                while true {
                    parser.skipWhitespace()
                    let start = parser.index
                    _ = try parser.parseValue()
                    ranges.append(start..<parser.index)
                    parser.skipWhitespace()
                    guard parser.index < bytes.count else { throw parser.error("unexpected end of input: expected ',' or ']'") }
                    if bytes[parser.index] == UInt8(ascii: ",") { parser.index += 1; continue }
                    if bytes[parser.index] == UInt8(ascii: "]") { parser.index += 1; break }
                    throw parser.error("unexpected \(parser.describeCurrent()): expected ',' or ']'")
                }
            }
            parser.skipWhitespace()
            if parser.index != bytes.count { throw parser.error("unexpected text after the JSON value") }
            return ranges
        }
    }

    /// Some object seen so far has a key twice.
    private var repeatsAKey = false

    private init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    private mutating func skipByteOrderMark() {
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { index = 3 }
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private func error(_ message: String, at offset: Int? = nil) -> JSONSyntaxError {
        let offset = min(offset ?? index, bytes.count)
        var line = 1
        var lineStart = 0
        for i in 0..<offset where bytes[i] == 0x0A {
            line += 1
            lineStart = i + 1
        }
        let prefix = String(decoding: bytes[lineStart..<offset], as: UTF8.self)
        return JSONSyntaxError(message: message, line: line, column: prefix.count + 1)
    }

    private func describeCurrent() -> String {
        guard index < bytes.count else { return "end of input" }
        let byte = bytes[index]
        if byte >= 0x21 && byte < 0x7F { return "'\(Character(UnicodeScalar(byte)))'" }
        return "byte 0x\(String(byte, radix: 16, uppercase: true))"
    }

    private mutating func parseValue() throws(JSONSyntaxError) -> JSONValue {
        guard index < bytes.count else { throw error("unexpected end of input: expected a JSON value") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw error("unexpected \(describeCurrent()): expected a JSON value")
        }
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONSyntaxError) {
        let count = literal.utf8CodeUnitCount
        let text = literal.utf8Start
        for i in 0..<count {
            guard index + i < bytes.count, bytes[index + i] == text[i] else {
                throw error("invalid literal: expected '\(literal)'")
            }
        }
        index += count
    }

    private mutating func enter() throws(JSONSyntaxError) {
        depth += 1
        if depth > Self.maxDepth { throw error("nesting deeper than \(Self.maxDepth) levels") }
    }

    private mutating func parseObject() throws(JSONSyntaxError) -> JSONValue {
        try enter()
        index += 1
        var members: [JSONMember] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return .object(members)
        }
        // Payload objects mostly hold a handful of keys: one allocation, not one per doubling from 1.
        members.reserveCapacity(4)
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw error("unexpected \(describeCurrent()): expected a string key")
            }
            let key = try parseString(isKey: true)
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                throw error("unexpected \(describeCurrent()): expected ':' after an object key")
            }
            index += 1
            skipWhitespace()
            if !repeatsAKey && members.contains(where: { $0.key == key }) { repeatsAKey = true }
            members.append(JSONMember(key, try parseValue()))
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input: expected ',' or '}'") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "}") { index += 1; break }
            throw error("unexpected \(describeCurrent()): expected ',' or '}'")
        }
        depth -= 1
        return .object(members)
    }

    private mutating func parseArray() throws(JSONSyntaxError) -> JSONValue {
        try enter()
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue())
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input: expected ',' or ']'") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "]") { index += 1; break }
            throw error("unexpected \(describeCurrent()): expected ',' or ']'")
        }
        depth -= 1
        return .array(elements)
    }

    private mutating func parseNumber() throws(JSONSyntaxError) -> JSONValue {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number: expected a digit") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) { throw error("invalid number: leading zero") }
        } else {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else {
                throw error("invalid number: expected a digit after '.'")
            }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard index < bytes.count, isDigit(bytes[index]) else {
                throw error("invalid number: expected a digit in the exponent")
            }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        return .number(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self))
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    /// - Parameter isKey: an object's key: one of `KnownKeys` comes from its table, not made anew.
    private mutating func parseString(isKey: Bool = false) throws(JSONSyntaxError) -> String {
        let start = index
        index += 1
        // Fast path: most strings have no escapes, so they are one validated slice.
        // Pure ASCII needs no validation, and `String(validating:)` is an unspecialised
        // generic call that showed up in campaign profiles; most keys and values are ASCII.
        let found: (end: Int, ascii: Bool)? = {
            guard let base = bytes.baseAddress else { return nil }
            var end = index
            var seenHighBits: UInt64 = 0
            // Eight bytes a step: a campaign's payloads are mostly string bytes, and one byte
            // a step was 16 instructions a byte. The lowest byte a mask marks is the first that
            // ends the string (a quote), escapes or is a control character: exact, since a
            // borrow only ever marks bytes above a real match.
            while end + 8 <= bytes.count {
                let word = UnsafeRawPointer(base + end).loadUnaligned(as: UInt64.self)
                let quotes = ByteWords.bytesEqual(to: UInt8(ascii: "\""), in: word)
                let stops = quotes | ByteWords.bytesEqual(to: UInt8(ascii: "\\"), in: word) | ByteWords.bytesBelow0x20(in: word)
                guard stops != 0 else {
                    seenHighBits |= word
                    end += 8
                    continue
                }
                let first = stops.trailingZeroBitCount / 8
                // Only a quote ends the string here; an escape or a control character takes the general path.
                guard quotes.trailingZeroBitCount / 8 == first else { return nil }
                let before: UInt64 = first == 0 ? 0 : ~0 >> (64 - 8 * first)
                return (end + first, (seenHighBits | word & before) & 0x8080_8080_8080_8080 == 0)
            }
            var seenHighBit = UInt8(truncatingIfNeeded: (seenHighBits & 0x8080_8080_8080_8080) == 0 ? 0 : 0x80)
            while end < bytes.count {
                let byte = bytes[end]
                if byte == UInt8(ascii: "\"") { return (end, seenHighBit & 0x80 == 0) }
                if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
                seenHighBit |= byte
                end += 1
            }
            return nil
        }()
        if let (end, ascii) = found {
            let text: String
            if ascii {
                let known = isKey && end - index <= 16 && index + 16 <= bytes.count ? KnownKeys.find(bytes.baseAddress! + index, count: end - index) : nil
                text = known ?? String(decoding: UnsafeBufferPointer(rebasing: bytes[index..<end]), as: UTF8.self)
            } else {
                guard let validated = String(validating: bytes[index..<end], as: UTF8.self) else {
                    throw error("invalid UTF-8 in a string", at: index)
                }
                text = validated
            }
            index = end + 1
            return text
        }
        return try parseEscapedString(from: start)
    }

    /// The general path, for strings with escapes (and for reporting errors).
    private mutating func parseEscapedString(from start: Int) throws(JSONSyntaxError) -> String {
        var scalars = String.UnicodeScalarView()
        var runStart = index
        func flushRun(_ parser: JSONParser, to end: Int, into scalars: inout String.UnicodeScalarView) throws(JSONSyntaxError) {
            guard runStart < end else { return }
            guard let text = String(validating: parser.bytes[runStart..<end], as: UTF8.self) else {
                throw parser.error("invalid UTF-8 in a string", at: runStart)
            }
            scalars.append(contentsOf: text.unicodeScalars)
        }
        while true {
            guard index < bytes.count else { throw error("unterminated string", at: start) }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                try flushRun(self, to: index, into: &scalars)
                index += 1
                return String(scalars)
            }
            if byte < 0x20 { throw error("unescaped control character in a string") }
            if byte != UInt8(ascii: "\\") {
                index += 1
                continue
            }
            try flushRun(self, to: index, into: &scalars)
            index += 1
            guard index < bytes.count else { throw error("unterminated string", at: start) }
            let escape = bytes[index]
            index += 1
            switch escape {
            case UInt8(ascii: "\""): scalars.append("\"")
            case UInt8(ascii: "\\"): scalars.append("\\")
            case UInt8(ascii: "/"): scalars.append("/")
            case UInt8(ascii: "b"): scalars.append("\u{08}")
            case UInt8(ascii: "f"): scalars.append("\u{0C}")
            case UInt8(ascii: "n"): scalars.append("\n")
            case UInt8(ascii: "r"): scalars.append("\r")
            case UInt8(ascii: "t"): scalars.append("\t")
            case UInt8(ascii: "u"): scalars.append(try parseUnicodeEscape())
            default: throw error("invalid escape '\\\(Character(UnicodeScalar(escape)))' in a string", at: index - 2)
            }
            runStart = index
        }
    }

    private mutating func parseHex4() throws(JSONSyntaxError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("invalid \\u escape: expected 4 hex digits") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw error("invalid \\u escape: expected 4 hex digits")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    private mutating func parseUnicodeEscape() throws(JSONSyntaxError) -> UnicodeScalar {
        let escapeStart = index - 2
        let first = try parseHex4()
        if (0xD800...0xDBFF).contains(first) {
            guard index + 2 <= bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
            else { throw error("invalid \\u escape: lone high surrogate", at: escapeStart) }
            index += 2
            let second = try parseHex4()
            guard (0xDC00...0xDFFF).contains(second) else {
                throw error("invalid \\u escape: lone high surrogate", at: escapeStart)
            }
            let combined = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
            return UnicodeScalar(combined)!
        }
        guard let scalar = UnicodeScalar(first) else {
            throw error("invalid \\u escape: lone low surrogate", at: escapeStart)
        }
        return scalar
    }
}

/// Object keys push payloads and send requests use (APNs's, FCM's, each SDK's), each string made
/// once: most keys of a campaign's payloads are these, and finding one here (its bytes read as two
/// words, one probe of a small table) costs less than making its string for every payload.
///
/// `@unchecked Sendable`: its buffer is written in `init` alone, then only read, and lives as long as the process.
final class KnownKeys: @unchecked Sendable {
    static let names = [
        "aps", "alert", "title", "subtitle", "body", "badge", "sound", "category", "thread-id", "mutable-content",
        "loc-key", "loc-args", "title-loc-key", "title-loc-args", "launch-image", "relevance-score", "critical", "name",
        "volume", "url-args",
        "notification_id", "notti_image_url", "message", "token", "topic", "condition", "notification", "image",
        "apns", "payload", "headers", "fcm_options", "android", "data", "webpush", "priority", "ttl", "collapse_key",
        "click_action", "icon", "color", "tag", "channel_id", "ab", "att", "at", "type", "url", "t", "u", "a", "i",
        "custom", "id", "bicon", "banner", "options", "media_attachment", "content", "crop", "thumbnail", "hidden",
        "ct_mediaUrl", "ct_mediaType", "itbl", "attachment-url", "com.batch", "campaign", "time", "url_id", "urls",
        "user_id", "identifier", "width", "height", "x", "y",
        // The platforms' send requests (SPEC 20): OneSignal's, Airship's, Braze's, Expo's.
        "app_id", "headings", "contents", "ios_attachments", "big_picture", "isIos", "isAndroid", "ios_sound", "en",
        "include_aliases", "external_id", "target_channel", "audience", "device_types", "style", "extra", "ios",
        "messages", "apple_push", "android_push", "asset_url", "asset_file_type", "mutable_content", "expiry",
        "time_to_live", "to", "richContent", "mutableContent", "expiration", "appboy_image_url",
    ]

    private static let shared = KnownKeys()
    private static let slotBits = 8
    /// Slot by slot (open addressing by `slot(_:_:_:)`): the key's two words and byte count (0: empty), and its string.
    private let words: UnsafeMutableBufferPointer<(low: UInt64, high: UInt64, count: Int)>
    private let strings: [String]

    private init() {
        let slots = 1 << Self.slotBits
        words = .allocate(capacity: slots)
        words.initialize(repeating: (0, 0, 0))
        var strings = [String](repeating: "", count: slots)
        for name in Self.names {
            precondition(name.utf8.count <= 16, "a known key is at most 16 bytes, as find reads it")
            let bytes = Array(name.utf8) + [UInt8](repeating: 0, count: 16)
            let (low, high) = bytes.withUnsafeBytes { ($0.loadUnaligned(as: UInt64.self), $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self)) }
            var slot = Self.slot(low, high, name.utf8.count)
            while words[slot].count != 0 { slot = (slot + 1) & (slots - 1) }
            words[slot] = (low, high, name.utf8.count)
            strings[slot] = name
        }
        self.strings = strings
    }

    private static func slot(_ low: UInt64, _ high: UInt64, _ count: Int) -> Int {
        Int(truncatingIfNeeded: ((low ^ (high &* 31) ^ UInt64(count)) &* 0x9E37_79B9_7F4A_7C15) >> (64 - UInt64(slotBits)))
    }

    /// The known key of the `count` (at most 16) bytes at `start`, or nil; 16 bytes from `start` must be readable.
    static func find(_ start: UnsafePointer<UInt8>, count: Int) -> String? {
        let raw = UnsafeRawPointer(start)
        // The key's bytes alone: the words' bytes past `count` cleared.
        let lowMask: UInt64 = count >= 8 ? ~0 : (1 << (8 * UInt64(count))) &- 1
        let highMask: UInt64 = count >= 16 ? ~0 : count <= 8 ? 0 : (1 << (8 * UInt64(count - 8))) &- 1
        let low = raw.loadUnaligned(as: UInt64.self) & lowMask
        let high = raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self) & highMask
        let table = shared
        var slot = slot(low, high, count)
        while table.words[slot].count != 0 {
            let entry = table.words[slot]
            if entry.low == low && entry.high == high && entry.count == count { return table.strings[slot] }
            slot = (slot + 1) & ((1 << slotBits) - 1)
        }
        return nil
    }
}

import NottiMedia

/// `fix --rewrite` (SPEC 19): a payload's text with each fixed media URL
/// replaced by its new URL, and the type an SDK states in the payload itself
/// (Braze's `ab.att.type`, and `asset_file_type` in its send request; Batch's
/// `com.batch.at.t`; CleverTap's `ct_mediaType`) following the rendition's type. The bytes are spliced, never
/// re-serialised: number text, key order, spacing and every other byte stay as
/// they were. Text that is not JSON is left alone.
struct PayloadRewrite {
    /// What one fixed URL becomes.
    struct Replacement {
        var newURL: String
        /// The rendition's type: `jpg` or `png`.
        var type: String
    }

    let replacements: [String: Replacement]
    /// A video URL's still for Android (`fix`'s `androidStill`): an FCM request naming the video gets
    /// `message.android.notification.image` set to the still, which Android reads before
    /// `message.notification.image`; the iPhones keep the video.
    var androidStills: [String: String] = [:]

    private static let sharedImage = ["message", "notification"]
    private static let androidImage = ["message", "android", "notification"]

    /// The sibling that states the type of the URL at a path, per SDK, and what it says for a
    /// rendition's type (`jpg`, `png`, `gif`, `mp4`, `mp3`): Braze's file extension, Batch's UTI,
    /// CleverTap's kind of media (SPEC 12), each from `MediaType`.
    private static let typeFields: [(sdk: SDK, url: [String], type: [String], value: @Sendable (String) -> String)] = [
        (.braze, ["ab", "att", "url"], ["ab", "att", "type"], { $0 }),
        // Braze's send request names the same suffix as `asset_file_type` (SPEC 20).
        (.braze, ["messages", "apple_push", "asset_url"], ["messages", "apple_push", "asset_file_type"], { $0 }),
        (.batch, ["com.batch", "at", "u"], ["com.batch", "at", "t"], { (MediaType(rawValue: $0) ?? .jpg).uti }),
        (.clevertap, ["ct_mediaUrl"], ["ct_mediaType"], { (MediaType(rawValue: $0) ?? .jpg).kind.rawValue }),
    ]

    /// What `sdk`'s payload states as the type of a rendition of `type` once rewritten (its type field's new
    /// value); nil for an SDK whose payload states no type. The rendition is judged with it (`MediaFixer`).
    static func statedType(ofRendition type: String, sdk: SDK) -> String? {
        typeFields.first { $0.sdk == sdk }.map { $0.value(type) }
    }

    /// `text` (one JSON payload) with its replacements; nil when nothing in it changes.
    func rewrite(_ text: ArraySlice<UInt8>) -> [UInt8]? {
        var scanner = JSONStringScanner(text)
        guard let strings = scanner.scan() else { return nil }
        var edits: [(range: Range<Int>, text: String, raw: Bool)] = []
        var typesAt: [[String]: String] = [:]
        edits += stillEdits(strings, in: text).map { ($0.range, $0.text, true) }
        for string in strings where string.isValue {
            guard let replacement = replacements[string.value] else { continue }
            // Android's own image of a video with a still names the still instead (`stillEdits`).
            if string.path == Self.androidImage + ["image"], androidStills[string.value] != nil { continue }
            edits.append((string.range, replacement.newURL, false))
            for field in Self.typeFields where field.url == string.path {
                typesAt[field.type] = field.value(replacement.type)
            }
        }
        guard !edits.isEmpty else { return nil }
        for string in strings where string.isValue {
            if let type = typesAt[string.path], type != string.value { edits.append((string.range, type, false)) }
        }
        var output: [UInt8] = []
        output.reserveCapacity(text.count + 64)
        var at = text.startIndex
        for edit in edits.sorted(by: { $0.range.lowerBound < $1.range.lowerBound }) {
            output += text[at..<edit.range.lowerBound]
            // The literal as the tool writes every JSON string (one escaper: `JSONWriter`); an inserted member as made.
            output += Array((edit.raw ? edit.text : JSONWriter.string(.string(edit.text))).utf8)
            at = edit.range.upperBound
        }
        output += text[at...]
        return output
    }

    /// The edits that give Android a video's still: its own `message.android.notification.image` replaced
    /// when it names the video, else that member inserted (with the objects around it that are missing)
    /// at the start of the deepest of `message`, `android`, `notification` the request has.
    private func stillEdits(_ strings: [JSONStringScanner.Token], in text: ArraySlice<UInt8>) -> [(range: Range<Int>, text: String)] {
        guard !androidStills.isEmpty else { return [] }
        if let own = strings.first(where: { $0.isValue && $0.path == Self.androidImage + ["image"] }) {
            guard let still = androidStills[own.value] else { return [] }
            return [(own.range, JSONWriter.string(.string(still)))]
        }
        guard let shared = strings.first(where: { $0.isValue && $0.path == Self.sharedImage + ["image"] }),
              let still = androidStills[shared.value]
        else { return [] }
        // The deepest object of the chain present: its key's token, and how many levels it has.
        var depth = 0
        var key: JSONStringScanner.Token?
        for (level, name) in Self.androidImage.enumerated() {
            guard let found = strings.first(where: { !$0.isValue && $0.path == Array(Self.androidImage.prefix(level)) && $0.value == name })
            else { break }
            key = found
            depth = level + 1
        }
        guard let key, let brace = Self.openingBrace(after: key.range.upperBound, in: text) else { return [] }
        var member = "\"image\":" + JSONWriter.string(.string(still))
        for name in Self.androidImage[depth...].reversed() { member = "\"\(name)\":{\(member)}" }
        let empty = Self.nextByte(after: brace + 1, in: text) == UInt8(ascii: "}")
        return [(brace + 1..<brace + 1, member + (empty ? "" : ","))]
    }

    /// The `{` of the object a key names, or nil when its value is not an object.
    private static func openingBrace(after keyEnd: Int, in text: ArraySlice<UInt8>) -> Int? {
        var at = keyEnd
        while at < text.endIndex, [0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: ":")].contains(text[at]) { at += 1 }
        return at < text.endIndex && text[at] == UInt8(ascii: "{") ? at : nil
    }

    private static func nextByte(after start: Int, in text: ArraySlice<UInt8>) -> UInt8? {
        var at = start
        while at < text.endIndex, [0x20, 0x09, 0x0A, 0x0D].contains(text[at]) { at += 1 }
        return at < text.endIndex ? text[at] : nil
    }
}

import NottiMedia

/// `fix --rewrite` (SPEC 19): a payload's text with each fixed media URL
/// replaced by its new URL, and the type an SDK states in the payload itself
/// (Braze's `ab.att.type`, Batch's `com.batch.at.t`, CleverTap's
/// `ct_mediaType`) following the rendition's type. The bytes are spliced, never
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

    /// The sibling that states the type of the URL at a path, per SDK, and what it says for a
    /// rendition's type (`jpg`, `png`, `gif`, `mp4`, `mp3`): Braze's file extension, Batch's UTI,
    /// CleverTap's kind of media (SPEC 12), each from `MediaType`.
    private static let typeFields: [(url: [String], type: [String], value: @Sendable (String) -> String)] = [
        (["ab", "att", "url"], ["ab", "att", "type"], { $0 }),
        (["com.batch", "at", "u"], ["com.batch", "at", "t"], { (MediaType(rawValue: $0) ?? .jpg).uti }),
        (["ct_mediaUrl"], ["ct_mediaType"], { (MediaType(rawValue: $0) ?? .jpg).kind.rawValue }),
    ]

    /// `text` (one JSON payload) with its replacements; nil when nothing in it changes.
    func rewrite(_ text: ArraySlice<UInt8>) -> [UInt8]? {
        var scanner = JSONStringScanner(text)
        guard let strings = scanner.scan() else { return nil }
        var edits: [(range: Range<Int>, text: String)] = []
        var typesAt: [[String]: String] = [:]
        for string in strings where string.isValue {
            guard let replacement = replacements[string.value] else { continue }
            edits.append((string.range, replacement.newURL))
            for field in Self.typeFields where field.url == string.path {
                typesAt[field.type] = field.value(replacement.type)
            }
        }
        guard !edits.isEmpty else { return nil }
        for string in strings where string.isValue {
            if let type = typesAt[string.path], type != string.value { edits.append((string.range, type)) }
        }
        var output: [UInt8] = []
        output.reserveCapacity(text.count + 64)
        var at = text.startIndex
        for edit in edits.sorted(by: { $0.range.lowerBound < $1.range.lowerBound }) {
            output += text[at..<edit.range.lowerBound]
            // The literal as the tool writes every JSON string (one escaper: `JSONWriter`).
            output += Array(JSONWriter.string(.string(edit.text)).utf8)
            at = edit.range.upperBound
        }
        output += text[at...]
        return output
    }
}

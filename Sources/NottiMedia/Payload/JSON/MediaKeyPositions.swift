/// Where a payload file names its media (SPEC 10): for each media URL string it holds, the line
/// and column (from 1, columns in characters, as syntax errors count them) of the key whose value
/// it is, or of the string itself in an array (Airship's `url` list). Found for the findings of a
/// JSON file, so that a CI annotation points at the media key; a JSON Lines line has its line.
package struct MediaKeyPositions: Sendable {
    package struct Position: Sendable, Equatable {
        package var line: Int
        package var column: Int

        package init(line: Int, column: Int) {
            self.line = line
            self.column = column
        }
    }

    private var byURL: [String: Position] = [:]
    /// Each media entry's URL by the entry's key (`att.hero`), and the first entry's, for a finding
    /// that names no entry (a payload of one).
    private var urlOfEntry: [String: String] = [:]
    private var firstURL: String?

    /// The positions of the entries' URLs in `bytes` (one JSON value; none when it is not one).
    package init(bytes: [UInt8], entries: [(key: String, url: String)]) {
        self.init(bytes: bytes, urls: Set(entries.map(\.url)))
        urlOfEntry = Dictionary(entries.map { ($0.key, $0.url) }) { first, _ in first }
        firstURL = entries.first?.url
    }

    /// Where a finding about media points: its entry's key (or the only entry's), when the file names it.
    package func position(ofEntry entry: String?) -> Position? {
        guard let url = entry.flatMap({ urlOfEntry[$0] }) ?? (entry == nil ? firstURL : nil) else { return nil }
        return byURL[url]
    }

    /// The positions of `urls` in `bytes` (one JSON value; none when it is not one), the first place each is named.
    package init(bytes: [UInt8], urls: Set<String>) {
        guard !urls.isEmpty else { return }
        var scanner = JSONStringScanner(bytes[...])
        guard let tokens = scanner.scan() else { return }
        var found: [String: Int] = [:]
        for (index, token) in tokens.enumerated() where token.isValue && urls.contains(token.value) && found[token.value] == nil {
            // An object member's value: its key is the token just before it, one level up.
            if index > 0, case let key = tokens[index - 1], !key.isValue, key.path + [key.value] == token.path {
                found[token.value] = key.range.lowerBound
            } else {
                found[token.value] = token.range.lowerBound
            }
        }
        // Lines and columns for the offsets, in one pass over the text.
        var line = 1
        var lineStart = 0
        var at = 0
        for (url, offset) in found.sorted(by: { $0.value < $1.value }) {
            while at < offset {
                if bytes[at] == 0x0A {
                    line += 1
                    lineStart = at + 1
                }
                at += 1
            }
            byURL[url] = Position(line: line, column: String(decoding: bytes[lineStart..<offset], as: UTF8.self).count + 1)
        }
    }

    package subscript(url: String) -> Position? { byURL[url] }
    package var isEmpty: Bool { byURL.isEmpty }
}

extension StringProtocol {
    /// Where `needle` first occurs, by UTF-8 bytes (exact, no Unicode
    /// equivalence, as the SDKs' own searches are).
    ///
    /// The standard `firstRange(of:)` lives in _StringProcessing, and calling
    /// it linked that module and the regex parser (900 KB) into the binary,
    /// whose metadata every run then paged in.
    func range(ofBytes needle: String) -> Range<Index>? {
        let bytes = utf8
        let pattern = Array(needle.utf8)
        guard let first = pattern.first else { return startIndex..<startIndex }
        var start = bytes.startIndex
        while let candidate = bytes[start...].firstIndex(of: first) {
            var end = candidate
            var matched = 0
            while matched < pattern.count, end != bytes.endIndex, bytes[end] == pattern[matched] {
                bytes.formIndex(after: &end)
                matched += 1
            }
            if matched == pattern.count { return candidate..<end }
            start = bytes.index(after: candidate)
        }
        return nil
    }

    /// The text without leading and trailing spaces and tabs.
    package func trimmingWhitespace() -> String {
        var slice = Substring(self)
        while let first = slice.first, first == " " || first == "\t" { slice.removeFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice.removeLast() }
        return String(slice)
    }
}

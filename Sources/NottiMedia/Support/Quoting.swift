/// How user-supplied text appears inside messages.

/// `'text'`, cut at `limit` characters with an ellipsis, so one long URL cannot flood a line.
func quoted(_ text: String, limit: Int = 120) -> String {
    let shown = text.count > limit ? String(text.prefix(limit)) + "…" : text
    return "'" + shown + "'"
}

/// `0x1B` → `001B`, as in `U+001B`.
func hex4(_ value: UInt32) -> String {
    let digits = String(value, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
}

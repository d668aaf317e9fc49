/// Escapes untrusted text for XML and HTML, content and attribute values alike:
/// the five markup characters become entities, and characters XML 1.0 cannot
/// carry become U+FFFD. The JUnit report and the preview page both use it.
func markupEscape(_ text: String) -> String {
    var escaped = ""
    escaped.reserveCapacity(text.utf8.count)
    for scalar in text.unicodeScalars {
        switch scalar {
        case "&": escaped += "&amp;"
        case "<": escaped += "&lt;"
        case ">": escaped += "&gt;"
        case "\"": escaped += "&quot;"
        case "'": escaped += "&apos;"
        case "\t", "\n", "\r": escaped.unicodeScalars.append(scalar)
        case "\u{00}"..."\u{1F}", "\u{FFFE}", "\u{FFFF}": escaped += "\u{FFFD}"
        default: escaped.unicodeScalars.append(scalar)
        }
    }
    return escaped
}

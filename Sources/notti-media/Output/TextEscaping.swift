import NottiMedia

/// Makes untrusted text safe for a terminal and for line-based readers: control
/// characters (C0, DEL, C1) and line breaks (including U+2028 and U+2029) become
/// `\n`, `\r`, `\t` or `\u001b`, so no payload, URL, file name or server can
/// forge a line of output or drive the terminal. The one escaper for text
/// output (JSON, JUnit and HTML have their own, in their own languages).
func textEscape(_ text: String) -> String {
    // Nearly every string is plain: return it as it is without building a copy.
    guard mayNeedEscape(text), text.unicodeScalars.contains(where: needsEscape) else { return text }
    var escaped = ""
    escaped.reserveCapacity(text.utf8.count + 8)
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\n": escaped += "\\n"
        case "\r": escaped += "\\r"
        case "\t": escaped += "\\t"
        case _ where needsEscape(scalar):
            let digits = String(scalar.value, radix: 16)
            escaped += "\\u" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
        default: escaped.unicodeScalars.append(scalar)
        }
    }
    return escaped
}

/// False when no byte can start an escaped scalar: C0 and DEL are single bytes, C1
/// starts with 0xC2, U+2028 and U+2029 with 0xE2. A byte scan, eight bytes a step,
/// where the scalar walk decoded every character of every finding line (1.5% of a
/// campaign's instructions), and a byte loop still took 1,000 a line.
private func mayNeedEscape(_ text: String) -> Bool {
    var text = text
    return text.withUTF8 { bytes in
        guard let base = bytes.baseAddress else { return false }
        var index = 0
        while index + 8 <= bytes.count {
            let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
            if ByteWords.bytesBelow0x20(in: word) | ByteWords.bytesEqual(to: 0x7F, in: word)
                | ByteWords.bytesEqual(to: 0xC2, in: word) | ByteWords.bytesEqual(to: 0xE2, in: word) != 0 {
                return true
            }
            index += 8
        }
        return bytes[index...].contains { $0 < 0x20 || $0 == 0x7F || $0 == 0xC2 || $0 == 0xE2 }
    }
}

private func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
    let value = scalar.value
    return value < 0x20 || (0x7F...0x9F).contains(value) || value == 0x2028 || value == 0x2029
}

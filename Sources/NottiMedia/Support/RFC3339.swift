
/// RFC 3339 date-times as `--send-at` and the platforms' requests (Braze's `expiry`) give them: `2026-12-24T09:00:00Z`, with fractional
/// seconds or an offset (`+01:00`), `t` and `z` in either case, or a space for `T`.
package enum RFC3339 {
    /// Seconds since 1970, or nil when `text` is not one.
    package static func seconds(_ text: String) -> Int? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
              [UInt8(ascii: "T"), UInt8(ascii: "t"), UInt8(ascii: " ")].contains(bytes[10]),
              bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            guard bytes[range].allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
            return Int(String(decoding: bytes[range], as: UTF8.self))
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
              let minute = number(14..<16), let second = number(17..<19),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61 else { return nil }
        var at = 19
        if bytes[at] == UInt8(ascii: ".") {
            at += 1
            let start = at
            while at < bytes.count, bytes[at] >= UInt8(ascii: "0"), bytes[at] <= UInt8(ascii: "9") { at += 1 }
            guard at > start else { return nil }
        }
        guard at < bytes.count else { return nil }
        var offset = 0
        if bytes[at] == UInt8(ascii: "Z") || bytes[at] == UInt8(ascii: "z") {
            guard at + 1 == bytes.count else { return nil }
        } else {
            guard at + 6 == bytes.count, [UInt8(ascii: "+"), UInt8(ascii: "-")].contains(bytes[at]), bytes[at + 3] == UInt8(ascii: ":"),
                  let hours = number((at + 1)..<(at + 3)), let minutes = number((at + 4)..<(at + 6)), hours < 24, minutes < 60
            else { return nil }
            offset = (hours * 3600 + minutes * 60) * (bytes[at] == UInt8(ascii: "-") ? -1 : 1)
        }
        let stamp = "\(year)-\(month < 10 ? "0" : "")\(month)-\(day < 10 ? "0" : "")\(day)T\(hour < 10 ? "0" : "")\(hour):"
            + "\(minute < 10 ? "0" : "")\(minute):\(second < 10 ? "0" : "")\(second)Z"
        return CertificateFacts.seconds(fromTimestamp: stamp).map { $0 - offset }
    }
}

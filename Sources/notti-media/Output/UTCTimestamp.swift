import Glibc

/// The current time in UTC, as the outputs that say when they were made write it.
enum UTCTimestamp {
    /// `2026-11-30T06:40:00` (ISO 8601 without a zone, as JUnit readers expect), or
    /// `2026-11-30 06:40 UTC` for people.
    static func now(forPeople: Bool = false) -> String {
        var now = time(nil)
        var parts = tm()
        gmtime_r(&now, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let date = "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))"
        return forPeople
            ? "\(date) \(two(parts.tm_hour)):\(two(parts.tm_min)) UTC"
            : "\(date)T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))"
    }
}

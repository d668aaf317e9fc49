import NottiMedia

/// The one line format for every finding printed for people, in every command:
/// `SOURCE: SEVERITY: CODE: MESSAGE`, with SOURCE `path`, `path:line` (a line of
/// JSON Lines) or `path:line:column` (where a JSON syntax error is), the shape
/// gcc, shellcheck -f gcc and eslint's unix formatter print, so editors and CI
/// problem matchers read it. Everything from input is escaped.
enum FindingLine {
    static func format(_ diagnostic: Diagnostic, in report: Report) -> String {
        format(diagnostic, source: report.source, sourceIsLine: report.sourceIsLine, profile: report.sdkDetected ? report.sdk : nil)
    }

    /// - Parameter profile: under `--sdk auto`, the profile the payload was checked under, named before the message.
    static func format(_ diagnostic: Diagnostic, source: String, sourceIsLine: Bool = false, profile: SDK? = nil) -> String {
        var location = source
        if let column = diagnostic.column {
            // Before a request's delivery (`path:3:5#android`), after a line's number (`path:7:19`).
            let (path, delivery) = Platform.splitDelivery(source)
            location = path + (sourceIsLine ? ":\(column)" : ":\(diagnostic.line ?? 1):\(column)") + delivery
        }
        return joined(
            textEscape(location), ": ", diagnostic.severity.rawValue, ": ", diagnostic.codeText, ": ",
            profile.map { "under \($0.rawValue): " } ?? "", textEscape(diagnostic.message))
    }

    /// `parts` written one after the other into one string of their length: interpolated, the line
    /// grew two or three times as its parts came in, and appended, each part cost a few hundred
    /// instructions of bookkeeping (a campaign's failing record spent 6,500 on its line).
    private static func joined(_ parts: String...) -> String {
        String(unsafeUninitializedCapacity: parts.reduce(0) { $0 + $1.utf8.count }) { buffer in
            var end = 0
            for var part in parts {
                part.withUTF8 { bytes in
                    guard let base = bytes.baseAddress, let target = buffer.baseAddress else { return }
                    (target + end).initialize(from: base, count: bytes.count)
                    end += bytes.count
                }
            }
            return end
        }
    }
}

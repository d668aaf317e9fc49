import Foundation

/// Headless Chromium (Debian's `chromium`), for tests that look at pages the
/// way a browser renders them.
enum Browser {
    /// The DOM after the page's scripts ran (`--dump-dom`).
    static func renderedDOM(of page: String, fragment: String = "") throws -> String {
        let profile = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: profile) }
        let result = try CLI.run(executable: "/usr/bin/chromium", [
            "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=\(profile.path)",
            "--dump-dom", URL(fileURLWithPath: page).absoluteString + fragment,
        ])
        return result.stdout
    }

    /// The elements and titles a real HTML parser finds in `dom` (`Tests/Support/dom_summary.py`).
    static func summary(of dom: String) throws -> (elements: [[String: Any]], titles: [String]) {
        let script = Paths.packageRoot.appendingPathComponent("Tests/Support/dom_summary.py").path
        let result = try CLI.run(executable: "/usr/bin/env", ["python3", script], stdin: dom)
        let json = result.json
        return (json["elements"] as? [[String: Any]] ?? [], json["titles"] as? [String] ?? [])
    }

    /// How many times `pattern` (a regular expression) matches `text`.
    static func count(_ pattern: String, in text: String) -> Int {
        let expression = try! NSRegularExpression(pattern: pattern)
        return expression.numberOfMatches(in: text, range: NSRange(text.startIndex..., in: text))
    }

    /// Every capture of the first group of `pattern` in `text`.
    static func captures(_ pattern: String, in text: String) -> [String] {
        let expression = try! NSRegularExpression(pattern: pattern)
        return expression.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap {
            Range($0.range(at: 1), in: text).map { String(text[$0]) }
        }
    }
}

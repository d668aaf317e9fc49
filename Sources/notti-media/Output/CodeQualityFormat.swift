import NottiMedia

/// `--format codequality`: a GitLab Code Quality report, a JSON array of one
/// issue per finding (`description`, `check_name`, `fingerprint`, `severity`
/// `major` for errors and `minor` for warnings, `location.path`,
/// `location.lines.begin`). The fingerprint hashes the finding's source, code
/// and entry (and its place among equal ones), never its message or the time,
/// so the same finding has the same fingerprint in every run.
struct CodeQualityFormat: CheckRenderer {
    func render(_ report: Report) -> String? {
        var seen: [String: Int] = [:]
        let issues = Finding.all(in: report).map { finding -> String in
            let identity = [finding.source, finding.code, finding.entry ?? ""].joined(separator: "\u{0}")
            let repeatCount = seen[identity, default: 0]
            seen[identity] = repeatCount + 1
            return JSONWriter.string(Self.issue(finding, fingerprint: SHA256.hex(of: Array((identity + "\u{0}\(repeatCount)").utf8))))
        }
        return issues.isEmpty ? nil : issues.joined(separator: ",\n")
    }

    static func issue(_ finding: Finding, fingerprint: String) -> JSONValue {
        .object([
            JSONMember("description", .string(finding.message)),
            JSONMember("check_name", .string(finding.code)),
            JSONMember("fingerprint", .string(fingerprint)),
            JSONMember("severity", .string(finding.severity == .error ? "major" : "minor")),
            JSONMember("location", .object([
                JSONMember("path", .string(finding.file)),
                JSONMember("lines", .object([JSONMember("begin", .int(finding.line ?? 1))])),
            ])),
        ])
    }
}

/// Writes the array around the streamed issues.
final class CodeQualitySink: CheckSink, @unchecked Sendable {
    // Used by the writer thread, then by `finish` once it is joined.
    private var first = true

    func write(_ rendered: String) {
        // The opening is written with the first record (or at the end), so a run that
        // stops before it starts prints nothing half made.
        Console.outPart((first ? "[" + "\n" : ",\n") + rendered)
        first = false
    }

    func finish(_ summary: CheckSummary) {
        // The findings about hosts, once per host: fingerprinted by host and code, the same in every run.
        for finding in Finding.about(summary) {
            let identity = [finding.source, finding.code].joined(separator: "\u{0}")
            write(JSONWriter.string(CodeQualityFormat.issue(finding, fingerprint: SHA256.hex(of: Array(identity.utf8)))))
        }
        Console.out((first ? "[" : "") + "\n" + "]")
    }
}

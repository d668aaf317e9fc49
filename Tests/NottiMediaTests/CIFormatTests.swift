import Foundation
import Testing
@testable import notti_media

/// SPEC 16's CI formats, on the one finding model: GitHub workflow commands,
/// SARIF 2.1.0 (checked against the official schema by independent readers),
/// GitLab Code Quality; and `merge` gives each exactly as one unsharded run.
@Suite struct CIFormatTests {
    let server = TestServer.shared

    /// A folder with a payload whose name needs percent-encoding, and a JSON Lines
    /// file whose second line is not JSON; `check` runs from inside it.
    private func fixtures() throws -> URL {
        let folder = Paths.temporaryFolder()
        try Data(payload(url: server.url("/status/404")).utf8).write(to: folder.appendingPathComponent("summer sale#1.json"))
        let lines = [payload(url: server.url("/media/logo.png")), #"{"aps": {"alert": nope}}"#, #"{"aps": {"alert": "x"}}"#]
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: folder.appendingPathComponent("campaign.jsonl"))
        return folder
    }

    private func check(in folder: URL, _ format: String, extra: String = "") throws -> CLI.Result {
        let command = "cd '\(folder.path)' && exec '\(CLI.binary)' check 'summer sale#1.json' campaign.jsonl --format \(format) "
            + "--cacert '\(Paths.testCA)' --out out \(extra)"
        return try CLI.run(executable: "/bin/sh", ["-c", command])
    }

    /// In a JSON file, a media finding points at the line and column of its media key, in every format;
    /// in JSON Lines, at its line; a finding about the payload itself, at the file.
    @Test func aMediaFindingPointsAtItsMediaKey() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let text = "{\n  \"aps\": {\"alert\": \"x\"},\n  \"notification_id\": \"n\",\n    \"notti_image_url\": \"ftp://media.example/a.png\"\n}\n"
        try Data(text.utf8).write(to: folder.appendingPathComponent("push.json"))
        func check(_ format: String) throws -> String {
            let command = "cd '\(folder.path)' && exec '\(CLI.binary)' check push.json --format \(format) --out out"
            return try CLI.run(executable: "/bin/sh", ["-c", command]).stdout
        }
        let lines = try check("text").split(separator: "\n")
        #expect(lines.contains { $0.hasPrefix("push.json:4:5: error: not_https: ") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("push.json: error: mutable_content_missing: ") }, "\(lines)")
        #expect(try check("github").contains("::error file=push.json,line=4,col=5,title=not_https::"))
        let quality = try JSONSerialization.jsonObject(with: Data(try check("codequality").utf8)) as? [[String: Any]] ?? []
        let https = quality.first { $0["check_name"] as? String == "not_https" }
        #expect(((https?["location"] as? [String: Any])?["lines"] as? [String: Any])?["begin"] as? Int == 4)
        let sarif = try JSONSerialization.jsonObject(with: Data(try check("sarif").utf8)) as? [String: Any] ?? [:]
        let results = ((sarif["runs"] as? [[String: Any]])?.first?["results"] as? [[String: Any]]) ?? []
        let location = ((results.first { $0["ruleId"] as? String == "not_https" }?["locations"] as? [[String: Any]])?.first?["physicalLocation"]
            as? [String: Any])?["region"] as? [String: Any]
        #expect(location?["startLine"] as? Int == 4 && location?["startColumn"] as? Int == 5)
        let json = OutFolder.records(ofJSONLines: try check("json")).first
        let diagnostic = (json?["diagnostics"] as? [[String: Any]])?.first { $0["code"] as? String == "not_https" }
        #expect(diagnostic?["line"] as? Int == 4 && diagnostic?["column"] as? Int == 5)
    }

    @Test func gitHubEscapingIsTheToolkits() {
        #expect(GitHubEscaping.data("50% off\r\nnow") == "50%25 off%0D%0Anow")
        #expect(GitHubEscaping.property("a:b,c%d") == "a%3Ab%2Cc%25d")
        #expect(GitHubEscaping.data("bell\u{7}esc\u{1B}") == "bell\\u0007esc\\u001b")
    }

    @Test func gitHubFormatIsOneWorkflowCommandPerFindingThenTheSummary() throws {
        let folder = try fixtures()
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try check(in: folder, "github")
        #expect(result.status == 1)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        // A finding about media in a JSON file points at its media key (SPEC 10).
        #expect(lines.contains { $0.hasPrefix("::error file=summer sale#1.json,line=1,col=106,title=http_error::the server answered HTTP 404") },
                "\(lines)")
        #expect(lines.contains { $0.hasPrefix("::error file=campaign.jsonl,line=2,col=19,title=invalid_payload::") })
        // A text push (no media) without mutable-content loses only Notti's received event: a warning (SPEC 7).
        #expect(lines.contains { $0.hasPrefix("::warning file=campaign.jsonl,line=3,title=mutable_content_missing::") })
        #expect(lines.contains { $0.hasPrefix("::warning file=campaign.jsonl,line=3,title=notification_id_missing::") })
        let commands = lines.prefix { $0.hasPrefix("::") }
        #expect(lines.dropFirst(commands.count).first?.hasPrefix("checked 4 payloads: 2 passed, 2 failed") == true, "the text summary follows")
        #expect(!lines.dropFirst(commands.count).contains { $0.hasPrefix("::") })
    }

    @Test func sarifPassesTheOfficialSchemaAndAnIndependentReader() throws {
        let folder = try fixtures()
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try check(in: folder, "sarif")
        #expect(result.status == 1)
        let log = folder.appendingPathComponent("out.sarif")
        try Data(result.stdout.utf8).write(to: log)
        let validated = try Validators.run(["check-jsonschema", "--schemafile", try Validators.sarifSchema(), log.path])
        #expect(validated.status == 0, "\(validated.stdout)\(validated.stderr)")
        let read = try Validators.run(["python3", "-c", """
            import sys, sarif_pydantic
            log = sarif_pydantic.load(sys.argv[1])
            print(len(log.runs), len(log.runs[0].results), len(log.runs[0].tool.driver.rules))
            """, log.path])
        #expect(read.status == 0, "\(read.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(object["version"] as? String == "2.1.0")
        #expect(object["$schema"] as? String == "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json")
        let runs = try #require(object["runs"] as? [[String: Any]])
        #expect(runs.count == 1)
        let driver = try #require((runs[0]["tool"] as? [String: Any])?["driver"] as? [String: Any])
        #expect(driver["name"] as? String == "notti-media")
        let rules = try #require(driver["rules"] as? [[String: Any]])
        #expect(rules.map { $0["id"] as? String }.contains("http_error"))
        #expect(rules.allSatisfy { ($0["help"] as? [String: Any])?["text"] is String && ($0["shortDescription"] as? [String: Any])?["text"] is String })
        let results = try #require(runs[0]["results"] as? [[String: Any]])
        #expect(read.stdout == "1 \(results.count) \(rules.count)\n")
        #expect(results.allSatisfy { ["error", "warning"].contains($0["level"] as? String) && $0["ruleId"] is String
            && ($0["message"] as? [String: Any])?["text"] is String })
        func location(_ result: [String: Any]) -> [String: Any] {
            ((result["locations"] as? [[String: Any]])?.first?["physicalLocation"] as? [String: Any]) ?? [:]
        }
        let http = try #require(results.first { $0["ruleId"] as? String == "http_error" })
        #expect((location(http)["artifactLocation"] as? [String: Any])?["uri"] as? String == "summer%20sale%231.json")
        // A finding about media points at the media key (SPEC 10): line 1, column 106 of the one-line file.
        #expect((location(http)["region"] as? [String: Int]) == ["startLine": 1, "startColumn": 106])
        let syntax = try #require(results.first { $0["ruleId"] as? String == "invalid_payload" })
        #expect((location(syntax)["region"] as? [String: Any])?["startLine"] as? Int == 2)
        #expect((location(syntax)["region"] as? [String: Any])?["startColumn"] as? Int == 19)
    }

    @Test func codeQualityFingerprintsAreStableAcrossRuns() throws {
        let folder = try fixtures()
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = try check(in: folder, "codequality")
        let second = try check(in: folder, "codequality", extra: "--jobs 1")
        let issues = try #require(try JSONSerialization.jsonObject(with: Data(first.stdout.utf8)) as? [[String: Any]])
        let again = try #require(try JSONSerialization.jsonObject(with: Data(second.stdout.utf8)) as? [[String: Any]])
        #expect(issues.count == again.count)
        #expect(issues.map { $0["fingerprint"] as? String } == again.map { $0["fingerprint"] as? String })
        #expect(Set(issues.compactMap { $0["fingerprint"] as? String }).count == issues.count, "one fingerprint per finding")
        let syntax = try #require(issues.first { $0["check_name"] as? String == "invalid_payload" })
        #expect(syntax["severity"] as? String == "major")
        #expect((syntax["location"] as? [String: Any])?["path"] as? String == "campaign.jsonl")
        #expect(((syntax["location"] as? [String: Any])?["lines"] as? [String: Any])?["begin"] as? Int == 2)
        #expect(issues.contains { $0["check_name"] as? String == "notification_id_missing" && $0["severity"] as? String == "minor" })
    }

    @Test(arguments: ["github", "sarif", "codequality"])
    func mergeGivesWhatOneUnshardedRunPrints(format: String) throws {
        let folder = try fixtures()
        defer { try? FileManager.default.removeItem(at: folder) }
        let whole = try check(in: folder, format)
        var files: [String] = []
        for shard in 1...2 {
            let part = try check(in: folder, "json", extra: "--shard \(shard)/2")
            let file = folder.appendingPathComponent("shard-\(shard).json")
            try Data(part.stdout.utf8).write(to: file)
            files.append(file.path)
        }
        let merged = try CLI.run(["merge", "--format", format] + files.reversed())
        #expect(merged.status == whole.status)
        #expect(merged.stdout == whole.stdout)
    }
}

import Foundation
import Testing

/// SPEC 10: every finding says where: the same line in every format, the entry, the profile.
@Suite struct FindingPlaceTests {
    let server = TestServer.shared

    @Test func aJSONLinesSyntaxErrorHasTheSameLineInTextAndJSON() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("col.jsonl")
        let good = payload(url: nil)
        try Data(([good, good, good, good, #"{"aps": {"alert": nope}}"#].joined(separator: "\n") + "\n").utf8).write(to: file)
        let text = try CLI.run(["check", file.path, "--out", folder.path])
        #expect(text.stdout.contains("\(file.path):5:19: error: invalid_payload: "), "\(text.stdout)")
        let json = try CLI.run(["check", file.path, "--out", folder.path, "--format", "json"])
        let record = try #require(OutFolder.records(ofJSONLines: json.stdout).last)
        let diagnostic = try #require((record["diagnostics"] as? [[String: Any]])?.first)
        #expect(diagnostic["line"] as? Int == 5)
        #expect(diagnostic["column"] as? Int == 19)
    }

    @Test func aPayloadWithSeveralEntriesNamesTheEntryAndAutoNamesTheProfile() throws {
        let members = #""att": {"hero": "\#(server.url("/status/404"))", "logo": "\#(server.url("/media/logo.png"))"}"#
        let result = try CLI.run(
            ["check", "-", "--sdk", "auto", "--cacert", Paths.testCA, "--out", Paths.temporaryFolder().path],
            stdin: sdkPayload(members) + "\n")
        #expect(result.stdout.contains("-:1: error: http_error: under onesignal: att.hero: the server answered HTTP 404"), "\(result.stdout)")
        let fixed = try CLI.run(
            ["check", "-", "--sdk", "onesignal", "--cacert", Paths.testCA, "--out", Paths.temporaryFolder().path],
            stdin: sdkPayload(members) + "\n")
        #expect(fixed.stdout.contains("-:1: error: http_error: att.hero: the server answered HTTP 404"), "\(fixed.stdout)")
        let process = try CLI.run(
            ["process", "-", "--sdk", "auto", "--format", "text", "--cacert", Paths.testCA, "--out", Paths.temporaryFolder().path],
            stdin: sdkPayload(members))
        #expect(process.stdout.hasPrefix("-: failed under onesignal: attached png"), "\(process.stdout)")
    }

    @Test func aRepeatedKeyIsTheWarningDuplicateKeyNamingIt() throws {
        let text = #"{"aps": {"alert": "a", "alert": "b", "mutable-content": 1}, "notification_id": "n-1", "notification_id": "n-2"}"#
        let result = try CLI.run(["check", "-", "--out", Paths.temporaryFolder().path], stdin: text + "\n")
        #expect(result.status == 0)
        #expect(result.stdout.contains(#"-:1: warning: duplicate_key: the key 'alert' appears more than once in aps"#), "\(result.stdout)")
        #expect(result.stdout.contains(#"-:1: warning: duplicate_key: the key 'notification_id' appears more than once in the payload's top level"#))
    }
}

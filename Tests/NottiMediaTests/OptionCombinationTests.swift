import Foundation
import Testing

/// Options that do not go together are usage errors, and the smaller promises of SPEC 6 and 10.
@Suite struct OptionCombinationTests {
    let server = TestServer.shared

    @Test(arguments: [
        (["check", "-", "--shard-count", "3"],
         "notti-media: --shard-count goes with --shard auto (a Kubernetes Indexed Job's completions); with --shard I/N, N is the count\n"),
        (["check", "-", "--errors-only", "--format", "json"],
         "notti-media: --errors-only goes with --format text (or --html); --format json carries every finding\n"),
        (["check", "-", "--errors-only", "--format", "junit"],
         "notti-media: --errors-only goes with --format text (or --html); --format junit carries every finding\n"),
        (["merge", "x.json", "--errors-only", "--format", "json"],
         "notti-media: --errors-only goes with --format text (or --html); --format json carries every finding\n"),
    ])
    func optionsThatDoNotGoTogetherAreUsageErrors(arguments: [String], message: String) throws {
        let result = try CLI.run(arguments, stdin: "")
        #expect(result.status == 2)
        #expect(result.stderr == message)
    }

    /// `--html --cacert ca.pem` forgot the page's name: the next flag is not taken as it (SPEC 10).
    @Test(arguments: [
        (["check", "--html", "--cacert", "ca.pem", "x.json"], "--html", "--cacert"),
        (["check", "x.json", "--out", "--strict"], "--out", "--strict"),
        (["process", "--timeout", "--quiet", "x.json"], "--timeout", "--quiet"),
        (["sniff", "--format", "--json", "x.png"], "--format", "--json"),
    ])
    func anOptionsValueIsNeverTheNextFlag(arguments: [String], option: String, next: String) throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try CLI.run(arguments.map { $0 == "x.json" || $0 == "x.png" ? folder.appendingPathComponent($0).path : $0 }, stdin: "")
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("notti-media: \(option) expects "), "\(result.stderr)")
        #expect(result.stderr.contains("not the option '\(next)'"), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(!FileManager.default.fileExists(atPath: Paths.packageRoot.appendingPathComponent(next).path))
    }

    @Test func aValueThatStartsWithTwoDashesIsGivenWithEquals() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let page = folder.appendingPathComponent("--page.html").path
        let result = try CLI.run(["check", "-", "--html=\(page)", "--allow-empty"], stdin: "")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: page))
    }

    @Test func oneJPEGIsOneTypeInTheSummaryWhateverTheSDKCallsIt() throws {
        let photo = server.url("/media/photo.jpg")
        let lines = [
            sdkPayload(#""notti_image_url": "\#(photo)", "notification_id": "n-1""#),
            sdkPayload(#""ab": {"att": {"url": "\#(photo)?b", "type": "jpeg"}}"#),
        ]
        let result = try CLI.run(
            ["check", "-", "--sdk", "auto", "--cacert", Paths.testCA, "--out", Paths.temporaryFolder().path],
            stdin: lines.joined(separator: "\n") + "\n")
        #expect(result.status == 0, "\(result.stdout)")
        #expect(result.stdout.contains("OK   jpg 418 B"))
        #expect(!result.stdout.contains("jpeg 418 B"), "\(result.stdout)")
    }

    @Test func mergedJUnitTimeIsTheChecksNotTheMerges() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lines = (0..<4).map { payload(url: server.url("/slow/400/u/junit-time-\($0)/media/logo.png")) }
        let input = folder.appendingPathComponent("in.jsonl")
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: input)
        var files: [String] = []
        var shardSeconds = 0.0
        for shard in 1...2 {
            let result = try CLI.run(
                ["check", input.path, "--shard", "\(shard)/2", "--jobs", "1", "--format", "json", "--cacert", Paths.testCA, "--out", folder.path])
            let file = folder.appendingPathComponent("shard-\(shard).json")
            try Data(result.stdout.utf8).write(to: file)
            files.append(file.path)
            let summary = try #require(OutFolder.summary(ofJSONLines: result.stdout))
            shardSeconds += (summary["timings"] as? [String: Any])?["seconds"] as? Double ?? 0
        }
        #expect(shardSeconds >= 1.6, "each shard fetched two slow URLs one after the other")
        let merged = try CLI.run(["merge", "--format", "junit"] + files)
        let time = try #require(merged.stdout.firstMatch(of: /<testsuites [^>]* time="([0-9.]+)"/)).1
        #expect(abs((Double(time) ?? 0) - shardSeconds) < 0.01, "\(time) vs \(shardSeconds)")
    }

    @Test func everyRecordSaysItsPlatformAndAnAPNsPayloadIsIOSOnly() throws {
        let out = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: out) }
        let line = payload(url: server.url("/media/logo.png"))
        let json = try CLI.run(["check", "-", "--format", "json", "--cacert", Paths.testCA, "--out", out.path], stdin: line + "\n")
        let records = OutFolder.records(ofJSONLines: json.stdout)
        #expect(records.first?["platform"] as? String == "ios")
        let summary = try #require(OutFolder.summary(ofJSONLines: json.stdout))
        let platforms = try #require(summary["platforms"] as? [String: [String: Int]])
        #expect(platforms["ios"] == ["payloads": 1, "passed": 1, "failed": 0])
        #expect(platforms["android"] == ["payloads": 0, "passed": 0, "failed": 0])
        let android = try CLI.run(["check", "-", "--platform", "android", "--out", out.path], stdin: line + "\n")
        #expect(android.status == 2)
        #expect(android.stderr.hasPrefix("notti-media: check found no delivery for --platform android in -"))
        #expect(try CLI.run(["check", "-", "--platform", "android", "--allow-empty", "--out", out.path], stdin: line + "\n").status == 0)
        let process = try CLI.run(["process", "-", "--platform", "android", "--out", out.path], stdin: line)
        #expect(process.status == 2)
        #expect(process.stderr.hasPrefix("notti-media: - has no delivery for --platform android: an APNs payload goes to iOS only"))
        #expect(Paths.contents(of: out).count == 1, "only the first run's attachment")
    }

    @Test func oneIsOnePayloadNotOnePayloads() throws {
        let result = try CLI.run(["check", "-", "--out", Paths.temporaryFolder().path], stdin: payload(url: nil) + "\n")
        #expect(result.stdout.contains("checked 1 payload: 1 passed, 0 failed"), "\(result.stdout)")
    }
}

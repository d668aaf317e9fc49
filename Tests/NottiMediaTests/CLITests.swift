import Foundation
import Testing

/// The command line as users and scripts meet it: exit codes, stdout, stderr.
@Suite struct CLITests {
    @Test func versionAndHelpExitZero() throws {
        let version = try CLI.run(["--version"])
        #expect(version.status == 0)
        // The libraries as loaded: libcurl's version number alone, as curl_version_info gives it.
        #expect(version.stdout.wholeMatch(of: /notti-media \d+\.\d+\.\d+ \(libcurl \d+\.\d+\.\d+, libmagic \d+\.\d\d\)\n/) != nil, "\(version.stdout)")
        for arguments in [["--help"], ["process", "--help"], ["sniff", "--help"], ["help"]] {
            let help = try CLI.run(arguments)
            #expect(help.status == 0)
            #expect(help.stdout.contains("Usage"))
        }
    }

    @Test func helpListsEveryOptionTheParserAccepts() throws {
        let process = try CLI.run(["process", "--help"]).stdout
        for option in [
            "--report", "--out", "--timeout", "--max-bytes", "--cacert", "--connect-to", "--deny-private-networks", "--quiet",
            "--sdk", "--allow-http",
        ] {
            #expect(process.contains(option))
        }
        let check = try CLI.run(["check", "--help"]).stdout
        for option in [
            "--format", "--summary-only", "--html", "--jobs", "--shard", "--strict", "--out", "--timeout", "--max-bytes",
            "--cacert", "--connect-to", "--deny-private-networks", "--quiet", "--sdk", "--allow-http", "--allow-empty",
        ] {
            #expect(check.contains(option))
        }
        let sniff = try CLI.run(["sniff", "--help"]).stdout
        for option in ["--format", "--max-bytes", "--strict", "--quiet"] {
            #expect(sniff.contains(option))
        }
    }

    @Test(arguments: [
        (["process", "x.json", "--bogus"], "unknown option '--bogus'"),
        (["process", "x.json", "--timeout"], "--timeout expects SECONDS"),
        (["process", "x.json", "--timeout", "soon"], "--timeout expects SECONDS"),
        (["process", "x.json", "--timeout", "-1"], "--timeout expects SECONDS"),
        (["process", "x.json", "--max-bytes", "0"], "--max-bytes expects N"),
        (["process", "x.json", "--cacert", "/nonexistent/ca.pem"], "--cacert: cannot read"),
        (["process", "x.json", "--report=yes"], "--report takes no value"),
        (["process", "x.json", "--report", "--format", "text"], "does not go with --format text"),
        (["process", "x.json", "--format", "junit"], "--format expects text or json"),
        (["process"], "process expects one PAYLOAD"),
        (["process", "a.json", "b.json"], "process takes one PAYLOAD"),
        (["sniff"], "sniff expects at least one FILE"),
        (["sniff", "x", "--format", "xml"], "--format expects text or json"),
        (["frobnicate"], "unknown command 'frobnicate'"),
        ([], "no command given"),
    ])
    func usageErrorsAreOneLineAndExitTwo(arguments: [String], message: String) throws {
        let result = try CLI.run(arguments)
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix("notti-media: "))
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
    }

    @Test(arguments: [
        ("{\"aps\": {\"alert\": \"x\"},\n  \"notti_image_url\": }", ":2:22: error: invalid_payload: "),
        ("[1, 2]", ": error: invalid_payload: a JSON array is several payloads: process takes one; check (or fix) reads an array as one input per element"),
        ("", ":1:1: error: invalid_payload: empty input"),
        ("\"just a string\"", ": error: invalid_payload: a payload must be a JSON object, not a string"),
    ])
    func anInvalidPayloadIsOneFindingLineNamingTheFileAndExitsTwo(text: String, message: String) throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("bad.json")
        try Data(text.utf8).write(to: file)
        let result = try CLI.run(["process", file.path, "--out", folder.appendingPathComponent("out").path])
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix(file.path + message), "\(result.stderr)")
        #expect(result.stderr.hasSuffix("; make the payload one JSON object, as sent to APNs\n"), "the message says what to do")
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(try Data(contentsOf: file) == Data(text.utf8), "the input is never changed")
    }

    @Test func anInvalidPayloadReportSaysSo() throws {
        let result = try CLI.run(["process", "-", "--report"], stdin: "{\"aps\":")
        #expect(result.status == 2)
        #expect(result.json["outcome"] as? String == "invalid_payload")
        #expect(result.json["reason"] as? String == "invalid_payload")
        #expect(result.json["passed"] as? Bool == false)
        #expect(result.json["content"] is NSNull)
    }

    @Test func aMissingPayloadFileExitsTwo() throws {
        let result = try CLI.run(["process", "/nonexistent/payload.json"])
        #expect(result.status == 2)
        #expect(result.stderr == "notti-media: cannot read /nonexistent/payload.json: No such file or directory; check the path\n")
    }

    @Test func noMediaIsDeliveredUnchangedAndPasses() throws {
        let out = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: out) }
        let result = try CLI.run(["process", "-", "--report", "--out", out.path], stdin: payload(url: nil))
        #expect(result.status == 0)
        #expect(result.json["outcome"] as? String == "unchanged")
        #expect(result.json["reason"] as? String == "no_media")
        #expect(result.json["passed"] as? Bool == true)
        #expect(result.json["media"] is NSNull)
        #expect((result.json["diagnostics"] as? [Any])?.isEmpty == true)
        #expect(result.stderr.isEmpty)
        #expect(Paths.contents(of: out).isEmpty)
    }

    @Test(arguments: [
        ("http://cdn.example.com/photo.png", "not_https"),
        ("HTTP://cdn.example.com/photo.png", "not_https"),
        ("ftp://cdn.example.com/photo.png", "not_https"),
        ("cdn.example.com/photo.png", "invalid_url"),
        ("file://localhost/etc/hosts", "not_https"),
        ("https:///f/logo.png", "invalid_url"),
        ("https://cdn.example.com/a\tb.png", "invalid_url"),
        ("https://cdn.example.com/{{image}}.png", "unrendered_template"),
        ("", "invalid_url"),
    ])
    func urlProblemsAreFailuresWithTheirCode(url: String, reason: String) throws {
        let result = try CLI.run(["process", "-", "--report", "--out", Paths.temporaryFolder().path], stdin: payload(url: url))
        #expect(result.status == 0, "content is still delivered")
        #expect(result.json["reason"] as? String == reason)
        #expect(result.json["passed"] as? Bool == false)
        let diagnostics = result.json["diagnostics"] as? [[String: Any]] ?? []
        #expect(diagnostics.first?["code"] as? String == reason)
        #expect(diagnostics.first?["severity"] as? String == "error")
        #expect(result.stderr.contains("error: \(reason):"))
    }

    @Test func aNonStringURLIsInvalid() throws {
        let result = try CLI.run(["process", "-", "--report"], stdin: #"{"aps":{"alert":"x","mutable-content":1},"notti_image_url":42}"#)
        #expect(result.json["reason"] as? String == "invalid_url")
        #expect(result.json["media"] is NSNull)
    }

    @Test func processTextFormatAndStrict() throws {
        let server = TestServer.shared
        let out = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: out) }
        let mislabeled = payload(url: server.url("/media/photo.jpg?type=image/png"))
        let text = try CLI.run(["process", "-", "--format", "text", "--cacert", Paths.testCA, "--out", out.path], stdin: mislabeled)
        #expect(text.status == 0)
        #expect(text.stdout.hasPrefix("-: passed: attached jpg, 418 bytes: file://\(out.path)/"))
        let strict = try CLI.run(["process", "-", "--report", "--strict", "--cacert", Paths.testCA, "--out", out.path], stdin: mislabeled)
        #expect(strict.status == 0, "content is still delivered")
        #expect(strict.json["passed"] as? Bool == false)
        let failed = try CLI.run(["process", "-", "--format", "text"], stdin: payload(url: "http://x.example/a.png"))
        #expect(failed.stdout == "-: failed: delivered without media (not_https)\n")
    }

    @Test func quietPrintsNoFindings() throws {
        let result = try CLI.run(["process", "-", "--quiet"], stdin: payload(url: "http://cdn.example.com/x.png"))
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty)
        #expect(!result.stdout.isEmpty)
    }

    @Test func theSameInputGivesByteIdenticalOutputApartFromElapsed() throws {
        let server = TestServer.shared
        let out = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: out) }
        let arguments = ["process", "-", "--report", "--cacert", Paths.testCA, "--out", out.path]
        let text = payload(url: server.url("/redirect/2/media/photo.jpg?type=image/png"), extra: #", "n": 1.0"#)
        let first = try CLI.run(arguments, stdin: text).stdout
        let second = try CLI.run(arguments, stdin: text).stdout
        // Only the measured times may differ (SPEC section 5): elapsedMs and timings.
        let elapsed = try NSRegularExpression(pattern: "\"elapsedMs\": [0-9]+")
        let timings = try NSRegularExpression(pattern: "\"timings\": \\{[^}]*\\}")
        func masked(_ s: String) -> String {
            let once = elapsed.stringByReplacingMatches(in: s, range: NSRange(s.startIndex..., in: s), withTemplate: "\"elapsedMs\": 0")
            return timings.stringByReplacingMatches(in: once, range: NSRange(once.startIndex..., in: once), withTemplate: "\"timings\": {}")
        }
        #expect(!first.isEmpty)
        #expect(masked(first) == masked(second))
    }

    @Test func sigtermDuringADownloadStopsWithin1SecondExits143AndLeavesNothing() throws {
        let server = TestServer.shared
        let out = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: out) }
        let result = try CLI.run(
            ["process", "-", "--cacert", Paths.testCA, "--out", out.path],
            stdin: payload(url: server.url("/trickle"))
        ) { pid in
            Thread.sleep(forTimeInterval: 1.5)
            kill(pid, SIGTERM)
        }
        #expect(result.status == 143)
        // The spec's one second, with room for a loaded machine or a sanitizer build.
        #expect(try #require(result.secondsAfterWhileRunning) < 2)
        #expect(Paths.contents(of: out).isEmpty)
    }

    @Test func sniffReportsEachFileAsJSON() throws {
        let result = try CLI.run(["sniff", "--format", "json", Paths.medium("logo.png"), Paths.medium("badge.webp")])
        #expect(result.status == 0)
        let records = result.stdout.split(separator: "\n").map {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] ?? [:]
        }
        #expect(records.count == 2)
        #expect(records[0]["type"] as? String == "png")
        #expect(records[0]["uti"] as? String == "public.png")
        #expect(records[0]["bytes"] as? Int == 539)
        #expect(records[0]["withinIOSLimit"] as? Bool == true)
        #expect(records[0]["fallback"] as? Bool == false)
        #expect(records[1]["sniffedMime"] as? String == "image/webp")
        #expect(records[1]["type"] as? String == "jpg")
        #expect(records[1]["fallback"] as? Bool == true)
        let codes = (records[1]["diagnostics"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
        #expect(codes == ["unsupported_type"])
    }

    @Test func sniffStrictFailsOnWarningsAndAMissingFileExitsTwo() throws {
        #expect(try CLI.run(["sniff", Paths.medium("badge.webp")]).status == 0)
        #expect(try CLI.run(["sniff", "--strict", Paths.medium("badge.webp")]).status == 1)
        let missing = try CLI.run(["sniff", Paths.medium("logo.png"), "/nonexistent.png"])
        #expect(missing.status == 2)
        #expect(missing.stdout.contains("logo.png"))
        #expect(missing.stderr.contains("/nonexistent.png"))
    }

    /// sniff reads files on every core, and its lines still come out in the operands' order: the output for
    /// 60 files (media, decode fixtures, a missing file and a folder among them) is each file's own run, in turn.
    @Test func sniffOfManyFilesWritesEachInTheOperandsOrder() throws {
        let media = try FileManager.default.contentsOfDirectory(atPath: Paths.media.path).sorted().map(Paths.medium)
        let decode = try FileManager.default.contentsOfDirectory(atPath: Paths.fixtures.appendingPathComponent("decode").path)
            .sorted().filter { !$0.hasPrefix(".") }.map { Paths.fixture("decode/\($0)") }
        var files = Array((decode + media + decode.reversed()).prefix(60))
        files.insert("/nonexistent.png", at: 7)
        files.insert(Paths.media.path, at: 31)
        let together = try CLI.run(["sniff", "--format", "json"] + files)
        var stdout = "", stderr = ""
        for file in files {
            let alone = try CLI.run(["sniff", "--format", "json", file])
            stdout += alone.stdout
            stderr += alone.stderr
        }
        #expect(together.stdout == stdout)
        #expect(together.stderr == stderr)
        #expect(together.status == 2, "a missing file and a folder are usage errors")
    }

    /// SPEC 7: sniff gives the verdict process gives the same bytes: between iOS's two readings
    /// of 5 MB a warning (exit 0), over the binary one the error too_large (exit 1).
    @Test(arguments: [(1250, "exceeds_ios_limit", Int32(0)), (1260, "too_large", Int32(1))])
    func sniffJudgesAnMP3OverTheIOSAudioLimitAsProcessDoes(repeats: Int, code: String, status: Int32) throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // Real mp3 frames repeated past 5 MB: still audio/mpeg.
        let frames = try Data(contentsOf: URL(fileURLWithPath: Paths.medium("tone.mp3")))
        let path = folder.appendingPathComponent("long.mp3").path
        try Data((0..<repeats).flatMap { _ in frames }).write(to: URL(fileURLWithPath: path))
        let result = try CLI.run(["sniff", "--format", "json", path])
        let record = (try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))) as? [String: Any] ?? [:]
        #expect(record["type"] as? String == "mp3")
        #expect(record["withinIOSLimit"] as? Bool == false)
        #expect((record["diagnostics"] as? [[String: Any]])?.map { $0["code"] as? String } == [code])
        #expect(result.status == status)
        let process = try ProcessRun.fetch(TestServer.shared.url("/repeat/\(repeats)/tone.mp3"))
        #expect(process.diagnosticCodes == [code])
    }
}

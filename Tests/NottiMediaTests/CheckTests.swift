import Foundation
import FoundationXML
import Testing

/// `notti-media check` through the CLI against the loopback HTTPS server.
@Suite struct CheckTests {
    let server = TestServer.shared

    /// A path on the server whose requests are counted apart from other tests'.
    private func tagged(_ tag: String, _ route: String) -> String {
        server.url("/u/\(tag)\(route)")
    }

    private func records(_ stdout: String) -> [[String: Any]] {
        stdout.split(separator: "\n").map {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] ?? [:]
        }
    }

    private func check(
        _ arguments: [String], stdin: String? = nil, environment: [String: String] = [:],
        whileRunning: ((Int32) -> Void)? = nil
    ) throws -> CLI.Result {
        try CLI.run(
            ["check", "--cacert", Paths.testCA] + arguments, stdin: stdin, environment: environment,
            whileRunning: whileRunning)
    }

    private func writeLines(_ lines: [String], in folder: URL, name: String = "batch.jsonl") throws -> String {
        let path = folder.appendingPathComponent(name).path
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// A text-only push (no media key, no mutable-content) passes: a warning under notti, nothing under braze (SPEC 7).
    @Test func aTextOnlyPushPassesUnderEveryProfile() throws {
        let text = #"{"aps":{"alert":"Your order shipped"},"notification_id":"n-9"}"#
        let notti = try check(["-", "--out", Paths.temporaryFolder().path], stdin: text + "\n")
        #expect(notti.status == 0, "\(notti.stdout)")
        #expect(notti.stdout.hasPrefix("-:1: warning: mutable_content_missing: "), "\(notti.stdout)")
        let braze = try check(["-", "--sdk", "braze", "--out", Paths.temporaryFolder().path], stdin: text + "\n")
        #expect(braze.status == 0, "\(braze.stdout)")
        #expect(!braze.stdout.contains("mutable_content_missing"), "\(braze.stdout)")
        let withMedia = #"{"aps":{"alert":"x"},"notification_id":"n-9","notti_image_url":"\#(server.url("/media/logo.png"))"}"#
        let failing = try check(["-", "--out", Paths.temporaryFolder().path], stdin: withMedia + "\n")
        #expect(failing.status == 1)
        #expect(failing.stdout.contains("-:1: error: mutable_content_missing: "), "\(failing.stdout)")
    }

    @Test func mixedInputsAreCheckedInOrderWithSourcesNamed() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let tree = folder.appendingPathComponent("fixtures")
        try FileManager.default.createDirectory(at: tree.appendingPathComponent("nested"), withIntermediateDirectories: true)
        try Data(payload(url: server.url("/media/logo.png")).utf8).write(to: tree.appendingPathComponent("b.json"))
        try Data(payload(url: server.url("/media/photo.jpg")).utf8).write(to: tree.appendingPathComponent("a.apns"))
        try Data(payload(url: nil).utf8).write(to: tree.appendingPathComponent("nested/c.json"))
        try Data("not a payload".utf8).write(to: tree.appendingPathComponent("notes.txt"))
        let lines = try writeLines([payload(url: server.url("/media/spinner.gif")), payload(url: "http://x.example/a.png")], in: folder)
        let result = try check(
            ["--format", "json", tree.path, lines, "-"], stdin: payload(url: server.url("/media/clip.mp4")) + "\n")
        let all = records(result.stdout)
        let sources = all.dropLast().map { $0["source"] as? String ?? "?" }
        #expect(sources == [
            "\(tree.path)/a.apns", "\(tree.path)/b.json", "\(tree.path)/nested/c.json", "\(lines):1", "\(lines):2", "-:1",
        ])
        let outcomes = all.dropLast().map { $0["outcome"] as? String ?? "?" }
        #expect(outcomes == ["attached", "attached", "unchanged", "attached", "unchanged", "attached"])
        #expect(result.status == 1, "the http payload fails")
        let summary = try #require(all.last?["summary"] as? [String: Any])
        #expect(summary["payloads"] as? Int == 6)
        #expect(summary["failed"] as? Int == 1)
        #expect(summary["passed"] as? Int == 5)
    }

    @Test func aBadLineFailsAloneWithItsLineNumberWhileTheRestAreChecked() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var lines = Array(repeating: payload(url: nil), count: 3000)
        lines[1499] = "{\"aps\": {\"alert\": \"x\"}, oops}"
        let path = try writeLines(lines, in: folder)
        let result = try check(["--format", "json", path])
        let all = records(result.stdout)
        #expect(all.count == 3001)
        #expect(all[1499]["source"] as? String == "\(path):1500")
        #expect(all[1499]["outcome"] as? String == "invalid_payload")
        #expect(all[1500]["outcome"] as? String == "unchanged")
        let summary = try #require(all.last?["summary"] as? [String: Any])
        #expect(summary["failed"] as? Int == 1)
        #expect(summary["passed"] as? Int == 2999)
        #expect(result.status == 1)
    }

    @Test func eachDistinctURLIsFetchedOnceAcrossThousandsOfPayloads() throws {
        let tag = UUID().uuidString
        let urls = (0..<4).map { tagged(tag, ["/media/logo.png", "/media/photo.jpg", "/media/clip.mp4", "/status/404"][$0]) }
        let lines = (0..<2000).map { payload(url: urls[$0 % urls.count]) }
        let result = try check(["--jobs", "8", "--summary-only", "--format", "json", "-"], stdin: lines.joined(separator: "\n"))
        let counts = try server.requestCounts().filter { $0.key.hasPrefix("/u/\(tag)/") }
        #expect(counts.count == 4)
        #expect(counts.values.allSatisfy { $0 == 1 }, "\(counts)")
        let summary = try #require(records(result.stdout).last?["summary"] as? [String: Any])
        let media = try #require(summary["media"] as? [[String: Any]])
        #expect(media.count == 4)
        #expect(media.allSatisfy { $0["payloads"] as? Int == 500 })
        #expect(media.first?["verdict"] as? String == "http_error", "worst first")
        #expect(media.first?["httpStatus"] as? Int == 404)
        #expect((summary["diagnostics"] as? [String: Any])?["http_error"] as? Int == 500)
    }

    @Test func outputOrderIsInputOrderWithSlowAndFastMediaMixed() throws {
        let tag = UUID().uuidString
        let lines = (0..<64).map { index in
            payload(url: index % 4 == 0
                ? tagged(tag, "/slow/\(300 + index * 5)/media/logo.png?n=\(index)")
                : tagged(tag, "/media/photo.jpg?n=\(index)"))
        }
        let result = try check(["--jobs", "8", "--format", "json", "-"], stdin: lines.joined(separator: "\n"))
        let sources = records(result.stdout).dropLast().map { $0["source"] as? String ?? "?" }
        #expect(sources == (1...64).map { "-:\($0)" })
        let types = records(result.stdout).dropLast().map { ($0["media"] as? [String: Any])?["type"] as? String ?? "?" }
        #expect(types == (0..<64).map { $0 % 4 == 0 ? "png" : "jpg" })
        #expect(result.status == 0)
    }

    @Test func junitParsesAsXMLWithTheRightCounts() throws {
        let lines = [
            payload(url: server.url("/media/logo.png")), payload(url: server.url("/status/500")),
            payload(url: "http://x.example/a.png"), payload(url: server.url("/media/badge.webp")),
            "{\"aps\": <b>&</b>}",
        ]
        let result = try check(["--format", "junit", "-"], stdin: lines.joined(separator: "\n"))
        #expect(result.status == 1)
        let document = try XMLDocument(xmlString: result.stdout)
        let suite = try #require(try document.nodes(forXPath: "//testsuite").first as? XMLElement)
        #expect(suite.attribute(forName: "tests")?.stringValue == "5")
        #expect(suite.attribute(forName: "failures")?.stringValue == "3")
        let cases = try document.nodes(forXPath: "//testcase")
        #expect(cases.count == 5)
        let failureTypes = try document.nodes(forXPath: "//testcase/failure/@type").compactMap(\.stringValue)
        #expect(failureTypes == ["http_error", "not_https", "invalid_payload"])
        #expect((cases[4] as? XMLElement)?.attribute(forName: "name")?.stringValue == "-:5")
    }

    @Test func strictFailsWarningsAndExitCodesFollow() throws {
        let webp = payload(url: server.url("/media/badge.webp"))
        #expect(try check(["-"], stdin: webp).status == 0)
        let strict = try check(["--strict", "--format", "json", "-"], stdin: webp)
        #expect(strict.status == 1)
        #expect(records(strict.stdout).first?["passed"] as? Bool == false)
        #expect(try check(["-"], stdin: payload(url: server.url("/media/logo.png"))).status == 0)
        let missing = try check(["/nonexistent/fixtures"])
        #expect(missing.status == 2)
        #expect(missing.stderr == "notti-media: no such file or folder: /nonexistent/fixtures\n")
    }

    @Test func textFormatPrintsFailingPayloadsAndASummary() throws {
        let lines = [payload(url: server.url("/media/logo.png")), payload(url: server.url("/status/404"))]
        let result = try check(["-"], stdin: lines.joined(separator: "\n"))
        let output = result.stdout.split(separator: "\n").map(String.init)
        #expect(output.first == "-:2: error: http_error: the server answered HTTP 404; fix the link, or make the server answer 200 with the media")
        #expect(output.contains("checked 2 payloads: 1 passed, 1 failed"))
        #expect(output.contains { $0.contains("FAIL http_error (HTTP 404)") && $0.contains("/status/404") })
        #expect(result.stderr.isEmpty, "no progress line when stderr is not a terminal")
    }

    @Test func shardsAreDisjointAndCoverTheInput() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try writeLines((0..<100).map { _ in payload(url: nil) }, in: folder)
        var seen: [String] = []
        for index in 1...3 {
            let result = try check(["--shard", "\(index)/3", "--format", "json", path])
            let sources = records(result.stdout).dropLast().compactMap { $0["source"] as? String }
            #expect(sources.first == "\(path):\(index)")
            seen += sources
        }
        #expect(seen.count == 100)
        #expect(Set(seen).count == 100)
    }

    @Test func withoutOutNothingStaysOnDiskWithOutAttachmentsAreKept() throws {
        let temporary = Paths.temporaryFolder()
        let out = Paths.temporaryFolder()
        defer {
            try? FileManager.default.removeItem(at: temporary)
            try? FileManager.default.removeItem(at: out)
        }
        let lines = [payload(url: server.url("/media/logo.png")), payload(url: server.url("/media/photo.jpg"))].joined(separator: "\n")
        let withoutOut = try check(["-"], stdin: lines, environment: ["TMPDIR": temporary.path])
        #expect(withoutOut.status == 0, "\(withoutOut.stdout)\(withoutOut.stderr)")
        #expect(Paths.contents(of: temporary).isEmpty)
        #expect(try check(["--out", out.path, "-"], stdin: lines).status == 0)
        #expect(Paths.contents(of: out).count == 2)
    }

    @Test(arguments: [
        (["check"], "check expects at least one PATH"),
        (["check", "-", "--jobs", "0"], "--jobs expects N"),
        (["check", "-", "--shard", "4/3"], "--shard expects I/N"),
        (["check", "-", "--format", "xml"], "--format expects text, json, junit, github, sarif or codequality"),
        (["check", "-", "--format", "junit", "--summary-only"], "--summary-only goes with"),
        (["check", "-", "-"], "standard input (-) can be read only once"),
    ])
    func usageErrors(arguments: [String], message: String) throws {
        let result = try CLI.run(arguments)
        #expect(result.status == 2)
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }

    @Test func sigintDuringALongCheckPrintsWhatFinishedAndAnInterruptedSummary() throws {
        let lines = [payload(url: server.url("/media/logo.png"))]
            + (0..<20).map { payload(url: server.url("/trickle?n=\($0)")) }
        let result = try check(["--format", "json", "--timeout", "30", "-"], stdin: lines.joined(separator: "\n")) { pid in
            Thread.sleep(forTimeInterval: 1.5)
            kill(pid, SIGINT)
        }
        #expect(result.status == 130)
        #expect(try #require(result.secondsAfterWhileRunning) < 2)
        let all = records(result.stdout)
        #expect(all.first?["source"] as? String == "-:1")
        let summary = try #require(all.last?["summary"] as? [String: Any])
        #expect(summary["interrupted"] as? Bool == true)
        #expect(summary["payloads"] as? Int == 1)
    }
}

/// The progress line is for a person at a terminal: `script` gives the tool one.
@Suite struct ProgressLineTests {
    let server = TestServer.shared

    @Test func aTerminalGetsALiveProgressLineAndQuietSilencesIt() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("slow.jsonl").path
        let lines = (0..<6).map { payload(url: server.url("/slow/150/media/logo.png?n=\($0)")) }
        try Data(lines.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: path))
        func onTerminal(_ extra: String) throws -> String {
            let command = "\(CLI.binary) check --jobs 1 --cacert \(Paths.testCA) \(extra) \(path)"
            return try CLI.run(executable: "/usr/bin/script", ["-qefc", command, "/dev/null"]).stdout
        }
        let shown = try onTerminal("")
        #expect(shown.contains("\u{1B}[Kchecked "), "a progress line was drawn")
        #expect(shown.contains("checked 6 payloads: 6 passed, 0 failed"))
        let quiet = try onTerminal("--quiet")
        #expect(!quiet.contains("\u{1B}[K"))
        #expect(quiet.contains("checked 6 payloads: 6 passed, 0 failed"))
    }
}

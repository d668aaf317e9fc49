import Foundation
import Testing

/// What a new user broke in an afternoon (issue 31), from the outside: each test
/// failed before its fix.
@Suite struct RoundThreeTextTests {
    let server = TestServer.shared

    @Test func theManPageKeepsMergesWholeSentenceAndSetsCodeInBold() throws {
        let man = try CLI.run(["--generate", "man"]).stdout
        #expect(man.contains("(one FILE per shard, in any order) into exactly what one unsharded check prints:"))
        let prose = man.split(separator: "\n").filter { !$0.hasPrefix(".") }
        #expect(!prose.contains { $0.contains("`") }, "roff prints backticks as they are")
        #expect(man.contains("\\fBcheck \\-\\-format json \\-\\-shard I/N\\fR"))
    }

    @Test func processHelpSaysItTakesSendRequests() throws {
        let help = try CLI.run(["process", "--help"]).stdout
        #expect(!help.contains("one APNs payload"))
        #expect(help.contains("FCM send request"))
        #expect(help.contains("keyed by platform"))
    }

    @Test func sniffHelpNamesStandardInputAndItsOwnQuiet() throws {
        let help = try CLI.run(["sniff", "--help"]).stdout
        #expect(help.hasPrefix("Usage: notti-media sniff FILE...|- [options]"))
        let quiet = help.split(separator: "\n").first { $0.contains("--quiet") } ?? ""
        #expect(!quiet.contains("process") && !quiet.contains("progress"), "\(quiet)")
        #expect(try CLI.run(["--help"]).stdout.contains("notti-media sniff FILE...|- [options]"))
    }

    @Test(arguments: [(["--versoin"], "did you mean '--version'?"), (["check", "--versoin"], "did you mean '--version'?"),
                      (["--hepl"], "did you mean '--help'?")])
    func aMistypedFlagGetsADidYouMean(arguments: [String], suggestion: String) throws {
        let result = try CLI.run(arguments)
        #expect(result.status == 2)
        #expect(result.stderr.contains(suggestion), "\(result.stderr)")
    }

    @Test func anEndlessStreamIsMoreThanTheReadBoundNotOneByteOver() throws {
        // 60,000,000 zero bytes on standard input: read to one byte past 52,428,800, then judged.
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let zeros = folder.appendingPathComponent("zeros")
        try Data(count: 60_000_000).write(to: zeros)
        let result = try CLI.run(executable: "/bin/sh", ["-c", "\"$0\" sniff - < \"$1\"", CLI.binary, zeros.path])
        #expect(result.status == 1)
        #expect(result.stdout.contains("more than 52428800 bytes"))
        #expect(!result.stdout.contains("52428801"))
    }

    @Test func aLargeRegularFileIsItsOwnSizeNotMoreThanTheReadBound() throws {
        // The same 60,000,000 bytes as a file: stat gives its size, so the lines say it (as --format json's bytes does).
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let zeros = folder.appendingPathComponent("zeros")
        #expect(FileManager.default.createFile(atPath: zeros.path, contents: nil))
        let handle = try FileHandle(forWritingTo: zeros)
        try handle.truncate(atOffset: 60_000_000)
        try handle.close()
        let result = try CLI.run(["sniff", zeros.path])
        #expect(result.status == 1)
        #expect(result.stdout.contains(", 60000000 bytes, over the iOS image limit"), "\(result.stdout)")
        #expect(result.stdout.contains("error: too_large: 60000000 bytes is over the SDK's 10485760-byte limit"))
        #expect(!result.stdout.contains("more than"))
    }

    @Test func aStreamCutAtTheReadBoundIsNotDecodedAWholeFileIs() throws {
        // A real JPEG padded with zeros to 60,000,000 bytes decodes whole; on standard input it is read to one
        // byte past the bound, and decoding that cut would blame the file for the tool's own stop.
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let padded = folder.appendingPathComponent("padded.jpg")
        var bytes = try Data(contentsOf: URL(fileURLWithPath: Paths.medium("photo.jpg")))
        bytes.append(Data(count: 60_000_000 - bytes.count))
        try bytes.write(to: padded)
        func sniff(_ command: String) throws -> [String: Any] {
            let result = try CLI.run(executable: "/bin/sh", ["-c", command, CLI.binary, padded.path])
            #expect(result.status == 1)
            return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        }
        let codes = { (record: [String: Any]) in (record["diagnostics"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String } }
        let stream = try sniff("\"$0\" sniff --format json - < \"$1\"")
        #expect(stream["decoded"] is NSNull)
        #expect(codes(stream) == ["too_large", "too_large"])
        let file = try sniff("\"$0\" sniff --format json \"$1\"")
        let decoded = try #require(file["decoded"] as? [String: Any])
        #expect(decoded["format"] as? String == "jpeg" && decoded["complete"] as? Bool == true, "\(decoded)")
        #expect(codes(file) == ["too_large", "too_large"])
    }

    @Test func oneSignalsCapHoldsAnnouncedLengthsOnlyAStreamRunsToIOSsLimit() throws {
        let text = #"{"aps": {"alert": "x", "mutable-content": 1}, "att": {"a": "\#(server.url("/endless?filename=a.jpg"))"}}"#
        let run = try ProcessRun.fetch("", ["--sdk", "onesignal"], payloadText: text)
        #expect(run.reason == "too_large")
        let message = (run.report["diagnostics"] as? [[String: Any]])?.first?["message"] as? String ?? ""
        #expect(message.contains("larger than iOS's largest attachment limit (52428800 bytes, video)"), "\(message)")
        #expect(((run.media["limits"] as? [String: Any])?["maxBytes"] as? Int) == nil, "several entries: media is a list")
        let announced = try ProcessRun.fetch(
            "", ["--sdk", "onesignal"],
            payloadText: #"{"aps": {"alert": "x", "mutable-content": 1}, "att": {"a": "\#(server.url("/bytes/50000001?filename=a.jpg"))"}}"#)
        let refusal = (announced.report["diagnostics"] as? [[String: Any]])?.first?["message"] as? String ?? ""
        #expect(refusal.contains("announced a Content-Length over OneSignal's 50000000-byte limit"), "\(refusal)")
    }
}

@Suite struct RoundThreeSummaryTests {
    let server = TestServer.shared

    @Test func oneProfilesSummaryRowsAreAlignedWithNoTrailingSpaces() throws {
        // One URL, judged by Notti (attached) and by Braze with another type hint (attached as png, a mismatch).
        let url = server.url("/media/photo.jpg")
        let lines = [payload(url: url), #"{"aps": {"alert": "x", "mutable-content": 1}, "ab": {"att": {"url": "\#(url)", "type": "png"}}}"#]
        let result = try CLI.run(["check", "-", "--sdk", "auto", "--summary-only", "--cacert", Paths.testCA, "--out", Paths.temporaryFolder().path],
                                 stdin: lines.joined(separator: "\n") + "\n")
        let rows = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(rows.contains { $0.contains("BY PROFILE") }, "\(result.stdout)")
        #expect(!rows.contains { $0.hasSuffix(" ") }, "\(result.stdout)")
        let counts = rows.filter { $0.contains(" payload") && $0.hasPrefix("  ") && !$0.contains(": ") || $0.contains("    braze:") || $0.contains("    notti:") }
        let columns = Set(counts.compactMap { $0.range(of: " payload")?.lowerBound.utf16Offset(in: $0) })
        #expect(columns.count == 1, "every count ends in one column: \(result.stdout)")
    }

    @Test func oneRecordIsOnePayload() throws {
        let result = try CLI.run(["check", "-", "--summary-only", "--out", Paths.temporaryFolder().path], stdin: payload(url: nil) + "\n")
        #expect(result.stdout.hasPrefix("checked 1 payload: 1 passed, 0 failed"))
    }

    @Test func anInterruptedCheckSaysHowManyFinishedPastAStuckRecord() throws {
        // The first payload's media takes a minute; the 40 after it finish at once.
        let lines = [payload(url: server.url("/slow/60000/media/logo.png"))] + (0..<40).map { payload(url: server.url("/media/logo.png?n=\($0)")) }
        let result = try CLI.run(["check", "-", "--summary-only", "--cacert", Paths.testCA, "--out", Paths.temporaryFolder().path],
                                 stdin: lines.joined(separator: "\n") + "\n") { pid in
            Thread.sleep(forTimeInterval: 3)
            kill(pid, SIGINT)
        }
        #expect(result.status == 130)
        #expect(result.stdout.hasPrefix("interrupted after 0 payloads (and 40 more finished out of order"), "\(result.stdout)")
    }
}

@Suite struct RoundThreePreviewTests {
    let server = TestServer.shared

    /// The page for `lines` (static HTML: the cards are in the file, the script only filters them).
    private func page(_ lines: [String], _ extra: [String] = []) throws -> String {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let page = folder.appendingPathComponent("report.html")
        _ = try CLI.run(["check", "-", "--cacert", Paths.testCA, "--html", page.path, "--out", folder.appendingPathComponent("out").path] + extra,
                        stdin: lines.joined(separator: "\n") + "\n")
        return try String(contentsOf: page, encoding: .utf8)
    }

    private func braze(_ url: String, type: String) -> String {
        #"{"aps": {"alert": "x", "mutable-content": 1}, "ab": {"att": {"url": "\#(url)", "type": "\#(type)"}}}"#
    }

    @Test func downloadedCountsEveryByteFetchedWhateverTheVerdict() throws {
        // 539 B attached, and 5,266,800 B of mp3 downloaded whole that iOS then refuses (over 5 MiB).
        let html = try page([payload(url: server.url("/media/logo.png")), payload(url: server.url("/repeat/1260/tone.mp3"))])
        // Labelled apart from the bytes phones pull at send time (SPEC 10).
        #expect(html.contains("<div><dt>downloaded by this check</dt><dd>5.3 MB</dd></div>"), "\(html.components(separatedBy: "downloaded").dropFirst().first?.prefix(60) ?? "")")
    }

    @Test func errorsOnlyLeavesNoNoteAboutPassedPushesItWasAskedToDrop() throws {
        let lines = [payload(url: server.url("/status/404")), payload(url: server.url("/media/logo.png")), payload(url: nil)]
        let html = try page(lines, ["--errors-only"])
        #expect(!html.contains("Left out"))
        #expect(!html.contains("failed pushes (--errors-only)"))
        #expect(html.components(separatedBy: "<li class=\"card ").count - 1 == 1)
    }

    @Test func plainLinesSayWhatThePhoneDoes() throws {
        let html = try page([
            braze(server.url("/media/badge.webp"), type: "webp"),
            payload(url: server.url("/media/badge.webp")),
            payload(url: server.url("/media/photo.jpg?type=image/png")),
        ], ["--sdk", "auto"])
        let cards = Array(html.components(separatedBy: "<li class=\"card ").dropFirst())
        #expect(cards.count == 3)
        #expect(cards[0].contains("The phone cannot show this kind of file"), "Braze: iOS refuses a .webp attachment")
        #expect(!cards[0].contains("may not be able"))
        #expect(cards[1].contains("The phone may not be able to show this kind of file"), "Notti attaches it as jpg: it may not render")
        #expect(cards[2].contains("the SDK reads the bytes, so the phone still shows it"))
        #expect(!cards[2].contains("may show it wrong"))
    }

    @Test func theIDRowIsTheSDKsOwnKey() throws {
        let oneSignal = #"{"aps": {"alert": "x", "mutable-content": 1}, "custom": {"i": "os-42"}, "att": {"a": "\#(server.url("/media/logo.png"))"}}"#
        let html = try page([oneSignal, braze(server.url("/media/logo.png"), type: "png")], ["--sdk", "auto"])
        let cards = Array(html.components(separatedBy: "<li class=\"card ").dropFirst())
        #expect(cards[0].contains("<dt>custom.i</dt><dd><code>os-42</code></dd>"))
        #expect(!cards[0].contains("<dt>notification_id</dt>"))
        #expect(!cards[1].contains("<dt>notification_id</dt>"), "Braze's id is not notification_id")
    }

    @Test func audioAttachedAsAPictureIsNotDrawnAsABrokenImage() throws {
        let html = try page([braze(server.url("/media/tone.mp3"), type: "jpg")], ["--sdk", "braze"])
        let card = html.components(separatedBy: "<li class=\"card ").dropFirst().first ?? ""
        #expect(card.contains("audio/mpeg attached as .jpg: nothing to draw"))
        #expect(!card.contains("<img"))
    }
}

/// SPEC 9: disk use is bounded by the distinct content placed plus the downloads in
/// flight, not by the number of URLs, and nothing is left after SIGKILL.
@Suite(.serialized) struct RoundThreeDiskTests {
    let server = TestServer.shared
    /// One 948,000-byte PNG under 300 personalised URLs.
    static let urls = 300
    static let pictureBytes = 948_000

    private func campaign(_ tag: String) -> String {
        (0..<Self.urls).map { payload(url: server.url("/u/\(tag)/padded/\(Self.pictureBytes)/logo.png?uid=\($0)")) }.joined(separator: "\n") + "\n"
    }

    /// The bytes a running tool holds in `out`: the files listed there, and the files with no
    /// name it holds open there (a working file made with O_TMPFILE shows as `out/#N (deleted)`).
    private static func bytesHeld(by pid: Int32, in out: URL) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8), !status.contains("State:\tZ") else { return nil }
        var total = 0
        for name in Paths.contents(of: out) {
            var info = stat()
            if lstat(out.appendingPathComponent(name).path, &info) == 0 { total += Int(info.st_size) }
        }
        for descriptor in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? [] {
            let link = "/proc/\(pid)/fd/\(descriptor)"
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: link),
                  target.hasPrefix(out.path + "/"), target.hasSuffix("(deleted)") else { continue }
            var info = stat()
            if stat(link, &info) == 0 { total += Int(info.st_size) }
        }
        return total
    }

    @Test func personalisedURLsOfOnePictureHoldOneCopy() throws {
        let out = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: out) }
        nonisolated(unsafe) var peak = 0
        let result = try CLI.run(["check", "-", "--summary-only", "--cacert", Paths.testCA, "--jobs", "8", "--out", out.path],
                                 stdin: campaign(UUID().uuidString)) { pid in
            while let held = Self.bytesHeld(by: pid, in: out) {
                peak = max(peak, held)
                usleep(10_000)
            }
        }
        #expect(result.status == 0, "\(result.stdout)")
        #expect(result.stdout.hasPrefix("checked 300 payloads: 300 passed"))
        // 3 × the distinct content plus --jobs × --max-bytes (Notti's 10 MiB): 300 copies would be 284 MB.
        let bound = 3 * Self.pictureBytes + 8 * 10_485_760
        #expect(peak > 0 && peak < bound, "peak \(peak) bytes, bound \(bound)")
        #expect(Paths.contents(of: out).count == 1, "one attachment: \(Paths.contents(of: out))")
    }

    @Test func aSIGKILLMidRunLeavesOnlyPlacedAttachments() throws {
        let out = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: out) }
        // Slow answers, so the kill comes while downloads are in flight.
        let tag = UUID().uuidString
        let lines = (0..<64).map { payload(url: server.url("/u/\(tag)/slow/\($0 % 4 == 0 ? 0 : 4000)/padded/\(Self.pictureBytes)/photo.jpg?uid=\($0)")) }
        let result = try CLI.run(["check", "-", "--cacert", Paths.testCA, "--jobs", "8", "--out", out.path],
                                 stdin: lines.joined(separator: "\n") + "\n") { pid in
            Thread.sleep(forTimeInterval: 2)
            kill(pid, SIGKILL)
        }
        #expect(result.status == 9 || result.status == 137 || result.status == -9, "killed: \(result.status)")
        let left = Paths.contents(of: out)
        #expect(left.allSatisfy { $0.range(of: #"^[0-9a-f]{64}\.jpg$"#, options: .regularExpression) != nil }, "\(left)")
        #expect(left.count <= 1)
    }
}

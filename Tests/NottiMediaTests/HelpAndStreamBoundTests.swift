import Foundation
import Testing

/// What the help, the man page and the usage errors say, and how far `sniff` reads a
/// stream or a large file (SPEC 6, 9, 12).
@Suite struct HelpAndStreamBoundTests {
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

    /// Issue 61 (item 9): check reads gzip'd inputs and JSON array files; its --help and the reference say so
    /// (both named .jsonl and .ndjson alone).
    @Test func checkHelpNamesEveryInputItReads() throws {
        let help = try CLI.run(["check", "--help"]).stdout.replacingOccurrences(of: "\n", with: " ")
        let reference = try String(contentsOf: Paths.packageRoot.appendingPathComponent("docs/reference.md"), encoding: .utf8)
            .replacingOccurrences(of: "\n  ", with: " ")
        for text in [help, reference] {
            let says = ["one JSON array", "json.gz", "jsonl.gz", "ndjson.gz"].filter { text.contains($0) }
            #expect(says.count == 4, "names only \(says)")
        }
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

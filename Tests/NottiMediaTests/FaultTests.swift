import Foundation
import Testing

/// Fault injection through the CLI: every way a run can fail or be stopped
/// ends with its exit status and message, leaves no partial file or temporary
/// folder, and changes nothing it did not create (a snapshot of the folders
/// around it, taken before and after, must be equal).
@Suite struct FaultTests {
    let server = TestServer.shared

    /// A payload whose media URL is counted under its own tag on the server.
    private func tagged(_ route: String = "/media/logo.png") -> (payload: String, tag: String) {
        let tag = UUID().uuidString
        return (payload(url: server.url("/u/\(tag)\(route)")), tag)
    }

    private func requests(_ tag: String) throws -> Int {
        try server.requestCounts().filter { $0.key.hasPrefix("/u/\(tag)/") }.values.reduce(0, +)
    }

    /// A folder holding a user's file in a subfolder, as `$TMPDIR` did when the old fallback deleted it.
    private func userFolder() throws -> URL {
        let folder = Paths.temporaryFolder()
        let sub = folder.appendingPathComponent("sub")
        try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
        try Data("the user's own notes\n".utf8).write(to: sub.appendingPathComponent("user.txt"))
        return folder
    }

    // MARK: Temporary folder

    @Test func aTMPDIRThatIsAFileStopsCheckBeforeAnyDownloadAndRemovesNothing() throws {
        let folder = try userFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("sub/user.txt")
        let before = TreeSnapshot(folder)
        let (text, tag) = tagged()
        let result = try CLI.run(["check", "--cacert", Paths.testCA, "-"], stdin: text, environment: ["TMPDIR": file.path])
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("notti-media: cannot create a temporary folder in \(file.path): Not a directory"), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(TreeSnapshot(folder) == before)
        #expect(try requests(tag) == 0, "nothing was downloaded")
    }

    @Test(.enabled(if: Unprivileged.available, "needs setpriv to run the binary as nobody"))
    func anUnwritableTMPDIRKeepsTheUsersFileAndExitsTwoBeforeAnyDownload() throws {
        // The reproduction of the bug: an unwritable TMPDIR with a file in a subfolder.
        let (text, tag) = tagged()
        let (result, temporary, unchanged) = try Unprivileged.runBesideReadOnlyFolder({ folder in
            let sub = folder.appendingPathComponent("sub")
            try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
            try Data("the user's own notes\n".utf8).write(to: sub.appendingPathComponent("user.txt"))
        }, stdin: text) { folder in
            (["check", "--cacert", Paths.testCA, "-"], ["TMPDIR": folder.path])
        }
        #expect(result.status == 2)
        #expect(result.stderr == "notti-media: cannot create a temporary folder in \(temporary): Permission denied (set TMPDIR to a folder you can write)\n")
        #expect(unchanged, "the user's file is still there")
        #expect(try requests(tag) == 0, "nothing was downloaded")
    }

    // MARK: Output failures

    @Test(arguments: [
        ["process", "-"],
        ["process", "-", "--report"],
        ["check", "-", "--format", "json"],
        ["check", "-", "--format", "junit"],
        ["check", "-"],
    ])
    func devFullAsStdoutIsAnErrorExitTwo(arguments: [String]) throws {
        let temporary = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: temporary) }
        let out = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: out) }
        let result = try CLI.run(
            arguments + ["--cacert", Paths.testCA, "--out", out.path], stdin: payload(url: server.url("/media/logo.png")),
            environment: ["TMPDIR": temporary.path], output: .path("/dev/full"))
        #expect(result.status == 2)
        #expect(result.stderr.hasSuffix("notti-media: cannot write the output (stdout): No space left on device\n"), "\(result.stderr)")
        #expect(Paths.contents(of: temporary).isEmpty, "no temporary folder is left")
        #expect(!Paths.contents(of: out).contains { $0.hasSuffix(".part") })
    }

    @Test func sniffToDevFullIsAnErrorExitTwo() throws {
        let result = try CLI.run(["sniff", Paths.medium("logo.png")], output: .path("/dev/full"))
        #expect(result.status == 2)
        #expect(result.stderr == "notti-media: cannot write the output (stdout): No space left on device\n")
    }

    /// The process ends with `_exit`, which flushes nothing: `--version` and `--help` flush and check their output too.
    @Test(arguments: [["--version"], ["--help"], ["check", "--help"]])
    func versionAndHelpToDevFullAreAnErrorExitTwo(arguments: [String]) throws {
        let result = try CLI.run(arguments, output: .path("/dev/full"))
        #expect(result.status == 2)
        #expect(result.stderr == "notti-media: cannot write the output (stdout): No space left on device\n")
    }

    @Test func aClosedPipeEndsCheckWith141SilentlyAndLeavesNothing() throws {
        let out = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: out) }
        // More output than a pipe holds, so the writer meets the closed pipe while media still download.
        let (temporary, input, scratch) = try campaign(then: (0..<8).map { payload(url: server.url("/slow/300/media/logo.png?n=\($0)")) })
        defer { [temporary, scratch].forEach { try? FileManager.default.removeItem(at: $0) } }
        let result = try CLI.run(
            executable: "/bin/bash",
            ["-c", "\"$0\" \"$@\" | head -n 1; exit ${PIPESTATUS[0]}", CLI.binary,
             "check", "--format", "json", "--cacert", Paths.testCA, "--out", out.path, input.path],
            environment: ["TMPDIR": scratch.path, "XDG_CACHE_HOME": CLI.cacheHome.path])
        #expect(result.status == 141)
        #expect(result.stdout.hasPrefix("{\"source\":\"\(input.path):1\""))
        #expect(result.stderr.isEmpty, "a closed pipe is not an error to report: \(result.stderr)")
        #expect(Paths.contents(of: scratch).isEmpty, "no notti-media-check-* folder is left")
        #expect(!Paths.contents(of: out).contains { $0.hasSuffix(".part") })
    }

    @Test(.enabled(if: CLI.sanitizer != "thread", "ThreadSanitizer's runtime faults under RLIMIT_FSIZE"))
    func aFailedWriteOfTheHTMLPageSaysSoAndTheVerdict() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let page = folder.appendingPathComponent("report.html")
        // A file size limit stands in for a disk that fills up during the run: the page's cards
        // outgrow it, while the summary on stdout stays under it.
        let result = try CLI.run(
            executable: "/usr/bin/prlimit",
            ["--fsize=2000", "--", CLI.binary, "check", "--summary-only", "--html", page.path,
             "--out", folder.appendingPathComponent("out").path, "-"],
            stdin: (0..<40).map { payload(url: "http://cdn.example.com/\($0).png") }.joined(separator: "\n"),
            environment: ["XDG_CACHE_HOME": CLI.cacheHome.path, "TMPDIR": folder.path])
        #expect(result.status == 2)
        #expect(result.stderr.contains("notti-media: "), "\(result.stderr)")
        #expect(result.stderr.contains("File too large"), "\(result.stderr)")
        #expect(result.stderr.contains("(the check itself finished: 0 passed, 40 failed)"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: page.path), "no half page")
        #expect(!Paths.contents(of: folder).contains { $0.hasPrefix(".notti-media") || $0.hasPrefix("notti-media-check-") })
    }

    // MARK: A full disk for attachments (RLIMIT_FSIZE stands in for it, without privileges)

    @Test(
        .enabled(if: CLI.sanitizer != "thread", "ThreadSanitizer's runtime faults under RLIMIT_FSIZE"),
        arguments: [["process", "-", "--report"], ["check", "--format", "json", "-"]])
    func aFullDiskForAttachmentsIsWriteErrorExitTwoAndLeavesNoPartialFile(arguments: [String]) throws {
        let out = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: out) }
        let result = try CLI.run(
            executable: "/usr/bin/prlimit",
            ["--fsize=100000", "--", CLI.binary] + arguments + ["--cacert", Paths.testCA, "--out", out.path],
            stdin: payload(url: server.url("/bytes/300000")), environment: ["XDG_CACHE_HOME": CLI.cacheHome.path])
        #expect(result.status == 2)
        #expect(result.stdout.contains("\"reason\": \"write_error\"") || result.stdout.contains("\"reason\":\"write_error\""), "\(result.stdout)")
        #expect(result.stderr.contains("File too large"), "\(result.stderr)")
        #expect(Paths.contents(of: out).isEmpty, "the partial file was removed")
    }

    // MARK: Signals at each stage

    static let signals: [Int32] = [SIGHUP, SIGINT, SIGPIPE, SIGTERM]

    @Test(arguments: signals)
    func aSignalWhileReadingStdinEndsCheckWith128PlusN(signal: Int32) throws {
        let temporary = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: temporary) }
        let result = try CLI.run(["check", "-"], environment: ["TMPDIR": temporary.path], holdStdinOpen: true) { pid in
            Thread.sleep(forTimeInterval: 0.7)
            kill(pid, signal)
        }
        #expect(result.status == 128 + signal)
        #expect(try #require(result.secondsAfterWhileRunning) < 1.5)
        #expect(Paths.contents(of: temporary).isEmpty)
    }

    @Test(arguments: signals)
    func aSignalWhileProcessWaitsOnStdinStopsWithinASecond(signal: Int32) throws {
        let result = try CLI.run(["process", "-"], holdStdinOpen: true) { pid in
            Thread.sleep(forTimeInterval: 0.7)
            kill(pid, signal)
        }
        #expect(result.status == 128 + signal)
        #expect(try #require(result.secondsAfterWhileRunning) < 1.5)
        #expect(result.stdout.isEmpty)
    }

    @Test(arguments: signals)
    func aSignalWhileDownloadingRemovesPartialFilesAndTheTemporaryFolder(signal: Int32) throws {
        let temporary = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: temporary) }
        let out = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: out) }
        let lines = (0..<4).map { payload(url: server.url("/trickle?n=\($0)")) }
        let result = try CLI.run(
            ["check", "--format", "junit", "--cacert", Paths.testCA, "--out", out.path, "-"], stdin: lines.joined(separator: "\n"),
            environment: ["TMPDIR": temporary.path]
        ) { pid in
            Thread.sleep(forTimeInterval: 1)
            kill(pid, signal)
        }
        #expect(result.status == 128 + signal)
        #expect(try #require(result.secondsAfterWhileRunning) < 1.5)
        #expect(Paths.contents(of: out).isEmpty, "partial downloads were removed")
        #expect(Paths.contents(of: temporary).isEmpty, "the scratch folder and its spool were removed")
    }

    @Test(arguments: signals)
    func aSignalWhileWritingToAStalledPipeStillEndsWithinTheGracePeriod(signal: Int32) throws {
        let (temporary, input, scratch) = try campaign()
        defer { [temporary, scratch].forEach { try? FileManager.default.removeItem(at: $0) } }
        let result = try CLI.run(
            ["check", "--format", "json", "--html", temporary.appendingPathComponent("page.html").path, input.path],
            environment: ["TMPDIR": scratch.path], output: .unreadPipe
        ) { pid in
            Thread.sleep(forTimeInterval: 1)
            kill(pid, signal)
        }
        #expect(result.status == 128 + signal)
        #expect(try #require(result.secondsAfterWhileRunning) < 1.8)
        #expect(Paths.contents(of: scratch).isEmpty, "the scratch folder was removed")
        #expect(!Paths.contents(of: temporary).contains { $0.hasPrefix(".notti-media") || $0 == "page.html" })
    }

    @Test func aSecondSIGINTEndsTheRunAtOnce() throws {
        let (temporary, input, scratch) = try campaign()
        defer { [temporary, scratch].forEach { try? FileManager.default.removeItem(at: $0) } }
        // A writer blocked on a pipe nobody reads would wait for the grace period; a second Ctrl-C does not.
        let result = try CLI.run(
            ["check", "--format", "json", input.path], environment: ["TMPDIR": scratch.path], output: .unreadPipe
        ) { pid in
            Thread.sleep(forTimeInterval: 1)
            kill(pid, SIGINT)
            Thread.sleep(forTimeInterval: 0.1)
            kill(pid, SIGINT)
        }
        #expect(result.status == 130)
        #expect(try #require(result.secondsAfterWhileRunning) < 0.7, "well before the 1 s grace period")
        #expect(Paths.contents(of: scratch).isEmpty)
    }

    /// A campaign in a new folder: 3,000 payloads naming plain-http URLs (refused at once, nothing downloaded)
    /// and then `more` lines; with a new empty folder for the run's TMPDIR. The caller removes both folders.
    private func campaign(then more: [String] = []) throws -> (folder: URL, input: URL, scratch: URL) {
        let folder = Paths.temporaryFolder()
        let lines = (0..<3000).map { payload(url: "http://cdn.example.com/\($0).png") } + more
        let input = folder.appendingPathComponent("campaign.jsonl")
        try Data(lines.joined(separator: "\n").utf8).write(to: input)
        return (folder, input, Paths.temporaryFolder())
    }

    // MARK: Checked before work starts

    @Test func aCACertFileWithNoCertificateIsAUsageErrorBeforeAnyRequest() throws {
        let (text, tag) = tagged()
        let result = try CLI.run(["check", "--cacert", "/etc/passwd", "-"], stdin: text)
        #expect(result.status == 2)
        #expect(result.stderr == "notti-media: --cacert expects FILE, a PEM file of CA certificates, but '/etc/passwd' holds no PEM certificate\n")
        #expect(try requests(tag) == 0)
    }

    @Test func outOnAFileIsRefusedAndTheFileIsUnchanged() throws {
        let folder = try userFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("sub/user.txt")
        let before = TreeSnapshot(folder)
        let (text, tag) = tagged()
        for command in [["process", "-"], ["check", "-"]] {
            let result = try CLI.run(command + ["--cacert", Paths.testCA, "--out", file.path], stdin: text)
            #expect(result.status == 2)
            #expect(result.stderr == "notti-media: --out \(file.path) is a file, not a folder\n")
        }
        #expect(TreeSnapshot(folder) == before)
        #expect(try requests(tag) == 0)
    }

    @Test(.enabled(if: Unprivileged.available, "needs setpriv to run the binary as nobody"))
    func outOnAReadOnlyFolderIsRefused() throws {
        let (text, tag) = tagged()
        let (result, folder, unchanged) = try Unprivileged.runBesideReadOnlyFolder({ folder in
            try Data("keep".utf8).write(to: folder.appendingPathComponent("user.txt"))
        }, stdin: text) { folder in
            (["process", "-", "--cacert", Paths.testCA, "--out", folder.path], [:])
        }
        #expect(result.status == 2)
        #expect(result.stderr == "notti-media: --out: cannot write in \(folder): Permission denied\n")
        #expect(unchanged)
        #expect(try requests(tag) == 0)
    }

    @Test func aSymlinkPlantedAtTheDefaultFolderIsRefusedNotFollowed() throws {
        let cache = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: cache) }
        let elsewhere = try userFolder()
        defer { try? FileManager.default.removeItem(at: elsewhere) }
        try FileManager.default.createDirectory(at: cache.appendingPathComponent("notti-media"), withIntermediateDirectories: true)
        let link = cache.appendingPathComponent("notti-media/attachments")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: elsewhere)
        let before = (TreeSnapshot(cache), TreeSnapshot(elsewhere))
        let (text, tag) = tagged()
        for command in [["process", "-"], ["check", "-"]] {
            let result = try CLI.run(command + ["--cacert", Paths.testCA], stdin: text, environment: ["XDG_CACHE_HOME": cache.path])
            #expect(result.status == 2)
            #expect(result.stderr == "notti-media: refusing \(link.path): it is a symbolic link, not a folder of yours (remove it, or pass --out DIR)\n")
        }
        #expect(TreeSnapshot(cache) == before.0)
        #expect(TreeSnapshot(elsewhere) == before.1)
        #expect(try requests(tag) == 0)
    }

    @Test(.enabled(if: geteuid() == 0, "needs root to give a folder to another user"))
    func aDefaultFolderOwnedBySomeoneElseIsRefused() throws {
        let cache = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: cache) }
        let tool = cache.appendingPathComponent("notti-media")
        try FileManager.default.createDirectory(at: tool.appendingPathComponent("attachments"), withIntermediateDirectories: true)
        chown(tool.path, Unprivileged.uid, Unprivileged.uid)
        let before = TreeSnapshot(cache)
        let (text, tag) = tagged()
        let result = try CLI.run(["process", "-", "--cacert", Paths.testCA], stdin: text, environment: ["XDG_CACHE_HOME": cache.path])
        #expect(result.status == 2)
        #expect(result.stderr == "notti-media: refusing \(tool.path): it is owned by user \(Unprivileged.uid), not by you (user 0); pass --out DIR\n")
        #expect(TreeSnapshot(cache) == before)
        #expect(try requests(tag) == 0)
    }

    @Test func htmlOnAnExistingFolderIsAUsageError() throws {
        let folder = try userFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let before = TreeSnapshot(folder)
        let (text, tag) = tagged()
        let result = try CLI.run(["check", "--cacert", Paths.testCA, "--html", folder.appendingPathComponent("sub").path, "-"], stdin: text)
        #expect(result.status == 2)
        #expect(result.stderr == "notti-media: --html expects a FILE to write, but \(folder.appendingPathComponent("sub").path) is a folder: the tool writes only regular files it creates\n")
        #expect(TreeSnapshot(folder) == before)
        #expect(try requests(tag) == 0)
    }

    // MARK: Finding no payload

    @Test func aCheckThatFindsNoPayloadExitsTwoUnlessAllowed() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("not a payload".utf8).write(to: folder.appendingPathComponent("notes.txt"))
        try FileManager.default.createDirectory(at: folder.appendingPathComponent(".git"), withIntermediateDirectories: true)
        try Data(payload(url: nil).utf8).write(to: folder.appendingPathComponent(".git/hidden.json"))
        try Data(payload(url: nil).utf8).write(to: folder.appendingPathComponent(".hidden.json"))
        let empty = try CLI.run(["check", folder.path])
        #expect(empty.status == 2)
        #expect(empty.stdout.isEmpty)
        #expect(empty.stderr == "notti-media: check found no payload in \(folder.path) (folders are walked for *.json, *.apns, "
            + "*.jsonl and *.ndjson, hidden entries skipped); pass --allow-empty to accept that\n")
        let allowed = try CLI.run(["check", "--allow-empty", folder.path])
        #expect(allowed.status == 0)
        #expect(allowed.stdout == "checked 0 payloads: 0 passed, 0 failed\n")
        let stdin = try CLI.run(["check", "-"], stdin: "")
        #expect(stdin.status == 2)
        // Standard input is not a folder: the message says it was empty, not how folders are walked.
        #expect(stdin.stderr == "notti-media: check found no payload on standard input (-): it was empty; pipe JSON Lines in, "
            + "one payload a line, or pass --allow-empty to accept that\n")
    }

    @Test func aFolderWalkReadsJSONLinesFilesAndSkipsHiddenEntries() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data([payload(url: nil), payload(url: nil)].joined(separator: "\n").utf8).write(to: folder.appendingPathComponent("b.jsonl"))
        try Data(payload(url: nil).utf8).write(to: folder.appendingPathComponent("a.json"))
        try Data(payload(url: nil).utf8).write(to: folder.appendingPathComponent("c.ndjson"))
        try Data(payload(url: nil).utf8).write(to: folder.appendingPathComponent(".d.json"))
        let result = try CLI.run(["check", "--format", "json", folder.path])
        let sources = result.stdout.split(separator: "\n").compactMap {
            ((try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any])?["source"] as? String
        }
        #expect(sources == ["\(folder.path)/a.json", "\(folder.path)/b.jsonl:1", "\(folder.path)/b.jsonl:2", "\(folder.path)/c.ndjson:1"])
        #expect(result.status == 0)
    }

    // MARK: The private default folder

    @Test func withoutOutAttachmentsGoToThePrivateCacheFolderAndStayAfterTheRun() throws {
        let cache = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: cache) }
        let result = try CLI.run(
            ["check", "--format", "json", "--cacert", Paths.testCA, "-"], stdin: payload(url: server.url("/media/logo.png")),
            environment: ["XDG_CACHE_HOME": cache.appendingPathComponent("fresh").path])
        #expect(result.status == 0)
        let folder = cache.appendingPathComponent("fresh/notti-media/attachments")
        let record = (try JSONSerialization.jsonObject(with: Data(result.stdout.split(separator: "\n")[0].utf8))) as? [String: Any]
        let content = try #require(record?["content"] as? [String: Any])
        let url = try #require((content["attachments"] as? [[String: Any]])?.first?["url"] as? String)
        #expect(url.hasPrefix("file://\(folder.path)/"))
        #expect(FileManager.default.fileExists(atPath: try #require(URL(string: url)).path), "the record's file still exists")
        for private_ in [folder, folder.deletingLastPathComponent()] {
            var info = stat()
            stat(private_.path, &info)
            #expect(info.st_mode & 0o777 == 0o700)
        }
        // HOME is the fallback when XDG_CACHE_HOME is not set.
        let home = try CLI.run(
            ["process", "-", "--format", "text", "--cacert", Paths.testCA], stdin: payload(url: server.url("/media/logo.png")),
            environment: ["XDG_CACHE_HOME": "", "HOME": cache.path])
        #expect(home.stdout.contains("file://\(cache.path)/.cache/notti-media/attachments/"), "\(home.stdout)")
    }
}

import Foundation
import Testing

/// Round two of "nothing lost, nothing hangs" (SPEC 9): closed standard
/// descriptors, unreadable operands, the read bound, and the tests' own homes.
extension FaultTests {
    /// Runs `notti-media ARGS` through `sh -c` with `redirection` (`<&-`, `>&-`).
    private func shell(_ arguments: String, _ redirection: String, stdin: String? = nil, environment: [String: String] = [:]) throws -> CLI.Result {
        try CLI.run(executable: "/bin/sh", ["-c", "exec '\(CLI.binary)' \(arguments) \(redirection)"], stdin: stdin, environment: environment)
    }

    @Test(arguments: ["process -", "check -", "sniff -", "merge -", "check --format json -", "process --report -"])
    func aClosedStdinIsBadFileDescriptorExitTwoAtOnce(command: String) throws {
        let result = try shell(command, "<&-")
        #expect(result.status == 2)
        #expect(result.stderr == "notti-media: cannot read -: Bad file descriptor; standard input is closed: pipe or redirect the input in\n")
        #expect(result.seconds < 2, "nothing waits on a descriptor of the tool's own")
        #expect(result.stdout.isEmpty)
    }

    @Test func aClosedStdoutIsAFailedWriteExitTwo() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("p.json")
        try Data(payload(url: nil).utf8).write(to: file)
        for command in ["--version", "process \(file.path) --out \(folder.path)", "check \(file.path) --out \(folder.path)",
                        "sniff \(Paths.packageRoot.path)/Tests/Fixtures/media/logo.png"] {
            let result = try shell(command, ">&-")
            #expect(result.status == 2, "\(command)")
            #expect(result.stderr.hasSuffix("notti-media: cannot write the output (stdout): Bad file descriptor\n"), "\(command): \(result.stderr)")
            #expect(result.seconds < 2)
        }
        #expect(Set(Paths.contents(of: folder)) == ["p.json"], "nothing else was made")
    }

    @Test func maxBytesBeyondTheGlobalReadBoundIsAUsageErrorBeforeAnyDownload() throws {
        for command in ["process", "check", "sniff"] {
            let result = try CLI.run([command, "-", "--max-bytes", "10G"], stdin: "")
            #expect(result.status == 2)
            #expect(result.stderr == "notti-media: --max-bytes expects at most 52428800 bytes (iOS's largest attachment limit; no download reads past it), not '10G'\n")
        }
        #expect(try CLI.run(["sniff", "--max-bytes", "52428800", "\(Paths.packageRoot.path)/Tests/Fixtures/media/logo.png"]).status == 0)
    }

    @Test func aMissingFileSaysTheSystemsReasonAndAFixInEveryCommand() throws {
        for command in ["process", "check", "sniff"] {
            let result = try CLI.run([command, "/nonexistent/p.json"])
            #expect(result.status == 2)
            #expect(result.stderr.contains("cannot read /nonexistent/p.json: No such file or directory; check the path")
                || result.stderr.contains("no such file or folder: /nonexistent/p.json"), "\(command): \(result.stderr)")
        }
    }

    @Test(.enabled(if: Unprivileged.available, "needs setpriv to run the binary as nobody"))
    func anUnreadablePayloadOrFolderIsSaidSoNotCountedAsBadJSON() throws {
        let folder = Paths.temporaryFolder()
        defer { Unprivileged.remove(folder.appendingPathComponent("locked")); try? FileManager.default.removeItem(at: folder) }
        chmod(folder.path, 0o755)
        let secret = folder.appendingPathComponent("secret.json")
        try Data(payload(url: nil).utf8).write(to: secret)
        chmod(secret.path, 0o600)
        let locked = folder.appendingPathComponent("locked")
        try FileManager.default.createDirectory(at: locked, withIntermediateDirectories: true)
        try Data(payload(url: nil).utf8).write(to: locked.appendingPathComponent("inside.json"))
        chmod(locked.path, 0o700)
        let out = Unprivileged.writableFolder()
        defer { try? FileManager.default.removeItem(at: out) }
        let before = TreeSnapshot(folder)
        let check = try Unprivileged.run(["check", folder.path, "--format", "json", "--out", out.path], environment: [:])
        #expect(check.status == 2)
        #expect(check.stderr.contains("notti-media: cannot read \(secret.path): Permission denied; make it readable by this user (chmod)"))
        #expect(check.stderr.contains("notti-media: cannot list the folder \(locked.path): Permission denied; make it readable"))
        #expect(!check.stdout.contains("invalid_payload"), "never reported as bad JSON")
        #expect(check.stdout.contains(#""payloads":0"#), "neither is counted as a payload")
        let process = try Unprivileged.run(["process", secret.path, "--out", out.path], environment: [:])
        #expect(process.status == 2)
        #expect(process.stderr.hasPrefix("notti-media: cannot read \(secret.path): Permission denied; "))
        let sniff = try Unprivileged.run(["sniff", secret.path], environment: [:])
        #expect(sniff.status == 2)
        #expect(sniff.stderr.hasPrefix("notti-media: cannot read \(secret.path): Permission denied; "))
        #expect(TreeSnapshot(folder) == before)
    }

    @Test func sniffReadsStandardInputAsFileDoes() throws {
        let result = try shell("sniff - --format json", "< '\(Paths.packageRoot.path)/Tests/Fixtures/media/logo.png'")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.json["path"] as? String == "-")
        #expect(result.json["sniffedMime"] as? String == "image/png")
    }

    /// `sniff -` copies standard input to a file of its own and removes it, on every way out.
    @Test(arguments: ["sniff -", "sniff - --format json", "sniff - /nonexistent.png"])
    func sniffOfStandardInputLeavesNothingInTMPDIR(arguments: String) throws {
        let tmp = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: tmp) }
        let result = try shell(
            "\(arguments)", "< '\(Paths.packageRoot.path)/Tests/Fixtures/media/logo.png'", environment: ["TMPDIR": tmp.path])
        #expect(result.stdout.contains("image/png"), "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: tmp.path) == [])
    }

    @Test func testsNeverTouchTheUsersOwnCache() throws {
        let real = URL(fileURLWithPath: NSHomeDirectory()).appendingPathComponent(".cache/notti-media")
        let before = TreeSnapshot(real)
        // No --out, no environment of its own: the default folder, under the tests' private homes.
        let result = try CLI.run(["process", "-", "--cacert", Paths.testCA], stdin: payload(url: server.url("/media/logo.png")))
        #expect(result.status == 0)
        #expect(TreeSnapshot(real) == before, "the user's own cache is as it was")
        #expect(!Paths.contents(of: CLI.cacheHome.appendingPathComponent("notti-media/attachments")).isEmpty)
    }
}

/// SPEC 9: the files the tool writes are regular files it creates, and the
/// page's media folder holds exactly what the page references.
@Suite struct WrittenFileTests {
    let server = TestServer.shared

    @Test func aLinkFIFODeviceOrFolderAtHTMLOrCacheIsAUsageErrorAndUntouched() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let fifo = folder.appendingPathComponent("fifo").path
        mkfifo(fifo, 0o644)
        let target = folder.appendingPathComponent("target.txt")
        try Data("keep me\n".utf8).write(to: target)
        let link = folder.appendingPathComponent("link").path
        symlink(target.path, link)
        let before = TreeSnapshot(folder)
        let tag = UUID().uuidString
        let line = payload(url: server.url("/u/\(tag)/media/logo.png"))
        let cases: [(String, String, String)] = [
            ("html", "/dev/full", "a device"), ("html", fifo, "a FIFO"), ("html", link, "a symbolic link"), ("html", folder.path, "a folder"),
            ("cache", "/dev/null", "a device"), ("cache", fifo, "a FIFO"), ("cache", link, "a symbolic link"), ("cache", folder.path, "a folder"),
        ]
        for (option, path, kind) in cases {
            let result = try CLI.run(["check", "-", "--cacert", Paths.testCA, "--\(option)", path, "--out", folder.path], stdin: line)
            #expect(result.status == 2, "--\(option) \(path)")
            #expect(result.stderr == "notti-media: --\(option) expects a FILE to write, but \(path) is \(kind): the tool writes only regular files it creates\n")
        }
        let missing = try CLI.run(["check", "-", "--cache", "/nonexistent/verdicts.sqlite"], stdin: line)
        #expect(missing.status == 2)
        #expect(missing.stderr == "notti-media: --cache: the folder /nonexistent does not exist (the cache file is created, its folder is "
            + "not: a mistyped path would start an empty cache); create it, or name a file in a folder that does\n")
        #expect(TreeSnapshot(folder) == before, "nothing written through them or beside them")
        #expect(!FileManager.default.fileExists(atPath: "/dev/null-journal") && !FileManager.default.fileExists(atPath: "/dev/full-media"))
        #expect(try server.requestCounts().keys.filter { $0.contains(tag) }.isEmpty, "before any download")
    }

    @Test func thePagesMediaFolderHoldsExactlyWhatThePageReferences() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let page = folder.appendingPathComponent("report.html").path
        let media = folder.appendingPathComponent("report-media")
        func run(_ names: [String]) throws -> CLI.Result {
            try CLI.run(
                ["check", "-", "--cacert", Paths.testCA, "--html", page, "--out", folder.appendingPathComponent("out").path],
                stdin: names.map { payload(url: server.url("/media/\($0)")) }.joined(separator: "\n"))
        }
        _ = try run(["logo.png", "photo.jpg", "spinner.gif"])
        #expect(Paths.contents(of: media).count == 6, "each picture's thumbnail and expanded view")
        _ = try run(["photo.jpg"])
        let html = try String(contentsOfFile: page, encoding: .utf8)
        let left = Paths.contents(of: media)
        let photo = try Paths.sha256(ofFile: Paths.fixture("media/photo.jpg"))
        #expect(Set(left) == ["\(photo)-ios-thumbnail.jpg", "\(photo)-ios-expanded.jpg"], "\(left)")
        #expect(left.allSatisfy { html.contains("report-media/\($0)") })
        // Anything the tool did not put there: the folder is refused, never cleaned.
        try Data("notes\n".utf8).write(to: media.appendingPathComponent("notes.txt"))
        let refused = try run(["logo.png"])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("holds notes.txt, which the tool did not put there"))
        #expect(Set(Paths.contents(of: media)) == Set(left + ["notes.txt"]))
    }
}

/// SPEC 6: at most 8 connections to one host at once (`--host-connections`), whatever `--jobs`.
@Suite struct HostConnectionTests {
    /// The most connections a server of its own saw open at once during one check of `urls` distinct slow URLs.
    private func mostOpenAtOnce(_ arguments: [String], urls: Int) throws -> (Int, CLI.Result) {
        let own = TestServer()
        let lines = (0..<urls).map { payload(url: own.url("/slow/150/u/\($0)/media/logo.png")) }
        let result = try CLI.run(
            ["check", "-", "--cacert", Paths.testCA, "--out", Paths.temporaryFolder().path] + arguments,
            stdin: lines.joined(separator: "\n") + "\n")
        let stats = try CLI.curl(own.url("/connections"))
        let counts = try JSONSerialization.jsonObject(with: Data(stats.utf8)) as? [String: Int] ?? [:]
        // The stats request itself is one of the open connections.
        return ((counts["max"] ?? 0), result)
    }

    @Test func jobs64OpensAtMostEightConnectionsToOneHost() throws {
        let (most, result) = try mostOpenAtOnce(["--jobs", "64"], urls: 48)
        #expect(result.status == 0, "\(result.stdout)")
        #expect(result.stdout.contains("checked 48 payloads: 48 passed"))
        #expect(most <= 8, "\(most) connections at once")
        #expect(most >= 4, "the downloads still ran side by side (\(most))")
    }

    @Test func hostConnectionsChangesTheBound() throws {
        let (most, result) = try mostOpenAtOnce(["--jobs", "16", "--host-connections", "2"], urls: 12)
        #expect(result.status == 0)
        #expect(most <= 2, "\(most) connections at once")
        let invalid = try CLI.run(["check", "-", "--host-connections", "0"], stdin: "")
        #expect(invalid.status == 2)
        #expect(invalid.stderr == "notti-media: --host-connections expects N, connections to one host at once, from 1 to 256, not '0'\n")
    }
}

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

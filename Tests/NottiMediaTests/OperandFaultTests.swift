import Foundation
import Testing

/// "Nothing lost, nothing hangs" (SPEC 9) at the edges of the input: closed standard
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

    /// `sniff -` copies standard input to a file of its own and removes it, on every way out, and nothing
    /// else: the user's own file in TMPDIR stays.
    @Test(arguments: ["sniff -", "sniff - --format json", "sniff - /nonexistent.png"])
    func sniffOfStandardInputLeavesNothingInTMPDIR(arguments: String) throws {
        let tmp = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: tmp) }
        try Data("mine".utf8).write(to: tmp.appendingPathComponent("keep.txt"))
        let result = try shell(
            "\(arguments)", "< '\(Paths.packageRoot.path)/Tests/Fixtures/media/logo.png'", environment: ["TMPDIR": tmp.path])
        #expect(result.stdout.contains("image/png"), "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: tmp.path) == ["keep.txt"])
        #expect(try String(contentsOf: tmp.appendingPathComponent("keep.txt"), encoding: .utf8) == "mine")
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

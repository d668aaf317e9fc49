import Foundation
import Glibc

/// Runs the built `notti-media` binary as a user would, and captures what they see.
enum CLI {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
        /// How long the process ran.
        var seconds: Double
        /// How long it ran on after `whileRunning` returned (after a test's signal, say).
        var secondsAfterWhileRunning: Double?

        /// stdout parsed as one JSON object.
        var json: [String: Any] {
            (try? JSONSerialization.jsonObject(with: Data(stdout.utf8))) as? [String: Any] ?? [:]
        }
    }

    /// The binary SwiftPM built beside this test bundle.
    static let binary: String = {
        let besideTests = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let candidates = [
            besideTests.appendingPathComponent("notti-media").path,
            besideTests.deletingLastPathComponent().appendingPathComponent("notti-media").path,
            Paths.packageRoot.appendingPathComponent(".build/debug/notti-media").path,
        ]
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            fatalError("notti-media binary not found in \(candidates)")
        }
        return found
    }()

    /// The sanitizer the binary was built with (`scripts/sanitize` says so), if any.
    static let sanitizer = ProcessInfo.processInfo.environment["NOTTI_MEDIA_SANITIZER"]

    /// The default attachment folder's cache home for every test run of the binary,
    /// so tests never write into the user's own `~/.cache`.
    static let cacheHome: URL = Paths.temporaryFolder()
    /// A home of the tests' own for every child (the binary, and what runs it: `script`,
    /// `setpriv`), so nothing a test starts can reach the user's own home.
    static let home: URL = Paths.temporaryFolder()

    /// Where the child's standard output goes.
    enum Output {
        /// A file read back into `Result.stdout`.
        case capture
        /// This path, e.g. `/dev/full`.
        case path(String)
        /// A pipe nobody reads: writes block once its buffer is full.
        case unreadPipe
    }

    /// Runs `notti-media arguments...` with `stdin` as its standard input.
    /// - Parameters:
    ///   - holdStdinOpen: stdin is a pipe that stays open (after `stdin`) until the child exits.
    ///   - whileRunning: called with the child's pid once it has started.
    static func run(
        _ arguments: [String], stdin: String? = nil, environment: [String: String] = [:],
        output: Output = .capture, holdStdinOpen: Bool = false, whileRunning: ((Int32) -> Void)? = nil
    ) throws -> Result {
        return try run(
            executable: binary, arguments, stdin: stdin, environment: environment, output: output,
            holdStdinOpen: holdStdinOpen, whileRunning: whileRunning)
    }

    static func run(
        executable: String, _ arguments: [String], stdin: String? = nil, environment: [String: String] = [:],
        output: Output = .capture, holdStdinOpen: Bool = false, whileRunning: ((Int32) -> Void)? = nil
    ) throws -> Result {
        let environment = ProcessInfo.processInfo.environment
            .merging(["XDG_CACHE_HOME": cacheHome.path, "HOME": home.path, "TMPDIR": Paths.toolsTemporaryFolder.path]) { $1 }
            .merging(environment) { $1 }
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let outPath = folder.appendingPathComponent("stdout").path
        let errPath = folder.appendingPathComponent("stderr").path
        let inPath = folder.appendingPathComponent("stdin").path
        // The child's ends of its pipes are closed here once it has started; ours once it has ended
        // (until then, stdin held open, or standard output nobody reads).
        var childEnds: [Int32] = []
        var ourEnds: [Int32] = []
        defer { (childEnds + ourEnds).forEach { close($0) } }
        let input: ChildProcess.Descriptor
        if holdStdinOpen {
            let ends = try PipeEnds()
            childEnds.append(ends.read)
            ourEnds.append(ends.write)
            _ = Array((stdin ?? "").utf8).withUnsafeBytes { write(ends.write, $0.baseAddress, $0.count) }
            input = .inherited(ends.read)
        } else {
            _ = FileManager.default.createFile(atPath: inPath, contents: Data((stdin ?? "").utf8))
            input = .file(inPath, flags: O_RDONLY)
        }
        let standardOutput: ChildProcess.Descriptor
        switch output {
        case .capture: standardOutput = .file(outPath, flags: O_WRONLY | O_CREAT | O_TRUNC)
        case .path(let path): standardOutput = .file(path, flags: O_WRONLY)
        case .unreadPipe:
            let ends = try PipeEnds()
            childEnds.append(ends.write)
            ourEnds.append(ends.read)
            standardOutput = .inherited(ends.write)
        }
        let start = Date()
        let child = try ChildProcess.spawn(
            executable, arguments, environment: environment,
            stdin: input, stdout: standardOutput, stderr: .file(errPath, flags: O_WRONLY | O_CREAT | O_TRUNC))
        childEnds.forEach { close($0) }
        childEnds = []
        var callbackReturned: Date?
        if let whileRunning {
            whileRunning(child.pid)
            callbackReturned = Date()
        }
        let status = child.wait()
        let seconds = Date().timeIntervalSince(start)
        let captured = if case .capture = output { try String(contentsOfFile: outPath, encoding: .utf8) } else { "" }
        return Result(
            status: status, stdout: captured, stderr: try String(contentsOfFile: errPath, encoding: .utf8),
            seconds: seconds, secondsAfterWhileRunning: callbackReturned.map { Date().timeIntervalSince($0) })
    }

    /// A trusted GET through the system's curl, for the server's own endpoints.
    static func curl(_ url: String) throws -> String {
        try run(executable: "/usr/bin/curl", ["-s", "--cacert", Paths.testCA, url]).stdout
    }
}

/// A payload clean of every payload lint (alert, mutable-content, notification_id),
/// with `notti_image_url` set to `url`.
func payload(url: String?, extra: String = "") -> String {
    let media = url.map { ", \"notti_image_url\": \(jsonString($0))" } ?? ""
    return "{\"aps\": {\"alert\": {\"title\": \"Sale\", \"body\": \"50% off\"}, \"mutable-content\": 1}, "
        + "\"notification_id\": \"n-1\"\(media)\(extra)}"
}

func jsonString(_ text: String) -> String {
    String(decoding: try! JSONSerialization.data(withJSONObject: text, options: [.fragmentsAllowed, .withoutEscapingSlashes]), as: UTF8.self)
}

import Foundation
import Glibc
import Testing

/// A process the tests start, by `posix_spawn`, and wait for, by `waitpid` on its own pid with a
/// deadline: not Foundation's `Process`. On Linux, `Process` learns that a child ended when a socket
/// the child inherits reaches end of file, and then calls a blocking `waitpid` on one manager thread
/// shared by every child: a child (or anything it started) that closes that socket early or keeps
/// it open holds every other test's wait with it. A CI run hung that way for its whole 90 minutes;
/// here a child that outlives its deadline is killed with its process group and the test fails,
/// naming the command and what its threads were doing.
struct ChildProcess {
    /// What one of the child's standard descriptors is.
    enum Descriptor {
        /// This file, opened with these flags in the child.
        case file(String, flags: Int32)
        /// A descriptor of this process's (one end of a pipe), duplicated into the child.
        case inherited(Int32)
    }

    let pid: pid_t
    /// The command, for a failure's message.
    private let command: [String]

    /// Starts `executable` with `arguments`, the whole `environment`, and the three descriptors; no other
    /// descriptor of the test process reaches it. Like `Process`, the child leads a process group of its own.
    static func spawn(
        _ executable: String, _ arguments: [String], environment: [String: String],
        stdin: Descriptor, stdout: Descriptor, stderr: Descriptor
    ) throws -> ChildProcess {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (target, descriptor) in [(Int32(0), stdin), (1, stdout), (2, stderr)] {
            switch descriptor {
            case .file(let path, let flags): posix_spawn_file_actions_addopen(&actions, target, path, flags, 0o644)
            case .inherited(let source): posix_spawn_file_actions_adddup2(&actions, source, target)
            }
        }
        // Other tests open pipes and files on other threads all the time: none of them may leak into this child.
        guard closeFrom(&actions, 3) == 0 else { throw SpawnError(message: "cannot close descriptors for \(executable)") }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        let command = [executable] + arguments
        var argv: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) } + [nil]
        var envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let failed = posix_spawn(&pid, executable, &actions, &attributes, &argv, &envp)
        guard failed == 0 else {
            throw SpawnError(message: "cannot start \(executable): \(String(cString: strerror(failed)))")
        }
        return ChildProcess(pid: pid, command: command)
    }

    /// Waits for the child to end and returns what `Process.terminationStatus` would: the exit status,
    /// or the signal that ended it. Past `seconds`, records a test failure with the child's threads,
    /// kills its process group and returns SIGKILL's number.
    func wait(seconds: Double = 300) -> Int32 {
        if let status = waitStatus(within: seconds) {
            // -1: waitpid failed (no such child), as before.
            guard status != -1 else { return -1 }
            let signal = status & 0x7f
            return signal == 0 ? (status >> 8) & 0xff : signal
        }
        let threads = Self.threads(of: pid)
        kill(-pid, SIGKILL)
        reap()
        Issue.record("\(command.joined(separator: " ")) ran over \(Int(seconds)) s and was killed; its threads:\n\(threads)")
        return SIGKILL
    }

    /// The child's wait status once it ends (-1 when waitpid fails), or nil when it is still running after `seconds`.
    private func waitStatus(within seconds: Double) -> Int32? {
        let started = Date()
        var status: Int32 = 0
        while true {
            let waited = waitpid(pid, &status, WNOHANG)
            if waited == pid { return status }
            if waited < 0 && errno != EINTR { return -1 }
            if Date().timeIntervalSince(started) > seconds { return nil }
            // A quarter of a millisecond to start with (most children end within tens of milliseconds),
            // then at most every 5 ms: the tests that time a child measure whole tenths of seconds.
            usleep(Date().timeIntervalSince(started) < 1 ? 250 : 5_000)
        }
    }

    /// Kills the child (its group is the caller's business) and collects it.
    private func reap() {
        kill(pid, SIGKILL)
        var status: Int32 = 0
        _ = waitpid(pid, &status, 0)
    }

    /// What the child's threads are doing, from gdb when it is installed (a hang's only clue).
    private static func threads(of pid: pid_t) -> String {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("notti-media-tests-gdb-\(pid).txt").path
        guard access("/usr/bin/gdb", X_OK) == 0,
              let gdb = try? spawn(
                "/usr/bin/gdb", ["-p", String(pid), "-batch", "-ex", "thread apply all bt"],
                environment: ProcessInfo.processInfo.environment,
                stdin: .file("/dev/null", flags: O_RDONLY), stdout: .file(log, flags: O_WRONLY | O_CREAT | O_TRUNC),
                stderr: .file("/dev/null", flags: O_WRONLY))
        else { return "(gdb is not installed)" }
        defer { unlink(log) }
        if gdb.waitStatus(within: 60) == nil { gdb.reap() }
        return (try? String(contentsOfFile: log, encoding: .utf8)) ?? "(gdb wrote nothing)"
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34), which Swift's Glibc module does not declare.
    private static func closeFrom(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ lowest: Int32) -> Int32 {
        typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else {
            return -1
        }
        return unsafeBitCast(symbol, to: AddCloseFrom.self)(actions, lowest)
    }
}

struct SpawnError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// A pipe whose ends close on exec (every child starts without descriptors above 2 anyway).
struct PipeEnds {
    let read: Int32
    let write: Int32

    init() throws {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw SpawnError(message: "pipe: \(String(cString: strerror(errno)))") }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        read = ends[0]
        write = ends[1]
    }
}

import Foundation
import Glibc
import Testing

/// The tests' own way of running a program (`ChildProcess`): what CI relies on not to hang.
@Suite struct ChildProcessTests {
    @Test func aChildPastItsDeadlineIsKilledWithItsGroupAndTheTestIsTold() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let pidFile = folder.appendingPathComponent("grandchild").path
        let child = try ChildProcess.spawn(
            "/bin/sh", ["-c", "sleep 300 & echo $! > \"$0\"; wait", pidFile], environment: [:],
            stdin: .file("/dev/null", flags: O_RDONLY), stdout: .file("/dev/null", flags: O_WRONLY),
            stderr: .file("/dev/null", flags: O_WRONLY))
        var status: Int32 = 0
        withKnownIssue {
            status = child.wait(seconds: 1)
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("/bin/sh -c sleep 300") && $0.rawValue.contains("ran over 1 s") }
        }
        #expect(status == SIGKILL)
        // The sleep it started went with it: its group was killed.
        let grandchild = try #require(Int32(String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        let deadline = Date().addingTimeInterval(5)
        while Self.isAlive(grandchild) && Date() < deadline { usleep(10_000) }
        #expect(!Self.isAlive(grandchild))
    }

    @Test func aChildHasOnlyItsThreeStandardDescriptors() throws {
        // A descriptor of this process's that would be inherited by a plain fork and exec.
        var leaky: [Int32] = [-1, -1]
        #expect(pipe(&leaky) == 0)
        defer { leaky.forEach { close($0) } }
        let result = try CLI.run(executable: "/bin/sh", ["-c", "ls /proc/$$/fd"])
        #expect(result.status == 0)
        #expect(result.stdout == "0\n1\n2\n")
    }

    @Test func theStatusIsTheExitStatusOrTheSignal() throws {
        #expect(try CLI.run(executable: "/bin/sh", ["-c", "exit 3"]).status == 3)
        let killed = try CLI.run(executable: "/bin/sh", ["-c", "kill -KILL $$"])
        #expect(killed.status == SIGKILL)
    }

    /// Running (a zombie not yet reaped by init counts as gone).
    private static func isAlive(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return false }
        return !stat[close...].hasPrefix(") Z")
    }
}

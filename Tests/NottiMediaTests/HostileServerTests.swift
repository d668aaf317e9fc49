import Foundation
import Testing

/// A server that misbehaves: every case ends with its documented reason, within
/// the deadline, and leaves nothing on disk.
@Suite struct HostileServerTests {
    let server = TestServer.shared

    @Test(arguments: [
        ("/endless-headers", "timeout"),
        ("/huge-header", "network_error"),
        ("/close-mid-body", "network_error"),
        ("/bad-chunked", "network_error"),
    ])
    func misbehaviourEndsWithItsReason(path: String, reason: String) throws {
        let run = try ProcessRun.fetch(server.url(path), ["--timeout", "2"])
        #expect(run.reason == reason)
        #expect(run.result.status == 0)
        #expect(run.result.seconds < 3.5, "took \(run.result.seconds) s")
        #expect(run.filesLeft.isEmpty)
    }

    /// SPEC 3: a reset is the network's failure, also during the TLS handshake, and so is a
    /// server that closes the connection before it says a word; never advice to fix a certificate.
    @Test(arguments: ["reset", "close"])
    func aConnectionDroppedDuringTheTLSHandshakeIsANetworkError(drop: String) throws {
        let port = drop == "reset" ? server.resetPort : server.closePort
        for _ in 0..<5 {
            let run = try ProcessRun.fetch("https://127.0.0.1:\(port)/photo.jpg", ["--timeout", "5"])
            #expect(run.reason == "network_error")
            let message = (run.report["diagnostics"] as? [[String: Any]])?.first?["message"] as? String ?? ""
            #expect(!message.contains("certificate"), "\(message)")
            #expect(run.filesLeft.isEmpty)
        }
    }

    @Test func aTLSHandshakeThatStallsTimesOut() throws {
        let run = try ProcessRun.fetch("https://127.0.0.1:\(server.stallPort)/photo.jpg", ["--timeout", "2"])
        #expect(run.reason == "timeout")
        #expect(run.result.seconds < 3.5, "took \(run.result.seconds) s")
    }

    @Test func hundredsOfRequestsToOneSlowHostEachKeepTheirDeadline() throws {
        // 128 distinct URLs, each answered after 3 s; 64 at a time (--host-connections lifts the bound of 8), each with a 1 s deadline.
        let lines = (0..<128).map { payload(url: server.url("/slow/3000/media/logo.png?n=\($0)")) }
        let result = try CLI.run(
            ["check", "--cacert", Paths.testCA, "--jobs", "64", "--host-connections", "64", "--timeout", "1", "--format", "json", "--summary-only", "-"],
            stdin: lines.joined(separator: "\n"))
        #expect(result.status == 1)
        #expect(result.stdout.contains("\"timeout\":128"), "\(result.stdout.prefix(300))")
        #expect(result.seconds < 6, "took \(result.seconds) s")
    }

    @Test func sigintDuringProcessExits130() throws {
        let out = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: out) }
        let result = try CLI.run(
            ["process", "-", "--cacert", Paths.testCA, "--out", out.path], stdin: payload(url: server.url("/trickle"))
        ) { pid in
            Thread.sleep(forTimeInterval: 1)
            kill(pid, SIGINT)
        }
        #expect(result.status == 130)
        #expect(try #require(result.secondsAfterWhileRunning) < 2)
        #expect(Paths.contents(of: out).isEmpty)
    }

    @Test func sigtermDuringCheckExits143AndRemovesItsTemporaryFolder() throws {
        let temporary = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: temporary) }
        let lines = (0..<10).map { payload(url: server.url("/trickle?n=\($0)")) }
        let result = try CLI.run(
            ["check", "--cacert", Paths.testCA, "-"], stdin: lines.joined(separator: "\n"),
            environment: ["TMPDIR": temporary.path]
        ) { pid in
            Thread.sleep(forTimeInterval: 1)
            kill(pid, SIGTERM)
        }
        #expect(result.status == 143)
        #expect(try #require(result.secondsAfterWhileRunning) < 2)
        #expect(result.stdout.contains("interrupted after 0 payloads"))
        #expect(Paths.contents(of: temporary).isEmpty)
    }
}

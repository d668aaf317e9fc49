import Foundation
import Testing

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

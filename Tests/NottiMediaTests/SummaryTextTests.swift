import Foundation
import Testing

/// The text summary people read (SPEC 6, 13).
@Suite struct SummaryTextTests {
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
        let counts = rows.filter { $0.contains(" record") && $0.hasPrefix("  ") && !$0.contains(": ") || $0.contains("    braze:") || $0.contains("    notti:") }
        let columns = Set(counts.compactMap { $0.range(of: " record")?.lowerBound.utf16Offset(in: $0) })
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

import Foundation
import Testing

/// SPEC 9: disk use is bounded by the distinct content placed plus the downloads in
/// flight, not by the number of URLs, and nothing is left after SIGKILL.
@Suite(.serialized) struct WorkingSpaceTests {
    let server = TestServer.shared
    /// One 948,000-byte PNG under 300 personalised URLs.
    static let urls = 300
    static let pictureBytes = 948_000

    private func campaign(_ tag: String) -> String {
        (0..<Self.urls).map { payload(url: server.url("/u/\(tag)/padded/\(Self.pictureBytes)/logo.png?uid=\($0)")) }.joined(separator: "\n") + "\n"
    }

    /// The bytes a running tool holds in `out`: the files listed there, and the files with no
    /// name it holds open there (a working file made with O_TMPFILE shows as `out/#N (deleted)`).
    private static func bytesHeld(by pid: Int32, in out: URL) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8), !status.contains("State:\tZ") else { return nil }
        var total = 0
        for name in Paths.contents(of: out) {
            var info = stat()
            if lstat(out.appendingPathComponent(name).path, &info) == 0 { total += Int(info.st_size) }
        }
        for descriptor in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? [] {
            let link = "/proc/\(pid)/fd/\(descriptor)"
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: link),
                  target.hasPrefix(out.path + "/"), target.hasSuffix("(deleted)") else { continue }
            var info = stat()
            if stat(link, &info) == 0 { total += Int(info.st_size) }
        }
        return total
    }

    @Test func personalisedURLsOfOnePictureHoldOneCopy() throws {
        let out = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: out) }
        nonisolated(unsafe) var peak = 0
        let result = try CLI.run(["check", "-", "--summary-only", "--cacert", Paths.testCA, "--jobs", "8", "--out", out.path],
                                 stdin: campaign(UUID().uuidString)) { pid in
            while let held = Self.bytesHeld(by: pid, in: out) {
                peak = max(peak, held)
                usleep(10_000)
            }
        }
        #expect(result.status == 0, "\(result.stdout)")
        #expect(result.stdout.hasPrefix("checked 300 payloads: 300 passed"))
        // 3 × the distinct content plus --jobs × --max-bytes (Notti's 10 MiB): 300 copies would be 284 MB.
        let bound = 3 * Self.pictureBytes + 8 * 10_485_760
        #expect(peak > 0 && peak < bound, "peak \(peak) bytes, bound \(bound)")
        #expect(Paths.contents(of: out).count == 1, "one attachment: \(Paths.contents(of: out))")
    }

    @Test func aSIGKILLMidRunLeavesOnlyPlacedAttachments() throws {
        let out = Paths.temporaryFolder(), temporary = Paths.temporaryFolder()
        defer { for folder in [out, temporary] { try? FileManager.default.removeItem(at: folder) } }
        // Slow answers, so the kill comes while downloads are in flight.
        let tag = UUID().uuidString
        let lines = (0..<64).map { payload(url: server.url("/u/\(tag)/slow/\($0 % 4 == 0 ? 0 : 4000)/padded/\(Self.pictureBytes)/photo.jpg?uid=\($0)")) }
        let result = try CLI.run(["check", "-", "--cacert", Paths.testCA, "--jobs", "8", "--out", out.path],
                                 stdin: lines.joined(separator: "\n") + "\n", environment: ["TMPDIR": temporary.path]) { pid in
            Thread.sleep(forTimeInterval: 2)
            kill(pid, SIGKILL)
        }
        #expect(result.status == 9 || result.status == 137 || result.status == -9, "killed: \(result.status)")
        let left = Paths.contents(of: out)
        #expect(left.allSatisfy { $0.range(of: #"^[0-9a-f]{64}\.jpg$"#, options: .regularExpression) != nil }, "\(left)")
        #expect(left.count <= 1)
        // No file in the temporary folder: only check's own mkdtemp folder, empty (its working files have no names).
        let scratch = Paths.contents(of: temporary)
        #expect(scratch.count == 1 && scratch.allSatisfy { $0.hasPrefix("notti-media-check-") }, "\(scratch)")
        #expect(scratch.allSatisfy { Paths.contents(of: temporary.appendingPathComponent($0)).isEmpty })
    }
}

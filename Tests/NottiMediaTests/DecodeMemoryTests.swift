import Foundation
import Testing
@testable import NottiMedia

/// SPEC 13's memory for what is in flight, at the decoder's door: the tool's memo of which worker holds a
/// content and each worker's memo of answers are bounded (4,096, the oldest forgotten first), so a run of
/// 100,000 distinct contents holds no more than one of 10,000, and new contents are still dealt to every
/// worker once the memo is full (before, the memo's own count dealt every content after the 4,096th to one).
@Suite struct DecodeMemoryTests {
    final class Failures: @unchecked Sendable {
        private let lock = NSLock()
        private var value = 0
        func count() { lock.withLock { value += 1 } }
        var counted: Int { lock.withLock { value } }
    }

    /// A 2×2 PNG, decoded for real by the worker each time it is asked under a new content hash.
    static func tinyPNG() throws -> String {
        let folder = Paths.temporaryFolder()
        let path = folder.appendingPathComponent("tiny.png").path
        let bytes: [UInt8] = [
            0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00, 0x02,
            0x00, 0x00, 0x00, 0x02, 0x08, 0x02, 0x00, 0x00, 0x00, 0xFD, 0xD4, 0x9A, 0x73, 0x00, 0x00, 0x00, 0x12, 0x49, 0x44, 0x41,
            0x54, 0x78, 0x9C, 0x63, 0xF8, 0xCF, 0xC0, 0xF0, 0x1F, 0x88, 0x81, 0x0C, 0x06, 0x06, 0x00, 0x3A, 0xEE, 0x05, 0xFB, 0x3B,
            0x2A, 0x13, 0x5D, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82,
        ]
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// The resident memory of `pids`, summed, in bytes (`VmRSS`).
    static func residentBytes(_ pids: [pid_t]) -> Int {
        pids.reduce(0) { total, pid in
            let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
            let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
            return total + (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
        }
    }

    /// Run by scripts/memory-check, alone (CI's stage before the suite): five minutes of both cores in a debug
    /// build, which beside the rest of the suite would crowd its timing-sensitive tests.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["NOTTI_MEDIA_MEMORY_CHECK"] != nil && CLI.sanitizer == nil,
                   "scripts/memory-check runs it alone"))
    func aHundredThousandDistinctContentsKeepTheTreesMemoryFlat() throws {
        let path = try Self.tinyPNG()
        let decoder = DecodeWorker(executable: FilePaths.parent(CLI.binary) + "/notti-media-decode", pictureWorkers: 2)
        let failures = Failures()
        // Two callers at once, as a run's fetch workers are: each content is new, so each is a real decode.
        func decode(_ contents: Range<Int>) {
            DispatchQueue.concurrentPerform(iterations: 2) { half in
                for index in contents where index % 2 == half {
                    let sha256 = String(repeating: "0", count: 48) + String(format: "%016x", index)
                    let answer = decoder.decode(fileAt: path, mime: "image/png", sha256: sha256, within: 20)
                    if answer?.width != 2 || answer?.failed != nil { failures.count() }
                }
            }
        }
        decode(0..<10_000)
        let early = decoder.probe
        let earlyBytes = Self.residentBytes(early.pictureWorkers)
        decode(10_000..<100_000)
        let late = decoder.probe
        let lateBytes = Self.residentBytes(late.pictureWorkers)

        #expect(failures.counted == 0)
        #expect(early.pictureWorkers.count == 2 && late.pictureWorkers == early.pictureWorkers, "the same two workers served the run")
        // The tool remembers at most 4,096 owners and 4,096 answers a worker, however many contents come.
        #expect(late.owners == WorkerProcess.answersKept)
        // Dealt to both once the owners' memo is full: each worker's memo holds its 4,096 newest answers.
        #expect(late.answers == [WorkerProcess.answersKept, WorkerProcess.answersKept], "\(late.answers)")
        // The workers keep nothing per content: 90,000 more decodes move their memory by less than 1 MiB.
        #expect(lateBytes - earlyBytes < 1 << 20, "\(earlyBytes) -> \(lateBytes) bytes")
    }
}

import Foundation
import Testing
@testable import NottiMedia

/// SPEC 13: a campaign with one URL per recipient holds memory for what is in flight, not
/// for every URL it has seen; the media list still names every URL once, in the same order.
@Suite struct MediaListBoundTests {
    private static func verdict(_ url: String, verdict: String = "attached", bytes: Int = 100, sha: String = "aa") -> MediaVerdict {
        let json: JSONValue = .object([
            JSONMember("url", .string(url)), JSONMember("sdk", .string("notti")), JSONMember("platform", .string("ios")),
            JSONMember("verdict", .string(verdict)), JSONMember("type", .string("png")), JSONMember("bytes", .int(bytes)),
            JSONMember("sha256", .string(sha)), JSONMember("httpStatus", verdict == "http_error" ? .int(404) : .null),
            JSONMember("warnings", .array([])),
        ])
        return MediaVerdict(json: json)!
    }

    private static func entries(_ tally: MediaTally) -> [String] {
        var listed: [String] = []
        tally.list { listed.append($0.json) }
        return listed
    }

    @Test func sortedRunsOnDiskGiveTheOrderMemoryGives() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var generator = SystemRandomNumberGenerator()
        let lines = (0..<700).map { _ in Array((0..<Int.random(in: 0...12, using: &generator)).map { _ in UInt8.random(in: 0x20...0x7E, using: &generator) }) }
        do {
            // One line a run: past 64 runs they are merged into one, so a merge never opens more.
            let sorter = LineSorter(folder: folder.path, runBytes: 1)
            lines.forEach(sorter.add)
            #expect(sorter.runCount > 0 && sorter.runCount <= 64, "\(sorter.runCount) runs")
            #expect(!Paths.contents(of: folder).isEmpty)
            let sorted = sorter.sorted()
            var read: [[UInt8]] = []
            sorted.forEach { read.append($0) }
            #expect(read == lines.sorted(by: LineSorter.precedes))
            // Read as often as needed.
            var again = 0
            sorted.forEach { _ in again += 1 }
            #expect(again == lines.count)
        }
        #expect(Paths.contents(of: folder).isEmpty, "the runs are removed: \(Paths.contents(of: folder))")
    }

    @Test func aURLCountedAgainAfterItsRowLeftIsOneEntryWithEveryPayload() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let names = (0..<40).map { "https://cdn.example/p.png?u=\($0)" } + ["https://cdn.example/missing.png"]
        // The order records meet them: u=0 again and again, long after its row left a table of 3.
        let visits = names + names.prefix(5) + ["https://cdn.example/p.png?u=0"]
        func count(into tally: MediaTally) {
            for url in visits {
                let made = url.hasSuffix("missing.png") ? Self.verdict(url, verdict: "http_error", sha: "") : Self.verdict(url)
                tally.withRow(tally.slot(url)) { $0.add(made, payloads: 1) }
            }
        }
        let bounded = MediaTally(folder: folder.path, tableBound: 3, runBytes: 512)
        let unbounded = MediaTally(folder: nil, tableBound: 10_000)
        count(into: bounded)
        count(into: unbounded)
        let listed = Self.entries(bounded)
        #expect(listed == Self.entries(unbounded))
        #expect(bounded.totals.urls == 41 && bounded.totals.bytes == 4_100)
        // The failure first, then u=0 (3 payloads), then u=1..u=4 (2 each), then the rest by URL.
        let urls = listed.compactMap { try? JSONParser.parse(Array($0.utf8))["url"]?.stringValue }
        #expect(urls.prefix(6) == ["https://cdn.example/missing.png", "https://cdn.example/p.png?u=0", "https://cdn.example/p.png?u=1",
                                  "https://cdn.example/p.png?u=2", "https://cdn.example/p.png?u=3", "https://cdn.example/p.png?u=4"])
        #expect(Set(urls).count == 41)
        let first = try JSONParser.parse(Array(listed[1].utf8))
        #expect(first["payloads"]?.intValue == 3)
    }

    /// Past the table's 2,048 URLs, through the tool: the list spills to the run's scratch folder,
    /// still one entry per URL (one named again after its row left counts twice), one text row,
    /// and the scratch folder is gone at the end.
    @Test func aCampaignPastTheTableKeepsEveryURLAndLeavesNothingInTMPDIR() throws {
        let server = TestServer.shared
        let tag = UUID().uuidString
        let urls = (0..<2_100).map { server.url("/media/logo.png?c=\(tag)&u=\($0)") }
        let input = (urls + [urls[0]]).map { payload(url: $0) }.joined(separator: "\n") + "\n"
        let out = Paths.temporaryFolder()
        let temporary = Paths.temporaryFolder()
        defer {
            try? FileManager.default.removeItem(at: out)
            try? FileManager.default.removeItem(at: temporary)
        }
        let environment = ["TMPDIR": temporary.path]
        let json = try CLI.run(["check", "-", "--cacert", Paths.testCA, "--out", out.path, "--summary-only", "--format", "json", "--jobs", "8"],
                               stdin: input, environment: environment)
        #expect(json.status == 0, "\(json.stderr)")
        let summary = try #require(OutFolder.summary(ofJSONLines: json.stdout))
        let media = try #require(summary["media"] as? [[String: Any]])
        #expect(media.count == 2_100)
        #expect(Set(media.compactMap { $0["url"] as? String }).count == 2_100)
        #expect(media.first?["url"] as? String == urls[0] && media.first?["payloads"] as? Int == 2, "\(media.prefix(2))")
        #expect(Paths.contents(of: temporary).isEmpty, "\(Paths.contents(of: temporary))")
        let text = try CLI.run(["check", "-", "--cacert", Paths.testCA, "--out", out.path, "--summary-only", "--jobs", "8"],
                               stdin: input, environment: environment)
        #expect(text.stdout.contains("media: 2100 distinct URLs, worst first, URLs of the same content and verdicts in one row"), "\(text.stdout)")
        #expect(text.stdout.contains("2101 records  2100 URLs, same content as \(urls[0])"), "\(text.stdout)")
        #expect(Paths.contents(of: temporary).isEmpty, "\(Paths.contents(of: temporary))")
    }
}

import Foundation
import Testing
@testable import notti_media

/// The inputs users have (SPEC 2, 20): a file or line holding a JSON array of payloads,
/// gzip-compressed exports, and JSON Lines under another name.
@Suite struct InputShapeTests {
    let server = TestServer.shared

    private func check(_ arguments: [String], stdin: String? = nil) throws -> CLI.Result {
        try CLI.run(["check", "--cacert", Paths.testCA, "--out", Paths.temporaryFolder().path, "--format", "json"] + arguments, stdin: stdin)
    }

    private func write(_ text: String, _ name: String, in folder: URL) throws -> String {
        let path = folder.appendingPathComponent(name).path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// `gzip -c` of `text` into `name`.
    private func gzip(_ text: String, _ name: String, in folder: URL) throws -> String {
        let plain = try write(text, name + ".plain", in: folder)
        let path = folder.appendingPathComponent(name).path
        let result = try CLI.run(executable: "/bin/sh", ["-c", "gzip -c '\(plain)' > '\(path)'"])
        #expect(result.status == 0)
        return path
    }

    /// Each element is its own source, `FILE[N]` (SPEC 10; issue 61, item 2: they were `FILE:LINE`, and a one-line
    /// array's elements all `FILE:1`, with no column).
    @Test func aJSONArrayFileIsOneInputPerElementNamedByItsPlace() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let logo = server.url("/media/logo.png")
        let array = "[\n  \(payload(url: logo)),\n  \(payload(url: nil)),\n  \(payload(url: "ftp://x/y.png"))\n]\n"
        let path = try write(array, "campaign.json", in: folder)
        let result = try check([path])
        #expect(result.status == 1, "the ftp element fails")
        let records = OutFolder.records(ofJSONLines: result.stdout)
        #expect(records.map { $0["source"] as? String } == ["\(path)[0]", "\(path)[1]", "\(path)[2]"])
        // The ftp element's finding at its media key's place in the file: line 4, past the two spaces.
        let finding = (records[2]["diagnostics"] as? [[String: Any]])?.first { $0["code"] as? String == "not_https" }
        #expect(finding?["line"] as? Int == 4)
        #expect(finding?["column"] as? Int == 3 + Self.keyColumn(payload(url: "ftp://x/y.png")) - 1)
        #expect(records.map { $0["index"] as? Int } == [0, 1, 2])
        #expect(records.map { $0["reason"] as? String } == [nil, "no_media", "not_https"])
        #expect(OutFolder.summary(ofJSONLines: result.stdout)?["inputs"] as? Int == 3)
        // Shards split the elements as positions of the whole input.
        let second = OutFolder.records(ofJSONLines: try check([path, "--shard", "2/2"]).stdout)
        #expect(second.map { $0["index"] as? Int } == [1])
    }

    /// Where `notti_image_url` starts in a payload's text, in characters from 1.
    static func keyColumn(_ text: String) -> Int {
        text.distance(from: text.startIndex, to: text.range(of: "\"notti_image_url\"")!.lowerBound) + 1
    }

    /// A one-line array (Expo's SDK posts so, as any JSON.stringify export): two elements, two sources, two columns.
    @Test func aOneLineArraysElementsPointAtTheirOwnColumns() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = payload(url: "ftp://x/a.png"), second = payload(url: "ftp://x/b.png")
        let path = try write("[\(first),\(second)]", "export.json", in: folder)
        let result = try check([path])
        let records = OutFolder.records(ofJSONLines: result.stdout)
        #expect(records.map { $0["source"] as? String } == ["\(path)[0]", "\(path)[1]"])
        let columns = records.map { record in
            (record["diagnostics"] as? [[String: Any]])?.first { $0["code"] as? String == "not_https" }?["column"] as? Int
        }
        #expect(columns == [1 + Self.keyColumn(first), 1 + first.count + 1 + Self.keyColumn(second)])
        let text = try CLI.run(["check", path, "--cacert", Paths.testCA, "--out", folder.appendingPathComponent("out").path])
        #expect(text.stdout.contains("\(path)[1]:1:\(columns[1] ?? 0): error: not_https:"), "\(text.stdout)")
    }

    @Test func aLineHoldingAnArrayIsOneInputPerElement() throws {
        let lines = "[\(payload(url: nil)), \(payload(url: nil))]\n\(payload(url: nil))\n"
        let records = OutFolder.records(ofJSONLines: try check(["-"], stdin: lines).stdout)
        #expect(records.map { $0["source"] as? String } == ["-:1", "-:1", "-:2"])
        #expect(records.map { $0["index"] as? Int } == [0, 1, 2])
    }

    @Test func processRefusesAnArrayNamingCheck() throws {
        let result = try CLI.run(["process", "-", "--out", Paths.temporaryFolder().path], stdin: "[\(payload(url: nil))]")
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("-: error: invalid_payload: a JSON array is several payloads: process takes one; check (or fix) reads"),
                "\(result.stderr)")
    }

    @Test func gzipExportsAreReadAsTheyStream() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let logo = server.url("/media/logo.png")
        let lines = try gzip([payload(url: logo), payload(url: nil)].joined(separator: "\n") + "\n", "campaign.jsonl.gz", in: folder)
        let array = try gzip("[\(payload(url: logo))]", "more.json.gz", in: folder)
        let result = try check([lines, array])
        #expect(result.status == 0, "\(result.stdout)")
        let records = OutFolder.records(ofJSONLines: result.stdout)
        #expect(records.map { $0["source"] as? String } == ["\(lines):1", "\(lines):2", "\(array)[0]"])
        // A folder walk finds them too.
        let walked = OutFolder.records(ofJSONLines: try check([folder.path]).stdout)
        #expect(walked.count == 3)
    }

    @Test func aCutOrFakeGzipFileIsSaidSoNotReadAsPayloads() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let whole = try gzip(String(repeating: payload(url: nil) + "\n", count: 200), "whole.jsonl.gz", in: folder)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: whole))
        let cut = folder.appendingPathComponent("cut.jsonl.gz").path
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: cut))
        let fake = try write(payload(url: nil) + "\n", "fake.jsonl.gz", in: folder)
        let result = try CLI.run(["check", cut, fake, "--out", Paths.temporaryFolder().path])
        #expect(result.status == 2, "\(result.stdout)")
        #expect(result.stderr.contains("notti-media: cannot read \(cut) as gzip: it is cut short; "), "\(result.stderr)")
        #expect(result.stderr.contains("notti-media: cannot read \(fake) as gzip: it is not gzip; "), "\(result.stderr)")
    }

    @Test func jsonLinesNamedTxtGetAHint() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try write(payload(url: nil) + "\n" + payload(url: nil) + "\n", "export.txt", in: folder)
        let result = try CLI.run(["check", path, "--out", Paths.temporaryFolder().path])
        #expect(result.status == 1)
        #expect(result.stdout.hasPrefix("\(path): error: invalid_payload: this looks like JSON Lines (one payload a line)"), "\(result.stdout)")
        #expect(result.stdout.contains("rename it \(folder.path)/export.jsonl"))
    }
}

/// The text summary's media list (SPEC 13): URLs of the same content and verdicts in one row,
/// at most `--top N` rows, worst first; `--format json` keeps every URL.
@Suite struct SummaryMediaListTests {
    let server = TestServer.shared

    @Test func personalisedURLsOfOneFileAreOneRowAndTopBoundsTheList() throws {
        let logo = (0..<40).map { payload(url: server.url("/media/logo.png?u=\($0)")) }
        let missing = (0..<12).map { payload(url: server.url("/status/404?u=\($0)")) }
        let others = ["badge.webp", "photo.jpg", "spinner.gif"].map { payload(url: server.url("/media/\($0)")) }
        let input = (logo + missing + others).joined(separator: "\n") + "\n"
        let out = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: out) }
        let text = try CLI.run(["check", "-", "--cacert", Paths.testCA, "--out", out.path, "--summary-only", "--top", "2"], stdin: input)
        let lines = text.stdout.split(separator: "\n").map(String.init)
        let list = try #require(lines.firstIndex { $0.hasPrefix("media: 55 distinct URLs, worst first") })
        #expect(lines[list + 1].hasPrefix("  FAIL http_error (HTTP 404)"), "\(text.stdout)")
        #expect(lines[list + 1].hasSuffix("12 records  12 URLs, same verdict as \(server.url("/status/404?u=0"))"), "\(text.stdout)")
        #expect(lines[list + 2].contains("WARN jpg 82 B unsupported_type"), "warnings before passes: \(text.stdout)")
        #expect(lines[list + 3] == "  … and 3 more rows (42 URLs): --top N shows more, --format json lists every URL", "\(text.stdout)")
        #expect(lines.count == list + 4)
        let all = try CLI.run(["check", "-", "--cacert", Paths.testCA, "--out", out.path, "--summary-only"], stdin: input)
        #expect(all.stdout.contains("40 records  40 URLs, same content as \(server.url("/media/logo.png?u=0"))"), "\(all.stdout)")
        let json = try CLI.run(["check", "-", "--cacert", Paths.testCA, "--out", out.path, "--summary-only", "--format", "json"], stdin: input)
        let summary = try #require(OutFolder.summary(ofJSONLines: json.stdout))
        #expect((summary["media"] as? [Any])?.count == 55)
    }
}

/// The progress line gives the input's total and the time left when its size is known (SPEC 6's
/// progress line, issue 46): a regular file or a folder of them, not standard input or gzip.
@Suite struct ReadProgressTests {
    @Test func theTotalAndTimeLeftComeFromTheBytesRead() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("campaign.jsonl")
        try Data(repeating: 0x20, count: 2_000_000).write(to: file)
        try Data(repeating: 0x20, count: 1_000).write(to: folder.appendingPathComponent(".hidden.json"))
        let reading = ReadProgress(operands: [folder.path])
        #expect(reading.total == 2_000_000, "hidden entries are not read, so not counted")
        reading.add(500_000)
        #expect(ProgressLine.left(reading, seconds: 10) == ", 25% of 2 MB, about 30 s left")
        reading.add(1_500_000)
        #expect(ProgressLine.left(reading, seconds: 40) == ", 100% of 2 MB")
        #expect(ReadProgress(operands: ["-"]).total == nil)
        #expect(ReadProgress(operands: [file.path, "-"]).total == nil, "standard input's size is not known")
        #expect(ProgressLine.left(ReadProgress(operands: ["-"]), seconds: 10) == "")
    }
}

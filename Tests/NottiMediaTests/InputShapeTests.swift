import Foundation
import Testing

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

    @Test func aJSONArrayFileIsOneInputPerElementNamedByItsLine() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let logo = server.url("/media/logo.png")
        let array = "[\n  \(payload(url: logo)),\n  \(payload(url: nil)),\n  \(payload(url: "ftp://x/y.png"))\n]\n"
        let path = try write(array, "campaign.json", in: folder)
        let result = try check([path])
        #expect(result.status == 1, "the ftp element fails")
        let records = OutFolder.records(ofJSONLines: result.stdout)
        #expect(records.map { $0["source"] as? String } == ["\(path):2", "\(path):3", "\(path):4"])
        #expect(records.map { $0["index"] as? Int } == [0, 1, 2])
        #expect(records.map { $0["reason"] as? String } == [nil, "no_media", "not_https"])
        #expect(OutFolder.summary(ofJSONLines: result.stdout)?["inputs"] as? Int == 3)
        // Shards split the elements as positions of the whole input.
        let second = OutFolder.records(ofJSONLines: try check([path, "--shard", "2/2"]).stdout)
        #expect(second.map { $0["index"] as? Int } == [1])
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
        #expect(records.map { $0["source"] as? String } == ["\(lines):1", "\(lines):2", "\(array):1"])
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

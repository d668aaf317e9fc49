import Foundation
import Testing

/// PngSuite's files in kind (issue 44), each named by one FCM send request: the 14 corrupt ones
/// (`Tests/Support/corrupt_pngs.py`: a valid grey PNG broken as each namesake is: a signature byte, a
/// text-mode transfer's CR and LF, an IHDR or IDAT CRC, a colour type or bit depth out of range, no
/// IDAT) draw on no phone, so each fails on both platforms; the valid ones (`valid_pngs.py`: every
/// colour type and bit depth, straight and interlaced, transparency, sizes 1x1 to 40x40) pass on both
/// with their sizes.
@Suite struct PngSuiteTests {
    static let corrupt = ["xs1n0g01", "xs2n0g01", "xs4n0g01", "xs7n0g01", "xcrn0g04", "xlfn0g04", "xhdn0g08", "xc1n0g08",
                          "xc9n2c08", "xd0n2c08", "xd3n2c08", "xd9n2c08", "xdtn0g01", "xcsn0g01"]

    /// Makes the files with `script` (in `Tests/Support`) in a new folder, serves it, and checks one FCM
    /// request per name `names` picks from the folder, in that order.
    private static func check(madeBy script: String, names: (URL) throws -> [String]) throws -> (names: [String], result: CLI.Result) {
        let media = Paths.temporaryFolder()
        let folder = Paths.temporaryFolder()
        defer {
            try? FileManager.default.removeItem(at: media)
            try? FileManager.default.removeItem(at: folder)
        }
        let made = try CLI.run(executable: "/usr/bin/env", ["python3", Paths.packageRoot.appendingPathComponent("Tests/Support/\(script)").path, media.path])
        #expect(made.status == 0, "\(made.stderr)")
        let picked = try names(media)
        let server = TestServer(media: media.path)
        let input = folder.appendingPathComponent("requests.jsonl")
        try Data((picked.map { DecodeTests.request(server.url("/media/\($0).png")) }.joined(separator: "\n") + "\n").utf8).write(to: input)
        let result = try CLI.run(["check", input.path, "--cacert", Paths.testCA, "--format", "json", "--out", folder.appendingPathComponent("out").path])
        return (picked, result)
    }

    @Test func eachCorruptPNGFailsOnBothPlatformsInTheDecodersWordsAndTheValidOnePasses() throws {
        let (names, result) = try Self.check(madeBy: "corrupt_pngs.py") { _ in Self.corrupt + ["basn0g08"] }
        let records = OutFolder.records(ofJSONLines: result.stdout)
        #expect(records.count == 2 * names.count, "\(result.stdout)")
        for (index, name) in names.enumerated() {
            let pair = records.filter { ($0["index"] as? Int) == index }
            #expect(pair.count == 2, "\(name)")
            for record in pair {
                let passed = record["passed"] as? Bool
                if name == "basn0g08" {
                    #expect(passed == true, "\(name): \(record)")
                    #expect(((record["media"] as? [String: Any])?["dimensions"] as? [String: Any])?["width"] as? Int == 32, "\(name)")
                } else {
                    #expect(passed == false, "\(name) \(record["platform"] ?? ""): \(DecodeTests.Records.codes(record))")
                    // In the decoder's own words (libpng's: libvips said nothing on a broken header).
                    let message = DecodeTests.Records.message(record, "undecodable_media")
                    #expect(!message.contains("the decoder read nothing of it"), "\(name): \(message)")
                }
            }
        }
    }

    @Test func everyValidPNGPassesOnBothPlatformsWithItsSize() throws {
        var sizes: [String: [Int]] = [:]
        let (names, result) = try Self.check(madeBy: "valid_pngs.py") { media in
            sizes = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: media.appendingPathComponent("sizes.json"))) as? [String: [Int]])
            return sizes.keys.sorted()
        }
        #expect(sizes.count == 69)
        #expect(result.status == 0, "\(result.stdout.prefix(2000))")
        let records = OutFolder.records(ofJSONLines: result.stdout)
        #expect(records.count == 2 * names.count)
        for record in records {
            let name = names[record["index"] as? Int ?? 0]
            let dimensions = (record["media"] as? [String: Any])?["dimensions"] as? [String: Any]
            #expect(record["passed"] as? Bool == true, "\(name) \(record["platform"] ?? ""): \(DecodeTests.Records.codes(record))")
            #expect([dimensions?["width"] as? Int ?? 0, dimensions?["height"] as? Int ?? 0] == sizes[name], "\(name): \(dimensions ?? [:])")
        }
    }
}

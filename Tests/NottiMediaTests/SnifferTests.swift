import Foundation
import Testing
@testable import NottiMedia

/// Real libmagic on real media made by real encoders (see Tests/Fixtures/README.md).
@Suite struct SnifferTests {
    @Test(arguments: [
        ("photo.jpg", "image/jpeg"), ("logo.png", "image/png"), ("spinner.gif", "image/gif"),
        ("clip.mp4", "video/mp4"), ("tone.mp3", "audio/mpeg"), ("tone-id3.mp3", "audio/mpeg"),
        ("badge.webp", "image/webp"), ("voice.m4a", "audio/x-m4a"), ("icon.svg", "image/svg+xml"),
        ("error-page.html", "text/html"),
    ])
    func fixturesSniffAsWhatTheyAre(name: String, mime: String) throws {
        let path = Paths.medium(name)
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as! Int
        #expect(try Sniffer().mimeType(ofFileAt: path, size: size) == mime)
    }

    /// libmagic reads 7 MiB by default; the tag must not hide the audio behind it.
    @Test func anMP3BehindALargeID3TagIsStillAudio() throws {
        let audio = try Data(contentsOf: URL(fileURLWithPath: Paths.medium("tone.mp3")))
        let padding = 8 * 1024 * 1024
        let frame = Array("TIT2".utf8) + [0, 0, 0, 6, 0, 0, 0] + Array("cover".utf8)
        let body = frame + [UInt8](repeating: 0, count: padding)
        let size = body.count
        let syncsafe = [UInt8((size >> 21) & 0x7F), UInt8((size >> 14) & 0x7F), UInt8((size >> 7) & 0x7F), UInt8(size & 0x7F)]
        let file = Array("ID3".utf8) + [3, 0, 0] + syncsafe + body + [UInt8](audio)
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("big-tag.mp3").path
        try Data(file).write(to: URL(fileURLWithPath: path))
        #expect(try Sniffer().mimeType(ofFileAt: path, size: file.count) == "audio/mpeg")
    }

    @Test func anEmptyFileIsApplicationXEmpty() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("empty").path
        _ = FileManager.default.createFile(atPath: path, contents: Data())
        #expect(try Sniffer().mimeType(ofFileAt: path, size: 0) == "application/x-empty")
    }

    /// libmagic's compiled database is mapped once however many handles a run opens (each
    /// handle mapped its own 8 MB copy, 4.4 MB of it read, before), and the handles answer alike.
    @Test func everyHandleReadsTheOneMappedDatabase() throws {
        let handles = try (0..<3).map { _ in try Sniffer() }
        for handle in handles {
            let path = Paths.medium("clip.mp4")
            let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as! Int
            #expect(try handle.mimeType(ofFileAt: path, size: size) == "video/mp4")
        }
        // /proc/self/maps is read to its end by the tool's own reader: Foundation's
        // String(contentsOfFile:) stopped after its first 4 KB under ThreadSanitizer (45 of its
        // lines; the file is not there). It is made a page per read, so another test's thread
        // mapping memory meanwhile can repeat a line: the mappings are counted by their address ranges.
        let maps = String(decoding: try FilePaths.bytes(ofFileAt: "/proc/self/maps"), as: UTF8.self)
        let lines = maps.split(separator: "\n")
        let mappings = Set(lines.filter { $0.hasSuffix("/magic.mgc") }.compactMap { $0.split(separator: " ").first })
        #expect(mappings.count == 1, "\(mappings) of \(lines.count) lines")
    }

    /// A user's own rules (`MAGIC` naming a source file with a rule) are read as libmagic reads them;
    /// a source file of comments alone, as Debian's /etc/magic ships, changes nothing.
    @Test func localMagicRulesStillCount() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let rules = folder.appendingPathComponent("local").path
        try Data("0\tstring\tNOTTITEST\tNotti test file\n!:mime\tapplication/x-notti-test\n".utf8).write(to: URL(fileURLWithPath: rules))
        let comments = folder.appendingPathComponent("comments").path
        try Data("# Magic local data for file(1) command.\n\n   # indented\n".utf8).write(to: URL(fileURLWithPath: comments))
        let sample = folder.appendingPathComponent("sample.bin").path
        try Data("NOTTITEST and then some text\n".utf8).write(to: URL(fileURLWithPath: sample))
        let system = "/usr/lib/file/magic"
        let local = try CLI.run(["sniff", sample, Paths.medium("photo.jpg")], environment: ["MAGIC": "\(rules):\(system)"])
        #expect(local.stdout.contains("sample.bin: application/x-notti-test"), "\(local.stdout)\(local.stderr)")
        #expect(local.stdout.contains("photo.jpg: image/jpeg"), "\(local.stdout)")
        let plain = try CLI.run(["sniff", sample, Paths.medium("photo.jpg")], environment: ["MAGIC": "\(comments):\(system)"])
        let usual = try CLI.run(["sniff", sample, Paths.medium("photo.jpg")])
        #expect(plain.stdout == usual.stdout && plain.status == usual.status, "\(plain.stdout)\n\(usual.stdout)")
        #expect(usual.stdout.contains("sample.bin: text/plain"), "\(usual.stdout)")
    }
}

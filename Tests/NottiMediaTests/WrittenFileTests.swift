import Foundation
import Testing

/// SPEC 9: the files the tool writes are regular files it creates, and the
/// page's media folder holds exactly what the page references.
@Suite struct WrittenFileTests {
    let server = TestServer.shared

    @Test func aLinkFIFODeviceOrFolderAtHTMLOrCacheIsAUsageErrorAndUntouched() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let fifo = folder.appendingPathComponent("fifo").path
        mkfifo(fifo, 0o644)
        let target = folder.appendingPathComponent("target.txt")
        try Data("keep me\n".utf8).write(to: target)
        let link = folder.appendingPathComponent("link").path
        symlink(target.path, link)
        let before = TreeSnapshot(folder)
        let tag = UUID().uuidString
        let line = payload(url: server.url("/u/\(tag)/media/logo.png"))
        let cases: [(String, String, String)] = [
            ("html", "/dev/full", "a device"), ("html", fifo, "a FIFO"), ("html", link, "a symbolic link"), ("html", folder.path, "a folder"),
            ("cache", "/dev/null", "a device"), ("cache", fifo, "a FIFO"), ("cache", link, "a symbolic link"), ("cache", folder.path, "a folder"),
        ]
        for (option, path, kind) in cases {
            let result = try CLI.run(["check", "-", "--cacert", Paths.testCA, "--\(option)", path, "--out", folder.path], stdin: line)
            #expect(result.status == 2, "--\(option) \(path)")
            #expect(result.stderr == "notti-media: --\(option) expects a FILE to write, but \(path) is \(kind): the tool writes only regular files it creates\n")
        }
        let missing = try CLI.run(["check", "-", "--cache", "/nonexistent/verdicts.sqlite"], stdin: line)
        #expect(missing.status == 2)
        #expect(missing.stderr == "notti-media: --cache: the folder /nonexistent does not exist (the cache file is created, its folder is "
            + "not: a mistyped path would start an empty cache); create it, or name a file in a folder that does\n")
        #expect(TreeSnapshot(folder) == before, "nothing written through them or beside them")
        #expect(!FileManager.default.fileExists(atPath: "/dev/null-journal") && !FileManager.default.fileExists(atPath: "/dev/full-media"))
        #expect(try server.requestCounts().keys.filter { $0.contains(tag) }.isEmpty, "before any download")
    }

    @Test func thePagesMediaFolderHoldsExactlyWhatThePageReferences() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let page = folder.appendingPathComponent("report.html").path
        let media = folder.appendingPathComponent("report-media")
        func run(_ names: [String]) throws -> CLI.Result {
            try CLI.run(
                ["check", "-", "--cacert", Paths.testCA, "--html", page, "--out", folder.appendingPathComponent("out").path],
                stdin: names.map { payload(url: server.url("/media/\($0)")) }.joined(separator: "\n"))
        }
        _ = try run(["logo.png", "photo.jpg", "spinner.gif"])
        #expect(Paths.contents(of: media).count == 6, "each picture's thumbnail and expanded view")
        _ = try run(["photo.jpg"])
        let html = try String(contentsOfFile: page, encoding: .utf8)
        let left = Paths.contents(of: media)
        let photo = try Paths.sha256(ofFile: Paths.fixture("media/photo.jpg"))
        #expect(Set(left) == ["\(photo)-ios-thumbnail.jpg", "\(photo)-ios-expanded.jpg"], "\(left)")
        #expect(left.allSatisfy { html.contains("report-media/\($0)") })
        // Anything the tool did not put there: the folder is refused, never cleaned.
        try Data("notes\n".utf8).write(to: media.appendingPathComponent("notes.txt"))
        let refused = try run(["logo.png"])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("holds notes.txt, which the tool did not put there"))
        #expect(Set(Paths.contents(of: media)) == Set(left + ["notes.txt"]))
    }
}

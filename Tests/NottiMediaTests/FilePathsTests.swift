import Foundation
import Glibc
import Testing
@testable import NottiMedia

/// The Glibc helpers that replaced Foundation in the library and the tool:
/// the attachment URLs users see must not change, and a copy must never
/// write over a file that is already there.
@Suite struct FilePathsTests {
    @Test(arguments: [
        "/tmp/out/5458300b.jpg", "/tmp/a b/c d.png", "/m/100%.gif", "/m/x#y?z.mp3", "/m/café/ünï.mp4",
        "/m/[1]{2}<3>|4^5`6\\7\".jpg", "/m/a;b=c&d+e,f!g$h'i(j)k*l~m@n:o.png",
    ])
    func fileURLsAreWhatFoundationWrites(path: String) {
        #expect(FilePaths.fileURL(path) == URL(fileURLWithPath: path).absoluteString)
    }

    @Test(arguments: [
        ("/a/b/../c/./d/", "/a/c/d"), ("/a//b", "/a/b"), ("/../a", "/a"), ("/", "/"), ("/a/b/..", "/a"),
    ])
    func standardizedResolvesDotsByName(path: String, expected: String) {
        #expect(FilePaths.standardized(path) == expected)
        #expect(FilePaths.standardized(path) == URL(fileURLWithPath: path).standardizedFileURL.path)
    }

    @Test func aRelativePathIsTakenFromTheWorkingFolder() {
        let here = FileManager.default.currentDirectoryPath
        #expect(FilePaths.standardized("x/../y.html") == (here == "/" ? "/y.html" : here + "/y.html"))
    }

    @Test func namesAndFolders() {
        #expect(FilePaths.lastComponent("/m/a.png") == "a.png")
        #expect(FilePaths.lastComponent("/m/media/") == "media")
        #expect(FilePaths.parent("/m/a.png") == "/m")
        #expect(FilePaths.parent("/a.png") == "/")
        #expect(FilePaths.deletingExtension("/out/report.html") == "/out/report")
        #expect(FilePaths.deletingExtension("/out.d/report") == "/out.d/report")
        #expect(FilePaths.deletingExtension("/out/.hidden") == "/out/.hidden")
    }

    @Test func aCopyHasTheSameBytesAndNeverReplacesAFile() throws {
        let folder = Paths.temporaryFolder().path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let source = folder + "/source.bin"
        let bytes = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try Data(bytes).write(to: URL(fileURLWithPath: source))
        try FilePaths.copyFile(from: source, to: folder + "/copy.bin")
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder + "/copy.bin")) == Data(bytes))

        let theirs = folder + "/theirs.bin"
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: theirs))
        #expect(throws: Errno(EEXIST)) { try FilePaths.copyFile(from: source, to: theirs) }
        #expect(try String(contentsOfFile: theirs, encoding: .utf8) == "keep me")
        #expect(throws: Errno(ENOENT)) { try FilePaths.copyFile(from: folder + "/missing", to: folder + "/new.bin") }
        #expect(access(folder + "/new.bin", F_OK) != 0)
    }

    /// The fault: the source cannot be read after the target was made (a folder reads as EISDIR).
    /// The half copy goes, through the registry that made it; the user's file beside it stays.
    @Test func aCopyThatFailsHalfWayRemovesOnlyItsOwnTarget() throws {
        let folder = Paths.temporaryFolder().path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data("the user's own notes".utf8).write(to: URL(fileURLWithPath: folder + "/user.txt"))
        try FileManager.default.createDirectory(atPath: folder + "/source", withIntermediateDirectories: false)
        let before = try FilePaths.contents(ofFolder: folder).sorted()
        let owned = OwnedPaths()
        #expect(throws: Errno(EISDIR)) { try FilePaths.copyFile(from: folder + "/source", to: folder + "/copy.bin", ownedPaths: owned) }
        #expect(try FilePaths.contents(ofFolder: folder).sorted() == before, "no half copy, nothing else gone")
        #expect(try String(contentsOfFile: folder + "/user.txt", encoding: .utf8) == "the user's own notes")

        // A complete copy is released: the registry's clean-up no longer touches it.
        try FilePaths.copyFile(from: folder + "/user.txt", to: folder + "/kept.txt", ownedPaths: owned)
        owned.removeAll()
        #expect(access(folder + "/kept.txt", F_OK) == 0)
    }

    @Test func aFolderListsItsNamesAndAMissingOneIsAnError() throws {
        let folder = Paths.temporaryFolder().path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for name in ["b.json", ".hidden", "a.json"] {
            try Data().write(to: URL(fileURLWithPath: folder + "/" + name))
        }
        #expect(try FilePaths.contents(ofFolder: folder).sorted() == [".hidden", "a.json", "b.json"])
        #expect(throws: Errno(ENOENT)) { try FilePaths.contents(ofFolder: folder + "/nope") }
    }

    @Test func makeFoldersIsMkdirP() throws {
        let folder = Paths.temporaryFolder().path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(FilePaths.makeFolders(folder + "/a/b/c", mode: 0o755) == nil)
        var info = stat()
        #expect(stat(folder + "/a/b/c", &info) == 0 && info.st_mode & S_IFMT == S_IFDIR)
        try Data().write(to: URL(fileURLWithPath: folder + "/file"))
        #expect(FilePaths.makeFolders(folder + "/file", mode: 0o755) == Errno(ENOTDIR))
    }

    @Test func theEnvironmentAndTheProcessorCount() {
        #expect(ProcessFacts.environment() == ProcessInfo.processInfo.environment)
        #expect(ProcessFacts.processorCount == Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        #expect(ProcessFacts.processorCount >= 1)
    }
}

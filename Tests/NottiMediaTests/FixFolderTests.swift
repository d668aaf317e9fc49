import Foundation
import Glibc
import Testing
@testable import notti_media

/// `fix --into DIR` holds exactly what its manifest names (SPEC 19, section 9): a run that cannot
/// write the manifest (a full disk) leaves the folder as it was.
@Suite struct FixFolderTests {
    /// Writes `bytes` as a rendition the way `MediaFixer` does: a partial file, then its name.
    private func place(_ bytes: String, in folder: FixFolder) throws -> String {
        let partial = try folder.makePartial().get()
        _ = Array(bytes.utf8).withUnsafeBytes { write(partial.descriptor, $0.baseAddress, $0.count) }
        close(partial.descriptor)
        return try folder.name(partial: partial.path, sha256: String(repeating: "a", count: 64), fileExtension: "jpg")
    }

    @Test func aManifestThatCannotBeWrittenLeavesANewFolderUnmade() throws {
        let parent = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: parent) }
        let path = parent.appendingPathComponent("fixed").path
        let folder = try FixFolder(path: path)
        _ = try place("rendition", in: folder)
        // The manifest's partial file cannot be made (a folder holds its name), as on a full disk.
        try FileManager.default.createDirectory(atPath: "\(path)/.fix-\(getpid())-2.partial", withIntermediateDirectories: false)
        #expect(throws: LocalError.self) { try folder.finish(manifest: ["{}"]) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: path) == [".fix-\(getpid())-2.partial"], "the rendition is gone")
        // Once the folder is empty (here: the stand-in for the full disk is gone), a second try removes it too.
        try FileManager.default.removeItem(atPath: "\(path)/.fix-\(getpid())-2.partial")
        folder.abandon()
        #expect(!FileManager.default.fileExists(atPath: path), "the folder this run made is gone again")
    }

    @Test func aManifestThatCannotBeWrittenKeepsWhatAnEarlierRunLeft() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let earlier = "\(String(repeating: "b", count: 64)).png"
        try Data("earlier".utf8).write(to: folder.appendingPathComponent(earlier))
        try Data("{}\n".utf8).write(to: folder.appendingPathComponent("fixes.jsonl"))
        let fix = try FixFolder(path: folder.path)
        let added = try place("rendition", in: fix)
        try FileManager.default.createDirectory(atPath: "\(folder.path)/.fix-\(getpid())-2.partial", withIntermediateDirectories: false)
        #expect(throws: LocalError.self) { try fix.finish(manifest: ["{}"]) }
        try FileManager.default.removeItem(atPath: "\(folder.path)/.fix-\(getpid())-2.partial")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent(added).path))
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: folder.path)) == [earlier, "fixes.jsonl"])
        #expect(try String(contentsOf: folder.appendingPathComponent("fixes.jsonl"), encoding: .utf8) == "{}\n")
    }
}

import Foundation
import Testing
@testable import NottiMedia

/// The registry behind "remove only what this run made".
@Suite struct OwnedPathsTests {
    @Test func removeAllTakesOnlyTrackedFilesAndNeverAFolderWithSomeoneElsesFileInIt() throws {
        let parent = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: parent) }
        let owned = OwnedPaths()
        let folder = try owned.makeTemporaryFolder(in: parent.path, prefix: "scratch-").get()
        let (spool, descriptor) = try owned.createUniqueFile(in: folder, prefix: "spool-").get()
        close(descriptor)
        // Something the registry did not make lands in its folder (another program, a user).
        let foreign = folder + "/user.txt"
        try Data("mine".utf8).write(to: URL(fileURLWithPath: foreign))
        owned.removeAll()
        #expect(!FileManager.default.fileExists(atPath: spool), "the tracked file is gone")
        #expect(FileManager.default.fileExists(atPath: foreign), "the foreign file stays")
        #expect(FileManager.default.fileExists(atPath: folder), "rmdir leaves a folder that is not empty")
        #expect(owned.tracked.files.isEmpty && owned.tracked.folders.isEmpty)
        // After removeAll nothing new is created: a run that is ending leaves nothing behind.
        #expect(throws: Errno(ECANCELED)) { try owned.createFile(parent.path + "/late.part").get() }
        #expect(!FileManager.default.fileExists(atPath: parent.path + "/late.part"))
    }

    @Test func createFileIsExclusiveAndRemoveTouchesOnlyWhatItCreated() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let owned = OwnedPaths()
        let existing = folder.appendingPathComponent("existing.part").path
        try Data("someone's".utf8).write(to: URL(fileURLWithPath: existing))
        #expect(throws: Errno(EEXIST)) { try owned.createFile(existing).get() }
        owned.remove(existing)
        #expect(FileManager.default.fileExists(atPath: existing), "an untracked path is never removed")
        // A symbolic link planted where a partial file goes is not followed.
        let link = folder.appendingPathComponent("link.part").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: existing)
        #expect(throws: Errno(EEXIST)) { try owned.createFile(link).get() }
        #expect(try String(contentsOfFile: existing, encoding: .utf8) == "someone's")
        let mine = folder.appendingPathComponent("mine.part").path
        close(try owned.createFile(mine).get())
        owned.release(mine)
        owned.removeAll()
        #expect(FileManager.default.fileExists(atPath: mine), "a released file is the user's")
    }

    /// Writes `text` to a new tracked file in `folder`.
    private func trackedFile(_ owned: OwnedPaths, in folder: URL, _ name: String, _ text: String) throws -> String {
        let path = folder.appendingPathComponent(name).path
        let descriptor = try owned.createFile(path).get()
        _ = Array(text.utf8).withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        return path
    }

    @Test func aFolderThatCannotBeMadeIsAnErrorAndNothingIsCreated() {
        let owned = OwnedPaths()
        #expect(throws: Errno(ENOTDIR)) { try owned.makeTemporaryFolder(in: "/etc/passwd", prefix: "x-").get() }
        #expect(owned.tracked.folders.isEmpty)
    }
}

/// Review findings on the transfer's state, and libcurl options that cannot be set.
@Suite struct TransferStateTests {
    private func sockaddrIPv4(_ text: String) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, text, &address.sin_addr)
        return address
    }

    @Test func aRefusedAddressIsForgottenOnTheNextHopAndTheNextCandidate() throws {
        let easy = try CurlEasy()
        let sink = TransferSink(
            easy: easy, fileDescriptor: -1, maxBytes: 1, deadline: .now + .seconds(5), cancellation: nil,
            denyPrivateNetworks: true)
        var privateAddress = sockaddrIPv4("10.1.2.3")
        #expect(sink.openSocket(family: AF_INET, type: Int32(SOCK_STREAM.rawValue), protocol: 0, address: &privateAddress) == -1)
        #expect(sink.blockedAddress?.refusal == "private")
        // The next candidate address is public: the socket is made (never connected here) and the refusal is forgotten.
        var publicAddress = sockaddrIPv4("192.0.2.10")
        let socket = sink.openSocket(family: AF_INET, type: Int32(SOCK_STREAM.rawValue), protocol: 0, address: &publicAddress)
        #expect(socket >= 0)
        close(socket)
        #expect(sink.blockedAddress == nil)
        _ = sink.openSocket(family: AF_INET, type: Int32(SOCK_STREAM.rawValue), protocol: 0, address: &privateAddress)
        sink.beginResponse()
        #expect(sink.blockedAddress == nil, "a new hop starts with no refusal")
    }

    @Test func anOptionLibcurlRefusesIsAnErrorNamingIt() throws {
        let easy = try CurlEasy()
        let error = try #require(throws: CurlOptionError.self) { try easy.restrictProtocols(to: "no-such-protocol") }
        #expect(error.option == "CURLOPT_PROTOCOLS_STR")
        #expect(error.message.contains("needs libcurl 7.85.0 or newer"))
    }
}

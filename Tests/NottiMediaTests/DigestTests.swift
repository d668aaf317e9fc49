import Foundation
import Testing
@testable import NottiMedia

@Suite struct DigestTests {
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
    ])
    func knownVectors(input: String, hex: String) {
        #expect(SHA256.hex(of: Array(input.utf8)) == hex)
    }

    @Test func streamingInOddPiecesEqualsOneShot() {
        let bytes = (0..<100_003).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let hasher = SHA256()
        var offset = 0
        for size in [1, 63, 64, 65, 127, 4096, 100] where offset < bytes.count {
            let end = min(bytes.count, offset + size)
            bytes[offset..<end].withUnsafeBytes { hasher.update($0) }
            offset = end
        }
        bytes[offset...].withUnsafeBytes { hasher.update($0) }
        #expect(hasher.finalizeHex() == SHA256.hex(of: bytes))
    }

    /// Writes `bytes` to a new file in `pieces`, telling a hasher after each write as libcurl's callback does.
    private func hashWhileWriting(
        _ bytes: [UInt8], pieces: [Int], openFlags: Int32 = O_RDWR, helper: Bool = true
    ) throws -> Result<String, Errno> {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("growing.part").path
        close(open(path, O_CREAT | O_WRONLY, 0o600))
        let descriptor = open(path, openFlags)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        let hasher = GrowingFileHasher(fileDescriptor: descriptor, helper: helper)
        var offset = 0
        var piece = 0
        while offset < bytes.count {
            let end = min(bytes.count, offset + pieces[piece % pieces.count])
            let written = bytes[offset..<end].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            try #require(written == end - offset)
            hasher.didWrite(written)
            offset = end
            piece += 1
        }
        return hasher.finish()
    }

    @Test(arguments: [
        (0, [16384]),
        (1, [16384]),
        // Across several of the helper's batches (256 KiB) and reads (64 KiB), in libcurl-sized and odd pieces.
        (1_000_003, [16384]),
        (1_000_003, [1, 65536, 7, 300_000, 4095]),
        (GrowingFileHasher.batchBytes, [GrowingFileHasher.batchBytes]),
    ])
    func aFileHashedAsItGrowsHashesToWhatWasWritten(size: Int, pieces: [Int]) throws {
        let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ $0 >> 9) }
        #expect(try hashWhileWriting(bytes, pieces: pieces).get() == SHA256.hex(of: bytes))
    }

    @Test func aFileThatCannotBeReadBackIsAnErrorNotADigest() throws {
        // Opened write-only, as the partial file was before the hasher: the read-back fails, and says why.
        let bytes = [UInt8](repeating: 7, count: 300_000)
        #expect(throws: Errno(EBADF)) { try hashWhileWriting(bytes, pieces: [16384], openFlags: O_WRONLY).get() }
    }

    @Test func anAbandonedHasherStopsItsHelperAtOnce() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let descriptor = open(folder.appendingPathComponent("abandoned.part").path, O_CREAT | O_RDWR, 0o600)
        defer { close(descriptor) }
        let hasher = GrowingFileHasher(fileDescriptor: descriptor)
        hasher.didWrite(0)
        // The helper waits for bytes that never come: abandon returns (joins) rather than hanging.
        hasher.abandon()
        hasher.abandon()
    }

    @Test func withoutAHelperThreadTheDigestIsMadeAtTheEnd() throws {
        // What a process at its thread limit gets: no helper, and `finish` reads the whole file back.
        let bytes = (0..<700_001).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        #expect(try hashWhileWriting(bytes, pieces: [16384], helper: false).get() == SHA256.hex(of: bytes))
    }
}

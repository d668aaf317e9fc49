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
}

internal import CSHA256

/// Streaming SHA-256, the name attachments are stored under.
struct SHA256 {
    private var context = CSHA256_Context()

    init() { CSHA256_init(&context) }

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress else { return }
        CSHA256_update(&context, base, bytes.count)
    }

    /// The digest as 64 lowercase hex digits. The context is spent afterwards.
    mutating func finalizeHex() -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        CSHA256_final(&context, &digest)
        let hexDigits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(64)
        for byte in digest {
            text.append(hexDigits[Int(byte >> 4)])
            text.append(hexDigits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    static func hex(of bytes: [UInt8]) -> String {
        var hasher = SHA256()
        bytes.withUnsafeBytes { hasher.update($0) }
        return hasher.finalizeHex()
    }
}

import Glibc
internal import CCrypto

/// Streaming SHA-256 (OpenSSL's EVP interface, hardware-accelerated where the
/// CPU has SHA extensions), the name attachments are stored under.
package final class SHA256 {
    private let context: OpaquePointer

    init() {
        guard let context = EVP_MD_CTX_new(), EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1 else {
            fatalError("OpenSSL could not set up SHA-256")
        }
        self.context = context
    }

    deinit {
        EVP_MD_CTX_free(context)
    }

    func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        _ = EVP_DigestUpdate(context, base, bytes.count)
    }

    /// The digest as 64 lowercase hex digits. Call once: the context is spent afterwards.
    func finalizeHex() -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        _ = EVP_DigestFinal_ex(context, &digest, &length)
        let hexDigits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(64)
        for byte in digest {
            text.append(hexDigits[Int(byte >> 4)])
            text.append(hexDigits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The SHA-256 of the file at `path`, as 64 lowercase hex digits; nil when it cannot be read.
    package static func hex(ofFileAt path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        let hasher = SHA256()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var offset = 0
        guard hasher.update(readingFrom: descriptor, at: &offset, upTo: nil, through: &buffer) == nil else { return nil }
        return hasher.finalizeHex()
    }

    /// Hashes the bytes of the file open on `descriptor` from `offset` (moved past what was hashed) up to
    /// `end` (nil: the file's end), read a `buffer` at a time.
    /// - Returns: the errno of a read that failed (EIO when the file ended before `end`); nil when all was read.
    func update(readingFrom descriptor: Int32, at offset: inout Int, upTo end: Int?, through buffer: inout [UInt8]) -> Int32? {
        while end.map({ offset < $0 }) ?? true {
            let wanted = min(buffer.count, end.map { $0 - offset } ?? buffer.count)
            let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, wanted, off_t(offset)) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { return errno }
            if count == 0 { return end == nil ? nil : EIO }
            buffer.withUnsafeBytes { update(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
            offset += count
        }
        return nil
    }

    /// The SHA-256 of `bytes`, its 32 bytes.
    static func digest(of bytes: ArraySlice<UInt8>) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        bytes.withUnsafeBytes { source in
            digest.withUnsafeMutableBufferPointer { _ = CCrypto.SHA256(source.baseAddress?.assumingMemoryBound(to: UInt8.self), source.count, $0.baseAddress) }
        }
        return digest
    }

    /// The SHA-256 of `bytes`, as 64 lowercase hex digits.
    package static func hex(of bytes: [UInt8]) -> String {
        let hasher = SHA256()
        bytes.withUnsafeBytes { hasher.update($0) }
        return hasher.finalizeHex()
    }
}

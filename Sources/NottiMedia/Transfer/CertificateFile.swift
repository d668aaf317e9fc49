import Glibc
internal import CCrypto

/// What `--cacert FILE` holds, judged before any download: libcurl would take
/// a file with no certificate in it (`/etc/passwd`) and only fail every
/// transfer later, as `tls_error`.
package enum CertificateFile {
    /// How many PEM certificates OpenSSL reads from the start of `path`; 0 when
    /// the first block is not one.
    /// - Throws: `Errno` when the file cannot be opened.
    package static func certificateCount(atPath path: String) throws(Errno) -> Int {
        guard let file = BIO_new_file(path, "r") else { throw Errno(errno == 0 ? ENOENT : errno) }
        defer { BIO_free(file) }
        var count = 0
        while let certificate = PEM_read_bio_X509(file, nil, nil, nil) {
            X509_free(certificate)
            count += 1
        }
        ERR_clear_error()
        return count
    }

    /// The SHA-256 of each PEM certificate in `path`, in DER (what `openssl x509 -fingerprint -sha256` prints).
    /// The blocks' base64 is decoded and hashed as it is, without parsing the certificates: OpenSSL 3's
    /// decoders took 17 ms for the system bundle, which a `--cacert` run read on its first connection.
    /// - Throws: `Errno` when the file cannot be opened.
    static func sha256Digests(atPath path: String) throws(Errno) -> [[UInt8]] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw Errno(errno) }
        defer { close(descriptor) }
        var text: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            text += chunk[..<count]
        }
        let begin = Array("-----BEGIN CERTIFICATE-----".utf8), end = Array("-----END CERTIFICATE-----".utf8)
        var digests: [[UInt8]] = []
        var at = 0
        while let start = find(begin, in: text, from: at), let stop = find(end, in: text, from: start.upperBound) {
            at = stop.upperBound
            // The base64 lines without their line breaks (EVP_DecodeBlock takes no whitespace).
            let base64 = text[start.upperBound..<stop.lowerBound].filter { $0 > 0x20 }
            guard !base64.isEmpty, base64.count % 4 == 0 else { continue }
            var der = [UInt8](repeating: 0, count: base64.count / 4 * 3)
            let decoded = base64.withUnsafeBufferPointer { source in
                der.withUnsafeMutableBufferPointer { EVP_DecodeBlock($0.baseAddress, source.baseAddress, Int32(source.count)) }
            }
            guard decoded > 0 else { continue }
            // EVP_DecodeBlock counts the padding's zero bytes too.
            let padding = base64.suffix(2).filter { $0 == UInt8(ascii: "=") }.count
            digests.append(SHA256.digest(of: der[..<(Int(decoded) - padding)]))
        }
        return digests
    }

    /// Where `needle` first occurs in `text` at or after `from`.
    private static func find(_ needle: [UInt8], in text: [UInt8], from: Int) -> Range<Int>? {
        guard let first = needle.first, text.count >= needle.count else { return nil }
        var at = from
        while at + needle.count <= text.count {
            guard let candidate = text[at...].firstIndex(of: first), candidate + needle.count <= text.count else { return nil }
            if text[candidate..<(candidate + needle.count)].elementsEqual(needle) { return candidate..<(candidate + needle.count) }
            at = candidate + 1
        }
        return nil
    }
}

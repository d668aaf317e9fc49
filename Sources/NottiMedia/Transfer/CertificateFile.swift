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
    /// The markers are found with `memchr` and the base64 decoded with its line breaks by OpenSSL's
    /// streaming decoder: with a byte-at-a-time search and a copy without whitespace, Debian's 214 KB
    /// bundle took 15.5 M instructions under callgrind, this 12.8 M (5 M of both the SHA-256, which
    /// valgrind's CPU runs without SHA-NI).
    /// - Throws: `Errno` when the file cannot be opened or read.
    static func sha256Digests(atPath path: String) throws(Errno) -> [[UInt8]] {
        let text = try FilePaths.bytes(ofFileAt: path)
        return text.withUnsafeBytes { bytes -> [[UInt8]] in
            guard let base = bytes.baseAddress else { return [] }
            guard let context = EVP_ENCODE_CTX_new() else { return [] }
            defer { EVP_ENCODE_CTX_free(context) }
            let begin: StaticString = "-----BEGIN CERTIFICATE-----", end: StaticString = "-----END CERTIFICATE-----"
            var digests: [[UInt8]] = []
            var der = [UInt8](repeating: 0, count: 16_384)
            var at = 0
            while let start = find(begin, in: bytes, from: at), let stop = find(end, in: bytes, from: start.upperBound) {
                at = stop.upperBound
                let length = stop.lowerBound - start.upperBound
                // Three bytes out for every four in, and the decoder's block of 80 characters at most.
                if der.count < length / 4 * 3 + 80 { der = [UInt8](repeating: 0, count: length / 4 * 3 + 80) }
                let size = der.withUnsafeMutableBufferPointer { output -> Int in
                    guard let out = output.baseAddress else { return -1 }
                    EVP_DecodeInit(context)
                    var written: Int32 = 0, tail: Int32 = 0
                    guard EVP_DecodeUpdate(context, out, &written, base + start.upperBound, Int32(length)) >= 0,
                          EVP_DecodeFinal(context, out + Int(written), &tail) == 1 else { return -1 }
                    return Int(written + tail)
                }
                guard size > 0 else { continue }
                digests.append(SHA256.digest(of: der[..<size]))
            }
            return digests
        }
    }

    /// Where `needle` first occurs in `bytes` at or after `from` (`memchr` for its first byte,
    /// `memcmp` for the rest: Glibc's module does not import the GNU `memmem`).
    private static func find(_ needle: StaticString, in bytes: UnsafeRawBufferPointer, from: Int) -> Range<Int>? {
        guard let base = bytes.baseAddress else { return nil }
        let length = needle.utf8CodeUnitCount
        var at = from
        while at + length <= bytes.count {
            guard let found = memchr(base + at, Int32(needle.utf8Start.pointee), bytes.count - length + 1 - at) else { return nil }
            let offset = UnsafeRawPointer(found) - base
            if memcmp(found, needle.utf8Start, length) == 0 { return offset..<(offset + length) }
            at = offset + 1
        }
        return nil
    }
}

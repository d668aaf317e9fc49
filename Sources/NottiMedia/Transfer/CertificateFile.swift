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
    /// The markers are found with `memchr`, the base64 decoded through a table (OpenSSL's streaming
    /// decoder, before, was most of the 1.5 ms Debian's 214 KB bundle took, on a `--cacert` run's path).
    /// - Throws: `Errno` when the file cannot be opened or read.
    static func sha256Digests(atPath path: String) throws(Errno) -> [[UInt8]] {
        let text = try FilePaths.bytes(ofFileAt: path)
        return text.withUnsafeBytes { bytes -> [[UInt8]] in
            let begin: StaticString = "-----BEGIN CERTIFICATE-----", end: StaticString = "-----END CERTIFICATE-----"
            var digests: [[UInt8]] = []
            var der: [UInt8] = []
            var at = 0
            while let start = find(begin, in: bytes, from: at), let stop = find(end, in: bytes, from: start.upperBound) {
                at = stop.upperBound
                guard decodeBase64(UnsafeRawBufferPointer(rebasing: bytes[start.upperBound..<stop.lowerBound]), into: &der),
                      !der.isEmpty else { continue }
                digests.append(SHA256.digest(of: der[...]))
            }
            return digests
        }
    }

    /// Decodes a PEM block's body (its line breaks and spaces skipped) into `output`.
    /// - Returns: false when a byte that is not base64 is in it, or one follows its padding.
    private static func decodeBase64(_ text: UnsafeRawBufferPointer, into output: inout [UInt8]) -> Bool {
        output.removeAll(keepingCapacity: true)
        output.reserveCapacity(text.count / 4 * 3)
        var accumulator: UInt32 = 0, bits: UInt32 = 0, padded = false
        return base64Values.withUnsafeBufferPointer { table in
            for byte in text {
                let value = table[Int(byte)]
                if value < 64 {
                    guard !padded else { return false }
                    accumulator = accumulator << 6 | UInt32(value)
                    bits += 6
                    if bits >= 8 {
                        bits -= 8
                        output.append(UInt8(truncatingIfNeeded: accumulator >> bits))
                    }
                } else if value == Self.padding {
                    padded = true
                } else if value != Self.space {
                    return false
                }
            }
            return true
        }
    }

    private static let space: UInt8 = 64, padding: UInt8 = 65
    /// Each byte's six bits in base64, `space` for what a PEM body may break its lines with, `padding` for "=",
    /// 255 for the rest.
    private static let base64Values: [UInt8] = {
        var table = [UInt8](repeating: 255, count: 256)
        for (value, byte) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8.enumerated() {
            table[Int(byte)] = UInt8(value)
        }
        for byte in " \t\r\n".utf8 { table[Int(byte)] = space }
        table[Int(UInt8(ascii: "="))] = padding
        return table
    }()

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

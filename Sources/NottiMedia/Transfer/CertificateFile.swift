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
    /// - Throws: `Errno` when the file cannot be opened.
    static func sha256Digests(atPath path: String) throws(Errno) -> [[UInt8]] {
        guard let file = BIO_new_file(path, "r") else { throw Errno(errno == 0 ? ENOENT : errno) }
        defer { BIO_free(file) }
        var digests: [[UInt8]] = []
        while let certificate = PEM_read_bio_X509(file, nil, nil, nil) {
            var digest = [UInt8](repeating: 0, count: 32)
            var length: UInt32 = 0
            if X509_digest(certificate, EVP_sha256(), &digest, &length) == 1 && length == 32 { digests.append(digest) }
            X509_free(certificate)
        }
        ERR_clear_error()
        return digests
    }
}

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
}

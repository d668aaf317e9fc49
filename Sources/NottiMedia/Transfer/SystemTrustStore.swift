internal import CCurlShim

/// The system's trust store, as libcurl reads it on Debian: the bundle
/// (`CURLOPT_CAINFO`'s default) and the hashed folder (`CURLOPT_CAPATH`). A root
/// in it is what iOS calls preinstalled (SPEC 18), even when `--cacert` gives it too.
enum SystemTrustStore {
    static let bundle = "/etc/ssl/certs/ca-certificates.crt"
    static let directory = "/etc/ssl/certs"

    /// The bundle's certificates by SHA-256, read once, by the first chain that needs it
    /// (only a `--cacert` run asks: without one, every chain is anchored in the system), after its
    /// transfer. (Read ahead on a thread of its own from 0.3.x, it cost a 5 MiB `process` 5%: 0.93 of
    /// curl + file against 0.89 read after the transfer, bench-compare single, 61 runs in turn, once the
    /// hash had the spare core; the read, about 1.5 ms of CPU, had contended with the handshake.)
    private static let bundleDigests: Set<[UInt8]> = Set((try? CertificateFile.sha256Digests(atPath: bundle)) ?? [])

    /// Whether the root of the handshake `watch` saw is one of the system's.
    static func holdsRoot(of watch: UnsafePointer<CCurlShim_TLSWatch>) -> Bool {
        var digest = [UInt8](repeating: 0, count: 32)
        guard CCurlShim_tls_root_sha256(watch, &digest) == 0 else { return false }
        // The hashed folder first: `openssl rehash` names each file by the subject's hash.
        let hash = String(CCurlShim_tls_root_subject_hash(watch), radix: 16)
        let name = String(repeating: "0", count: max(0, 8 - hash.count)) + hash
        for suffix in 0..<10 {
            guard let digests = try? CertificateFile.sha256Digests(atPath: "\(directory)/\(name).\(suffix)") else { break }
            if digests.contains(digest) { return true }
        }
        return bundleDigests.contains(digest)
    }
}

internal import CCurlShim
import Synchronization

/// The system's trust store, as libcurl reads it on Debian: the bundle
/// (`CURLOPT_CAINFO`'s default) and the hashed folder (`CURLOPT_CAPATH`). A root
/// in it is what iOS calls preinstalled (SPEC 18), even when `--cacert` gives it too.
enum SystemTrustStore {
    static let bundle = "/etc/ssl/certs/ca-certificates.crt"
    static let directory = "/etc/ssl/certs"

    /// The bundle's certificates by SHA-256, read once, by the first chain that needs it
    /// (only a `--cacert` run asks: without one, every chain is anchored in the system).
    private static let bundleDigests: Set<[UInt8]> = Set((try? CertificateFile.sha256Digests(atPath: bundle)) ?? [])

    private static let readingAhead = Atomic<Bool>(false)

    /// Starts reading the bundle on a thread of its own, once per process, when a `--cacert` fetcher is
    /// made: its first chain asks after its transfer, and the read (about 1.5 ms: the 214 KB bundle's
    /// certificates decoded and hashed) was on that path: a 5 MiB `process` went from 0.949 to 0.924 of
    /// curl + file with it read ahead (51 runs taken in turn). Beside the transfer it costs nothing; a chain that asks
    /// first waits for it (a static's one initialisation). Detached, never joined: the process ends with
    /// `_exit`, which drops a read not yet finished with the rest.
    static func readAhead() {
        guard readingAhead.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged else { return }
        JoinableThread.startIfPossible { _ = bundleDigests.count }?.detach()
    }

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

import Foundation

/// Certificates made by `openssl` for one test of iOS's connection rules (SPEC 18):
/// a root of their own and a leaf signed by it, shaped as the case needs.
struct TestCertificates {
    /// The leaf (PEM), served as the chain: the root is the client's to have.
    let chain: String
    let key: String
    /// The root (PEM): pass it with `--cacert`, or put it in the system store.
    let root: String
    let folder: URL

    enum KeyKind: String {
        case rsa1024, rsa2048, ecdsaP256
    }

    /// - Parameters:
    ///   - subjectAltName: the extension's value (`DNS:a,IP:1.2.3.4`); nil: no extension (a common name alone).
    ///   - extendedKeyUsage: nil: no extension.
    ///   - scts: how many Signed Certificate Timestamps to embed (made up: iOS's rule counts them).
    init(
        keyKind: KeyKind = .rsa2048, days: Int = 90, subjectAltName: String? = "DNS:media.notti.test,DNS:localhost,IP:127.0.0.1",
        extendedKeyUsage: String? = "serverAuth", scts: Int = 0, commonName: String = "media.notti.test", digest: String = "sha256"
    ) throws {
        folder = Paths.temporaryFolder()
        root = folder.appendingPathComponent("root.pem").path
        key = folder.appendingPathComponent("leaf.key").path
        chain = folder.appendingPathComponent("leaf.pem").path
        let rootKey = folder.appendingPathComponent("root.key").path
        try Self.openssl(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", rootKey, "-out", root, "-days", "3650",
                          "-subj", "/CN=notti-media rule test root \(UUID().uuidString.prefix(8))",
                          "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"])
        switch keyKind {
        case .rsa1024: try Self.openssl(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024", "-out", key])
        case .rsa2048: try Self.openssl(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", key])
        case .ecdsaP256: try Self.openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", key])
        }
        let request = folder.appendingPathComponent("leaf.csr").path
        try Self.openssl(["req", "-new", "-key", key, "-subj", "/CN=\(commonName)", "-out", request])
        var extensions = ["basicConstraints=CA:FALSE", "keyUsage=critical,digitalSignature,keyEncipherment"]
        if let subjectAltName { extensions.append("subjectAltName=\(subjectAltName)") }
        if let extendedKeyUsage { extensions.append("extendedKeyUsage=\(extendedKeyUsage)") }
        if scts > 0 { extensions.append("1.3.6.1.4.1.11129.2.4.2=DER:\(Self.sctListExtension(count: scts))") }
        let extensionFile = folder.appendingPathComponent("leaf.ext")
        try extensions.joined(separator: "\n").appending("\n").write(to: extensionFile, atomically: true, encoding: .utf8)
        try Self.openssl(["x509", "-req", "-in", request, "-CA", root, "-CAkey", rootKey, "-CAcreateserial", "-days", "\(days)",
                          "-\(digest)", "-extfile", extensionFile.path, "-out", chain])
    }

    func remove() { try? FileManager.default.removeItem(at: folder) }

    /// The extension's value: an OCTET STRING holding RFC 6962's TLS-encoded list of
    /// `count` version-1 SCTs (log IDs and signatures made up; nothing verifies them offline).
    static func sctListExtension(count: Int) -> String {
        var sct: [UInt8] = [0]                                      // version v1
        sct += [UInt8](repeating: 0xAB, count: 32)                  // log ID
        sct += [0, 0, 1, 0x80, 0, 0, 0, 0]                          // timestamp
        sct += [0, 0]                                               // no extensions
        sct += [4, 3, 0, 8, 0x30, 6, 2, 1, 1, 2, 1, 1]              // SHA-256, ECDSA, an 8-byte signature
        var list: [UInt8] = []
        for _ in 0..<count { list += [UInt8(sct.count >> 8), UInt8(sct.count & 0xFF)] + sct }
        list = [UInt8(list.count >> 8), UInt8(list.count & 0xFF)] + list
        let length: [UInt8] = list.count < 128 ? [UInt8(list.count)] : [0x81, UInt8(list.count)]
        return ([0x04] + length + list).map { String(format: "%02X", $0) }.joined()
    }

    private static func openssl(_ arguments: [String]) throws {
        let result = try CLI.run(executable: "/usr/bin/openssl", arguments)
        guard result.status == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "openssl \(arguments.first ?? ""): \(result.stderr)"])
        }
    }
}

internal import CCurlShim

extension CurlEasy {
    /// The facts of the last transfer's new connection, for the URL's `host`: nil when
    /// it made none (plain http, a reused connection, a failed handshake). Forward
    /// secrecy is `.negotiated` or `.unknown` here: `MediaFetcher` probes the rest.
    func handshakeFacts(host: String, trust: MediaPolicy.Trust) -> TLSFacts? {
        guard completedHandshake else { return nil }
        let watch = UnsafePointer(tlsWatch)
        let length = Int(CCurlShim_tls_chain_length(watch))
        guard length > 0, let leaf = certificate(at: 0) else { return nil }
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        return TLSFacts(
            host: bare,
            version: tlsWatch.pointee.version.map { String(cString: $0) } ?? "unknown",
            cipher: tlsWatch.pointee.cipher.map { String(cString: $0) } ?? "unknown",
            forwardSecrecy: tlsWatch.pointee.forward_secret != 0 ? .negotiated : .unknown,
            leaf: leaf,
            // The root (last) is a trust anchor: its key and self-signature are not judged.
            intermediates: length > 2 ? (1..<(length - 1)).compactMap { certificate(at: $0) } : [],
            leafNamesHost: CCurlShim_tls_leaf_names(watch, bare) == 1,
            anchor: trust.extraCAFile == nil || SystemTrustStore.holdsRoot(of: watch) ? .system : .cacert)
    }

    private func certificate(at index: Int) -> CertificateFacts? {
        var read = CCurlShim_Certificate()
        guard CCurlShim_tls_certificate(tlsWatch, Int32(index), &read) == 0 else { return nil }
        defer { CCurlShim_certificate_free(&read) }
        let subject = withUnsafeBytes(of: read.subject) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let usage = withUnsafeBytes(of: read.extended_key_usage) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let names = read.subject_alt_names.map { String(cString: $0) } ?? ""
        return CertificateFacts(
            subject: subject,
            subjectAltNames: names.split(separator: "\n").map { entry in
                // "DNS:name" / "IP:address": the value as written.
                String(entry.drop { $0 != ":" }.dropFirst())
            },
            keyType: read.key_type.map { String(cString: $0) } ?? "unknown",
            keyBits: Int(read.key_bits),
            signature: read.signature.map { String(cString: $0) } ?? "unknown",
            signatureIsSHA2: read.signature_sha2 != 0,
            notBefore: Int(read.not_before), notAfter: Int(read.not_after),
            extendedKeyUsage: read.has_extended_key_usage != 0 ? usage.split(separator: ",").map(String.init) : nil,
            scts: max(0, Int(read.scts)))
    }
}

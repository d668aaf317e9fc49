import Glibc

/// What one TLS connection showed (SPEC 18): the version and suite it agreed,
/// whether the server offers a suite with forward secrecy, and the verified
/// chain as iOS's certificate rules read it. `media.tls` gives the final hop's;
/// `IOSConnectionRules` judges every hop's.
package struct TLSFacts: Sendable, Equatable {
    /// The host the connection was made for (the URL's, not a `--connect-to` target).
    package var host: String
    /// "TLSv1.2", "TLSv1.3".
    package var version: String
    /// The negotiated suite's IANA name.
    package var cipher: String
    package var forwardSecrecy: ForwardSecrecy
    /// The server's certificate.
    package var leaf: CertificateFacts
    /// The certificates between the leaf and the root (the root's own key and self-signature are not judged).
    package var intermediates: [CertificateFacts]
    /// Whether the leaf's subjectAltName names `host` (its common name never counts).
    package var leafNamesHost: Bool
    /// Which trust store's root anchored the chain.
    package var anchor: Anchor

    package enum ForwardSecrecy: Sendable, Equatable {
        /// The handshake agreed a TLS 1.3 suite or an ECDHE key exchange.
        case negotiated
        /// It did not, but a handshake offering only iOS's suites succeeded (the server prefers another).
        case offered
        /// A handshake offering only iOS's suites was refused: the server has none of them.
        case notOffered
        /// The probe could not tell (it did not connect).
        case unknown
    }

    package enum Anchor: String, Sendable, Equatable {
        /// A root of the system's trust store: iOS's "preinstalled" roots, with their extra rules.
        case system
        /// A root only `--cacert` gave: one a user or an MDM profile installs on the phone.
        case cacert
    }

    /// `media.tls`.
    package var json: JSONValue {
        .object([
            JSONMember("version", .string(version)),
            JSONMember("cipher", .string(cipher)),
            JSONMember("subjectAltNames", .array(leaf.subjectAltNames.map { .string($0) })),
            JSONMember("keyType", .string(leaf.keyType)),
            JSONMember("keyBits", .int(leaf.keyBits)),
            JSONMember("signature", .string(leaf.signature)),
            JSONMember("notBefore", .string(CertificateFacts.timestamp(leaf.notBefore))),
            JSONMember("notAfter", .string(CertificateFacts.timestamp(leaf.notAfter))),
            JSONMember("validityDays", .int(leaf.validityDays)),
            JSONMember("extendedKeyUsage", leaf.extendedKeyUsage.map { .array($0.map { .string($0) }) } ?? .null),
            JSONMember("scts", .int(leaf.scts)),
            JSONMember("anchor", .string(anchor.rawValue)),
        ])
    }
}

/// One certificate of a verified chain, as iOS's rules read it.
package struct CertificateFacts: Sendable, Equatable {
    /// The subject, one line (`/CN=media.example.com`).
    package var subject: String
    /// DNS names and IP addresses, as written.
    package var subjectAltNames: [String]
    /// "RSA", "ECDSA", "Ed25519", …
    package var keyType: String
    package var keyBits: Int
    /// OpenSSL's long name of the signature algorithm (`sha256WithRSAEncryption`, `ecdsa-with-SHA256`).
    package var signature: String
    /// The signature's digest is SHA-224, -256, -384 or -512.
    package var signatureIsSHA2: Bool
    /// Seconds since 1970, UTC.
    package var notBefore: Int
    package var notAfter: Int
    /// Its purposes' short names (`serverAuth`); nil without the extension.
    package var extendedKeyUsage: [String]?
    /// Embedded Signed Certificate Timestamps (0 without the extension).
    package var scts: Int

    /// notAfter − notBefore, in days (rounded: a "90-day" certificate often ends a second early).
    package var validityDays: Int { Int((Double(validitySeconds) / 86_400).rounded()) }
    package var validitySeconds: Int { notAfter - notBefore }

    /// `2026-12-01T17:26:39Z`.
    package static func timestamp(_ seconds: Int) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T"
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
    }

    /// `2026-12-01`.
    package static func date(_ seconds: Int) -> String { String(timestamp(seconds).prefix(10)) }

    /// The seconds since 1970 of a `timestamp`'s text (`2026-12-13T00:00:00Z`); nil for any other text.
    package static func seconds(fromTimestamp text: String) -> Int? {
        let digits = Array(text.utf8)
        guard digits.count == 20, digits[4] == UInt8(ascii: "-"), digits[10] == UInt8(ascii: "T"), digits[19] == UInt8(ascii: "Z") else { return nil }
        func number(_ range: Range<Int>) -> Int32? { Int32(String(decoding: digits[range], as: UTF8.self)) }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
              let minute = number(14..<16), let second = number(17..<19) else { return nil }
        var parts = tm()
        parts.tm_year = year - 1900
        parts.tm_mon = month - 1
        parts.tm_mday = day
        parts.tm_hour = hour
        parts.tm_min = minute
        parts.tm_sec = second
        return Int(timegm(&parts))
    }
}

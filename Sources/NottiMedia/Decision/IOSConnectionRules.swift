/// How iOS judges the TLS connection of every download an extension makes
/// (SPEC 18), beyond what curl and Android check: App Transport Security's
/// forward secrecy, and the certificate rules Apple applies whatever ATS says.
/// A connection that breaks one is refused on the phone: the iOS record's
/// reason is `ats_violation`; Android records of the same download are not affected.
///
/// Sources: Apple's Security framework (`SecProtocolConfiguration.m`: the ATS
/// suites are TLS 1.3's and ECDHE's; RSA 2048, ECDSA 256, SHA-2), Apple support
/// 103769 (iOS 13: SAN names only, serverAuth and 825 days from 2019-07-01),
/// 102028 (398 days from 2020-09-01 under preinstalled roots) and 103214
/// (Certificate Transparency). docs/behaviour.md lists them.
package enum IOSConnectionRules {
    package enum Rule: String, Sendable, Equatable, CaseIterable {
        case forwardSecrecy = "forward secrecy"
        case keySize = "key size"
        case signature = "SHA-2 signatures"
        case hostName = "host name in subjectAltName"
        case extendedKeyUsage = "serverAuth extended key usage"
        case validity825 = "825-day validity"
        case validity398 = "398-day validity"
        case certificateTransparency = "Certificate Transparency"

        /// What to do about it: the end of the message.
        package var fix: String {
            switch self {
            case .forwardSecrecy: "offer TLS 1.3 or an ECDHE suite (ECDHE-RSA-AES128-GCM-SHA256)"
            case .keySize: "use an RSA key of 2048 bits or more, or ECDSA P-256 or larger"
            case .signature: "have the certificate signed with SHA-256"
            case .hostName: "put the host name in the certificate's subjectAltName"
            case .extendedKeyUsage: "issue the certificate with extendedKeyUsage serverAuth"
            case .validity825: "issue a certificate valid for at most 825 days"
            case .validity398: "issue a certificate valid for at most 398 days"
            case .certificateTransparency: "use a certificate from a public CA that embeds SCTs (every public CA does)"
            }
        }
    }

    package struct Violation: Sendable, Equatable {
        package var rule: Rule
        /// The rule, the field and its value, for the record's message.
        package var detail: String
        /// Forward secrecy is App Transport Security's rule: `--allow-http` (an app allowing arbitrary loads) lifts it.
        package var liftedByArbitraryLoads: Bool { rule == .forwardSecrecy }

        /// The record's message: the rule broken, and that curl and Android connect.
        package var message: String {
            "\(detail): iOS refuses this connection, although curl and Android connect; \(rule.fix)"
        }
    }

    /// 2019-07-01T00:00:00Z: leaves issued since need serverAuth and at most 825 days (support 103769).
    static let extendedRulesSince = 1_561_939_200
    /// 2020-09-01T00:00:00Z: leaves issued since under a preinstalled root are valid at most 398 days (support 102028).
    static let shortValiditySince = 1_598_918_400
    static let day = 86_400

    /// Every rule `tls` breaks, in the order iOS meets them: the handshake's suites, the chain's keys and
    /// signatures, the leaf's names, purposes and dates, then what only preinstalled roots require.
    package static func violations(of tls: TLSFacts) -> [Violation] {
        var found: [Violation] = []
        let host = tls.host
        if tls.forwardSecrecy == .notOffered {
            found.append(Violation(rule: .forwardSecrecy, detail:
                "App Transport Security requires forward secrecy (a TLS 1.3 or ECDHE suite), and \(host) offers none of iOS's suites "
                    + "(cipher \(tls.cipher), \(tls.version))"))
        }
        for (position, certificate) in ([tls.leaf] + tls.intermediates).enumerated() {
            let which = position == 0 ? "the leaf certificate of \(host)" : "the intermediate certificate \(certificate.subject)"
            let minimum = certificate.keyType == "RSA" ? 2048 : certificate.keyType == "ECDSA" ? 256 : 0
            if certificate.keyBits < minimum {
                found.append(Violation(rule: .keySize, detail:
                    "iOS requires RSA keys of at least 2048 bits and ECDSA keys of at least 256, and \(which) has keyType "
                        + "\(certificate.keyType), keyBits \(certificate.keyBits)"))
            }
            if !certificate.signatureIsSHA2 {
                found.append(Violation(rule: .signature, detail:
                    "iOS requires SHA-2 signatures, and \(which) has signature \(certificate.signature)"))
            }
        }
        let leaf = tls.leaf
        if !tls.leafNamesHost {
            let names = leaf.subjectAltNames.isEmpty ? "none" : leaf.subjectAltNames.joined(separator: ", ")
            found.append(Violation(rule: .hostName, detail:
                "iOS trusts only the subjectAltName (never the common name), and the leaf certificate's subjectAltNames "
                    + "(\(names)) do not name \(host) (subject \(leaf.subject))"))
        }
        if leaf.notBefore >= extendedRulesSince {
            if !(leaf.extendedKeyUsage ?? []).contains("serverAuth") {
                let usage = leaf.extendedKeyUsage.map { $0.isEmpty ? "empty" : $0.joined(separator: ", ") } ?? "absent"
                found.append(Violation(rule: .extendedKeyUsage, detail:
                    "iOS requires serverAuth in the extendedKeyUsage of a certificate issued since 2019-07-01, and the leaf of "
                        + "\(host) (notBefore \(CertificateFacts.date(leaf.notBefore))) has extendedKeyUsage \(usage)"))
            }
            if leaf.validitySeconds > 825 * day {
                found.append(Violation(rule: .validity825, detail:
                    "iOS requires a validity of at most 825 days for a certificate issued since 2019-07-01, and the leaf of "
                        + "\(host) has validityDays \(leaf.validityDays)"))
            }
        }
        if tls.anchor == .system {
            if leaf.notBefore >= shortValiditySince && leaf.validitySeconds > 398 * day {
                found.append(Violation(rule: .validity398, detail:
                    "iOS requires a validity of at most 398 days for a certificate issued since 2020-09-01 under a preinstalled "
                        + "root, and the leaf of \(host) has validityDays \(leaf.validityDays) (anchor system)"))
            }
            let required = leaf.validitySeconds <= 180 * day ? 2 : 3
            if leaf.scts < required {
                found.append(Violation(rule: .certificateTransparency, detail:
                    "iOS requires \(required) embedded SCTs in a certificate valid for \(leaf.validityDays) days under a "
                        + "preinstalled root, and the leaf of \(host) has scts \(leaf.scts) (anchor system)"))
            }
        }
        return found
    }
}

/// One of iOS's connection rules broken on hop `hop` (0: the URL itself; n: redirect n).
package struct HopViolation: Sendable, Equatable {
    package var hop: Int
    /// The host of that hop's connection.
    package var host: String
    package var violation: IOSConnectionRules.Violation
}

extension TransferFacts {
    /// The first of iOS's connection rules a hop broke, as `policy` judges them: none unless its
    /// records are iOS's; forward secrecy lifted when the app allows arbitrary loads.
    package func connectionViolation(under policy: MediaPolicy) -> HopViolation? {
        guard policy.checksConnectionAsIOS else { return nil }
        for connection in hopConnections {
            for violation in IOSConnectionRules.violations(of: connection.tls)
            where !(policy.allowsArbitraryLoads && violation.liftedByArbitraryLoads) {
                return HopViolation(hop: connection.hop, host: connection.tls.host, violation: violation)
            }
        }
        return nil
    }
}

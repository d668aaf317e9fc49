import Foundation
import Testing
@testable import NottiMedia

/// SPEC 18, the pure part: iOS's rules over made-up connections, and which records they touch.
@Suite struct ConnectionRuleJudgeTests {
    static let now = 1_796_140_800  // 2026-12-01
    static let day = 86_400

    static func leaf(days: Int = 90, issued: Int = now, keyType: String = "RSA", keyBits: Int = 2048,
                     names: [String] = ["media.example"], usage: [String]? = ["serverAuth"], scts: Int = 3, sha2: Bool = true) -> CertificateFacts {
        CertificateFacts(
            subject: "/CN=media.example", subjectAltNames: names, keyType: keyType, keyBits: keyBits,
            signature: sha2 ? "sha256WithRSAEncryption" : "sha1WithRSAEncryption", signatureIsSHA2: sha2,
            notBefore: issued, notAfter: issued + days * day, extendedKeyUsage: usage, scts: scts)
    }

    static func tls(_ leaf: CertificateFacts = leaf(), anchor: TLSFacts.Anchor = .system, secrecy: TLSFacts.ForwardSecrecy = .negotiated,
                    namesHost: Bool = true, intermediates: [CertificateFacts] = []) -> TLSFacts {
        TLSFacts(host: "media.example", version: "TLSv1.3", cipher: "TLS_AES_128_GCM_SHA256", forwardSecrecy: secrecy, leaf: leaf,
                 intermediates: intermediates, leafNamesHost: namesHost, anchor: anchor)
    }

    @Test(arguments: [
        ("a public 90-day leaf with 2 SCTs", tls(leaf(scts: 2)), [String]()),
        ("a user-installed root's 825-day leaf", tls(leaf(days: 825, scts: 0), anchor: .cacert), []),
        ("forward secrecy not offered", tls(secrecy: .notOffered), ["forward secrecy"]),
        ("the server merely prefers RSA", tls(secrecy: .offered), []),
        ("the probe could not tell", tls(secrecy: .unknown), []),
        ("RSA 1024", tls(leaf(keyBits: 1024)), ["key size"]),
        ("ECDSA 224", tls(leaf(keyType: "ECDSA", keyBits: 224)), ["key size"]),
        ("ECDSA 256", tls(leaf(keyType: "ECDSA", keyBits: 256)), []),
        ("a SHA-1 intermediate", tls(intermediates: [leaf(sha2: false)]), ["SHA-2 signatures"]),
        ("a common name alone", tls(leaf(names: []), namesHost: false), ["host name in subjectAltName"]),
        ("no serverAuth", tls(leaf(usage: nil), anchor: .cacert), ["serverAuth extended key usage"]),
        ("no serverAuth, issued before 2019-07-01", tls(leaf(issued: 1_561_000_000, usage: nil), anchor: .cacert), []),
        ("900 days", tls(leaf(days: 900), anchor: .cacert), ["825-day validity"]),
        ("500 days, public", tls(leaf(days: 500)), ["398-day validity"]),
        ("500 days, public, issued before 2020-09-01", tls(leaf(days: 500, issued: 1_598_000_000)), []),
        ("500 days, user-installed root", tls(leaf(days: 500), anchor: .cacert), []),
        ("public, 1 SCT for 90 days", tls(leaf(scts: 1)), ["Certificate Transparency"]),
        ("public, 2 SCTs for 200 days", tls(leaf(days: 200, scts: 2)), ["Certificate Transparency"]),
        ("public, 3 SCTs for 200 days", tls(leaf(days: 200, scts: 3)), []),
    ])
    func theRulesIOSApplies(name: String, facts: TLSFacts, broken: [String]) {
        #expect(IOSConnectionRules.violations(of: facts).map(\.rule.rawValue) == broken, "\(name)")
    }

    @Test func theMessageNamesTheRuleTheFieldAndItsValueAndThatCurlAndAndroidConnect() {
        let message = IOSConnectionRules.violations(of: Self.tls(Self.leaf(days: 500))).first?.message ?? ""
        #expect(message.contains("398 days") && message.contains("validityDays 500") && message.contains("curl and Android connect"), "\(message)")
    }

    /// One download of a send request's URL, judged for its iOS and Android records.
    @Test func onlyIOSRecordsAreRefusedAndAllowHTTPLiftsForwardSecrecyAlone() {
        func verdicts(_ facts: TLSFacts, options: FetchOptions = FetchOptions()) -> (ios: String, android: String) {
            let ios = SDKProfile.fcm.policy(options)
            let android = SDKProfile.androidFCM.policy(options)
            var transfer = TransferFacts(finalURL: "https://media.example/a.jpg")
            transfer.httpStatus = 200
            transfer.noteConnection(facts, hop: 0, now: Self.now)
            var mediaFacts = MediaFacts(url: "https://media.example/a.jpg", policy: .loosest(of: [ios, android]))
            mediaFacts.transfer = transfer
            mediaFacts.bytes = 2_000
            let result = MediaResult.downloaded(MediaDownload(
                facts: mediaFacts, source: WorkingFile(placedAt: "/nonexistent"), folder: "/nonexistent", sniffedMime: "image/jpeg",
                leadingBytes: [0xFF, 0xD8]))
            func name(_ result: MediaResult) -> String {
                if case .failed(_, let reason, _, _) = result { return reason.rawValue }
                return "fetched"
            }
            return (name(result.judged(under: ios)), name(result.judged(under: android)))
        }
        #expect(verdicts(Self.tls(secrecy: .notOffered)) == ("ats_violation", "fetched"))
        #expect(verdicts(Self.tls(secrecy: .notOffered), options: FetchOptions(allowHTTP: true)) == ("fetched", "fetched"))
        #expect(verdicts(Self.tls(Self.leaf(days: 900)), options: FetchOptions(allowHTTP: true)) == ("ats_violation", "fetched"))
    }

    @Test func aLeafEndingWithin30DaysIsNoted() {
        var transfer = TransferFacts(finalURL: "https://media.example/a.jpg")
        transfer.noteConnection(Self.tls(Self.leaf(days: 40, issued: Self.now - 30 * Self.day)), hop: 0, now: Self.now)
        #expect(transfer.expiringCertificate?.notAfter == Self.now + 10 * Self.day)
        var later = TransferFacts(finalURL: "https://media.example/a.jpg")
        later.noteConnection(Self.tls(Self.leaf(days: 90)), hop: 0, now: Self.now)
        #expect(later.expiringCertificate == nil)
    }

    /// The digests a `--cacert` run tells a system root by are the certificates' own fingerprints, for the
    /// whole system bundle (read from its PEM text without parsing each certificate).
    @Test func systemBundleDigestsAreTheFingerprintsOpenSSLPrints() throws {
        let bundle = "/etc/ssl/certs/ca-certificates.crt"
        let ours = try CertificateFile.sha256Digests(atPath: bundle).map { $0.map { String(format: "%02X", $0) }.joined() }
        // One file per certificate (csplit), each fingerprinted by OpenSSL's own parser.
        let script = #"csplit -s -z -f "$1/c" "$2" '/-----BEGIN CERTIFICATE-----/' '{*}'; for f in "$1"/c*; do grep -q BEGIN "$f" && openssl x509 -noout -fingerprint -sha256 -in "$f"; done"#
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try CLI.run(executable: "/bin/bash", ["-c", script, "_", folder.path, bundle])
        let theirs = result.stdout.split(separator: "\n").compactMap { $0.split(separator: "=").last.map { $0.replacingOccurrences(of: ":", with: "") } }
        #expect(ours.count > 100)
        #expect(ours.count == theirs.count && Set(ours) == Set(theirs), "\(Set(ours).symmetricDifference(theirs))")
    }
}

/// SPEC 18 from the outside: real TLS on loopback, a server per case with certificates
/// made by `openssl`, one send request whose picture both platforms show.
@Suite(.serialized) struct ConnectionRuleTests {
    struct Run {
        var result: CLI.Result
        var ios: [String: Any]
        var android: [String: Any]

        func reason(_ report: [String: Any]) -> String? { report["reason"] as? String }
        func tls(_ report: [String: Any]) -> [String: Any] { (report["media"] as? [String: Any])?["tls"] as? [String: Any] ?? [:] }
        func codes(_ report: [String: Any]) -> [String] {
            (report["diagnostics"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
        }
        func message(_ report: [String: Any], _ code: String) -> String {
            (report["diagnostics"] as? [[String: Any]] ?? []).first { $0["code"] as? String == code }?["message"] as? String ?? ""
        }
    }

    static func request(_ url: String) -> String {
        let message: [String: Any] = [
            "token": "device", "notification": ["title": "Sale", "body": "50% off", "image": url], "data": ["notification_id": "n-1"],
            "apns": ["payload": ["aps": ["mutable-content": 1]]],
        ]
        return String(decoding: try! JSONSerialization.data(withJSONObject: ["message": message], options: [.sortedKeys, .withoutEscapingSlashes]),
                      as: UTF8.self)
    }

    /// `process --report` on a request for media.notti.test's photo, served by `server`.
    /// - Parameter systemRoot: run in a private mount namespace whose system CA bundle is this root alone
    ///   (what iOS calls a preinstalled root); otherwise the root is given with `--cacert`.
    static func run(_ server: TestServer, root: String, systemRoot: Bool = false, _ extra: [String] = []) throws -> Run {
        let out = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: out) }
        let arguments = ["process", "-", "--report", "--out", out.path,
                         "--connect-to", "media.notti.test:\(server.port):127.0.0.1:\(server.port)"]
            + (systemRoot ? [] : ["--cacert", root]) + extra
        let stdin = request("https://media.notti.test:\(server.port)/media/photo.jpg")
        let result: CLI.Result
        if systemRoot {
            let script = #"mount --bind "$1" /etc/ssl/certs/ca-certificates.crt && shift && exec "$@""#
            result = try CLI.run(executable: "/usr/bin/unshare", ["-m", "/bin/sh", "-c", script, "sh", root, CLI.binary] + arguments,
                                 stdin: stdin)
        } else {
            result = try CLI.run(arguments, stdin: stdin)
        }
        let json = result.json
        OutFolder.expectHoldsExactly(out, namedBy: [json["ios"], json["android"]].compactMap { $0 as? [String: Any] })
        return Run(result: result, ios: json["ios"] as? [String: Any] ?? [:], android: json["android"] as? [String: Any] ?? [:])
    }

    static let canMount = getuid() == 0

    @Test func aServerOfferingOnlyRSAKeyExchangeIsRefusedByIOSAlone() throws {
        let certificates = try TestCertificates()
        defer { certificates.remove() }
        let server = TestServer(certificate: (certificates.chain, certificates.key), ciphers: "AES128-GCM-SHA256")
        let run = try Self.run(server, root: certificates.root)
        #expect(run.reason(run.ios) == "ats_violation")
        #expect(run.ios["outcome"] as? String == "unchanged")
        let message = run.message(run.ios, "ats_violation")
        #expect(message.contains("forward secrecy") && message.contains("TLS_RSA_WITH_AES_128_GCM_SHA256")
                && message.contains("curl and Android connect"), "\(message)")
        #expect(run.android["outcome"] as? String == "attached")
        for report in [run.ios, run.android] {
            #expect(run.tls(report)["version"] as? String == "TLSv1.2")
            #expect(run.tls(report)["cipher"] as? String == "TLS_RSA_WITH_AES_128_GCM_SHA256")
        }
        let allowed = try Self.run(server, root: certificates.root, ["--allow-http"])
        #expect(allowed.ios["outcome"] as? String == "attached", "an app allowing arbitrary loads connects")
        #expect(allowed.android["outcome"] as? String == "attached")
    }

    @Test func theSummaryNamesARefusedHostOnceAndThePreviewSaysWhy() throws {
        let certificates = try TestCertificates()
        defer { certificates.remove() }
        let server = TestServer(certificate: (certificates.chain, certificates.key), ciphers: "AES128-GCM-SHA256")
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let payloads = ["photo.jpg", "logo.png", "photo.jpg"].map { name in
            #"{"aps": {"alert": "hi", "mutable-content": 1}, "notification_id": "n", "notti_image_url": "https://media.notti.test:\#(server.port)/media/\#(name)"}"#
        }.joined(separator: "\n")
        let page = folder.appendingPathComponent("page.html").path
        let options = ["--cacert", certificates.root, "--connect-to", "media.notti.test:\(server.port):127.0.0.1:\(server.port)",
                       "--out", folder.appendingPathComponent("out").path]
        let text = try CLI.run(["check", "-", "--html", page] + options, stdin: payloads)
        #expect(text.status == 1)
        let refusedLines = text.stdout.split(separator: "\n").filter { $0.contains("iPhones refuse this server: forward secrecy") }
        #expect(refusedLines.count == 1 && refusedLines.first?.contains("media.notti.test") == true, "\(text.stdout)")
        let json = try CLI.run(["check", "-", "--format", "json"] + options, stdin: payloads)
        let summary = json.stdout.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }.last?["summary"] as? [String: Any]
        let hosts = summary?["hosts"] as? [[String: Any]] ?? []
        #expect(hosts.filter { $0["atsViolation"] as? String == "forward secrecy" }.map { $0["host"] as? String } == ["media.notti.test"])
        let html = try String(contentsOfFile: page, encoding: .utf8)
        #expect(html.contains("iPhones refuse this server: App Transport Security requires forward secrecy"))
    }

    @Test func aServerThatPrefersRSAButOffersECDHEPasses() throws {
        let certificates = try TestCertificates()
        defer { certificates.remove() }
        let server = TestServer(certificate: (certificates.chain, certificates.key), ciphers: "AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256")
        let run = try Self.run(server, root: certificates.root)
        #expect(run.ios["outcome"] as? String == "attached", "\(run.codes(run.ios))")
        #expect(run.tls(run.ios)["cipher"] as? String == "TLS_RSA_WITH_AES_128_GCM_SHA256", "what the download negotiated")
    }

    /// Issue 61 (item 10): a certificate name holding `\nDNS:` is one name, escaped, not two (the list read from
    /// OpenSSL was split at line breaks, so `x.test\nDNS:forged.test` read as `x.test` and `forged.test`).
    @Test func aNameWithALineBreakStaysOneName() throws {
        func tagged(_ tag: UInt8, _ bytes: [UInt8]) -> [UInt8] { [tag, UInt8(bytes.count)] + bytes }
        let names = tagged(0x82, Array("media.notti.test".utf8)) + tagged(0x82, Array("x.test\nDNS:forged.test".utf8))
            + tagged(0x87, [127, 0, 0, 1])
        let der = tagged(0x30, names).map { String(format: "%02X", $0) }.joined()
        let certificates = try TestCertificates(subjectAltName: "DER:\(der)")
        defer { certificates.remove() }
        let server = TestServer(certificate: (certificates.chain, certificates.key))
        let run = try Self.run(server, root: certificates.root)
        #expect(run.ios["outcome"] as? String == "attached", "\(run.codes(run.ios))")
        #expect(run.tls(run.ios)["subjectAltNames"] as? [String] == ["media.notti.test", "x.test\\nDNS:forged.test", "127.0.0.1"],
                "\(run.tls(run.ios))")
    }

    @Test(arguments: [
        ("a common name and no subjectAltName", "do not name media.notti.test", "subjectAltNames", 0),
        ("900 days", "validityDays 900", "validityDays", 1),
        ("no extendedKeyUsage", "extendedKeyUsage absent", "extendedKeyUsage", 2),
    ])
    func aLeafThatBreaksIOSsCertificateRulesIsRefusedByIOSAlone(name: String, expected: String, field: String, which: Int) throws {
        let certificates = try [
            { try TestCertificates(subjectAltName: nil) },
            { try TestCertificates(days: 900) },
            { try TestCertificates(extendedKeyUsage: nil) },
        ][which]()
        defer { certificates.remove() }
        let server = TestServer(certificate: (certificates.chain, certificates.key))
        let run = try Self.run(server, root: certificates.root)
        #expect(run.reason(run.ios) == "ats_violation", "\(name)")
        #expect(run.message(run.ios, "ats_violation").contains(expected), "\(run.message(run.ios, "ats_violation"))")
        #expect(run.android["outcome"] as? String == "attached", "curl and Android connect: \(name)")
        let tls = run.tls(run.ios)
        #expect(tls["anchor"] as? String == "cacert")
        switch which {
        case 0: #expect((tls["subjectAltNames"] as? [String]) == [])
        case 1: #expect(tls["validityDays"] as? Int == 900)
        default: #expect(tls["extendedKeyUsage"] is NSNull)
        }
        #expect(run.tls(run.android)[field] != nil)
    }

    @Test(.enabled(if: canMount, "a private mount namespace needs root (CI runs as root)"),
          arguments: [(500, 3, "398-day validity"), (90, 1, "Certificate Transparency"), (90, 2, "")])
    func aPublicRootsLeafMustBeShortLivedAndLogged(days: Int, scts: Int, broken: String) throws {
        let certificates = try TestCertificates(days: days, scts: scts)
        defer { certificates.remove() }
        let server = TestServer(certificate: (certificates.chain, certificates.key))
        let system = try Self.run(server, root: certificates.root, systemRoot: true)
        #expect(run(system.tls(system.ios), anchor: "system", days: days, scts: scts))
        if broken.isEmpty {
            #expect(system.ios["outcome"] as? String == "attached", "\(system.codes(system.ios)) \(system.result.stderr)")
        } else {
            #expect(system.reason(system.ios) == "ats_violation", "\(system.result.stderr)")
            #expect(system.message(system.ios, "ats_violation").contains(broken == "398-day validity" ? "398 days" : "SCTs"))
        }
        #expect(system.android["outcome"] as? String == "attached")
        // The same leaf under a root the user installed (--cacert): those two rules do not apply.
        let installed = try Self.run(server, root: certificates.root)
        #expect(run(installed.tls(installed.ios), anchor: "cacert", days: days, scts: scts))
        #expect(installed.ios["outcome"] as? String == "attached", "\(installed.codes(installed.ios))")
    }

    private func run(_ tls: [String: Any], anchor: String, days: Int, scts: Int) -> Bool {
        tls["anchor"] as? String == anchor && tls["validityDays"] as? Int == days && tls["scts"] as? Int == scts
    }

    /// Debian's OpenSSL refuses these before iOS's rules could: `tls_error` on both platforms, naming iOS's rule.
    @Test(arguments: [("a 1024-bit RSA key", "key size"), ("a SHA-1 signature", "SHA-2 signatures")])
    func whatOpenSSLRefusesFirstNamesIOSsRuleToo(name: String, rule: String) throws {
        let certificates = rule == "key size" ? try TestCertificates(keyKind: .rsa1024) : try TestCertificates(digest: "sha1")
        defer { certificates.remove() }
        // The server lowers its own security level to serve such a certificate at all.
        let server = TestServer(certificate: (certificates.chain, certificates.key), ciphers: "DEFAULT:@SECLEVEL=0")
        let run = try Self.run(server, root: certificates.root)
        for report in [run.ios, run.android] {
            #expect(run.reason(report) == "tls_error", "\(name)")
            #expect(run.message(report, "tls_error").contains("iOS refuses it too: \(rule)"), "\(run.message(report, "tls_error"))")
        }
    }

    /// A server with no suite in common answers the ClientHello with an alert: TLS's failure, not the network's.
    @Test func aServerWithNoSuiteInCommonIsATLSError() throws {
        // An ECDSA key cannot serve a static-RSA suite: the server has nothing to offer.
        let certificates = try TestCertificates(keyKind: .ecdsaP256)
        defer { certificates.remove() }
        let server = TestServer(certificate: (certificates.chain, certificates.key), ciphers: "AES128-GCM-SHA256")
        let run = try Self.run(server, root: certificates.root)
        for report in [run.ios, run.android] {
            #expect(run.reason(report) == "tls_error", "\(run.message(report, run.reason(report) ?? ""))")
        }
    }

    @Test func aLeafEndingWithin10DaysIsAWarningOnBothPlatforms() throws {
        let certificates = try TestCertificates(days: 10)
        defer { certificates.remove() }
        let server = TestServer(certificate: (certificates.chain, certificates.key))
        let run = try Self.run(server, root: certificates.root)
        for report in [run.ios, run.android] {
            #expect(report["outcome"] as? String == "attached")
            #expect(run.codes(report).contains("certificate_expiring"), "\(run.codes(report))")
        }
        let expected = String((run.tls(run.ios)["notAfter"] as? String ?? "?").prefix(10))
        #expect(run.message(run.ios, "certificate_expiring").contains("expires on \(expected)"))
    }

    /// A host's finding is said once per host and run in text and the CI formats, with the records it
    /// touches; the host table gives the date; each record's JSON keeps it (SPEC 10).
    @Test func anExpiringCertificateIsSaidOncePerHostNotPerRecord() throws {
        let certificates = try TestCertificates(days: 10)
        defer { certificates.remove() }
        let server = TestServer(certificate: (certificates.chain, certificates.key))
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("campaign.jsonl").path
        let lines = (0..<5).map { payload(url: server.url("/media/photo.jpg?u=\($0 % 2)")) }
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: file))
        func check(_ format: String) throws -> CLI.Result {
            try CLI.run(["check", file, "--cacert", certificates.root, "--out", folder.appendingPathComponent("out").path, "--format", format])
        }
        let text = try check("text")
        #expect(text.status == 0, "a warning: \(text.stdout)")
        let said = text.stdout.split(separator: "\n").filter { $0.contains(": certificate_expiring: ") }
        #expect(said.count == 1, "\(text.stdout)")
        #expect(said.first?.hasPrefix("127.0.0.1: warning: certificate_expiring: the certificate of 127.0.0.1 expires on ") == true)
        #expect(said.first?.contains("(5 records)") == true, "\(said)")
        #expect(text.stdout.contains("  certificate expires "), "the host table gives the date: \(text.stdout)")
        let github = try check("github")
        #expect(github.stdout.split(separator: "\n").filter { $0.contains("title=certificate_expiring") }.count == 1, "\(github.stdout)")
        let quality = try check("codequality")
        let issues = try JSONSerialization.jsonObject(with: Data(quality.stdout.utf8)) as? [[String: Any]] ?? []
        #expect(issues.filter { $0["check_name"] as? String == "certificate_expiring" }.count == 1)
        let sarif = try check("sarif")
        let log = try JSONSerialization.jsonObject(with: Data(sarif.stdout.utf8)) as? [String: Any] ?? [:]
        let results = ((log["runs"] as? [[String: Any]])?.first?["results"] as? [[String: Any]]) ?? []
        #expect(results.filter { $0["ruleId"] as? String == "certificate_expiring" }.count == 1)
        let json = OutFolder.records(ofJSONLines: try check("json").stdout)
        #expect(json.count == 5)
        #expect(json.allSatisfy { DecodeTests.Records.codes($0).contains("certificate_expiring") }, "each record's JSON keeps it")
    }

    @Test(arguments: [TestCertificates.KeyKind.ecdsaP256, .rsa2048])
    func goodLeavesPassWithTheirFacts(kind: TestCertificates.KeyKind) throws {
        let certificates = try TestCertificates(keyKind: kind)
        defer { certificates.remove() }
        let server = TestServer(certificate: (certificates.chain, certificates.key))
        let run = try Self.run(server, root: certificates.root)
        for report in [run.ios, run.android] {
            #expect(report["outcome"] as? String == "attached", "\(run.codes(report))")
            let tls = run.tls(report)
            #expect(tls["version"] as? String == "TLSv1.3")
            #expect(tls["cipher"] as? String == "TLS_AES_256_GCM_SHA384")
            #expect(tls["keyType"] as? String == (kind == .ecdsaP256 ? "ECDSA" : "RSA"))
            #expect(tls["keyBits"] as? Int == (kind == .ecdsaP256 ? 256 : 2048))
            #expect(tls["signature"] as? String == "sha256WithRSAEncryption", "the root's signature over the leaf")
            #expect(tls["subjectAltNames"] as? [String] == ["media.notti.test", "localhost", "127.0.0.1"])
            #expect(tls["extendedKeyUsage"] as? [String] == ["serverAuth"])
            #expect(tls["validityDays"] as? Int == 90 && tls["scts"] as? Int == 0 && tls["anchor"] as? String == "cacert")
            let notBefore = ISO8601DateFormatter().date(from: tls["notBefore"] as? String ?? "")
            #expect(notBefore.map { abs($0.timeIntervalSinceNow) < 600 } == true, "issued just now: \(tls["notBefore"] ?? "nil")")
        }
    }

    @Test func aRedirectToARefusedServerIsRefusedOnThatHop() throws {
        let certificates = try TestCertificates()
        defer { certificates.remove() }
        let bad = TestServer(certificate: (certificates.chain, certificates.key), ciphers: "AES128-GCM-SHA256")
        // The shared server (trusted by the test CA) redirects to the RSA-only one (trusted by this root).
        let bundle = certificates.folder.appendingPathComponent("both.pem").path
        try (String(contentsOfFile: Paths.testCA, encoding: .utf8) + String(contentsOfFile: certificates.root, encoding: .utf8))
            .write(toFile: bundle, atomically: true, encoding: .utf8)
        let target = "https://127.0.0.1:\(bad.port)/media/photo.jpg"
        let start = TestServer.shared.url("/redirect-to?url=\(target.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)")
        let out = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: out) }
        let result = try CLI.run(["process", "-", "--report", "--out", out.path, "--cacert", bundle], stdin: Self.request(start))
        let ios = result.json["ios"] as? [String: Any] ?? [:]
        let android = result.json["android"] as? [String: Any] ?? [:]
        #expect(ios["reason"] as? String == "ats_violation", "\(result.stdout.prefix(400))")
        #expect(android["outcome"] as? String == "attached")
        #expect(((ios["media"] as? [String: Any])?["tls"] as? [String: Any])?["cipher"] as? String == "TLS_RSA_WITH_AES_128_GCM_SHA256",
                "media.tls is the final hop's")
    }
}

import Foundation
import Testing
@testable import NottiMedia

/// SPEC 15: each record is judged under its own profile's limits. A URL is
/// downloaded once, under the loosest policy of the records that name it; each
/// record's verdict is the one its own download would have met, decided from
/// when each thing happened on the wire (`MediaResult.judged(under:)`, pure).
@Suite struct RecordLimitJudgeTests {
    static let notti = SDKProfile.notti.policy(FetchOptions())
    static let androidFCM = SDKProfile.androidFCM.policy(FetchOptions())
    static let androidAirship = SDKProfile.androidAirship.policy(FetchOptions())
    static let loosest = MediaPolicy.loosest(of: [notti, androidFCM, androidAirship])

    /// A transfer as the fetcher records it, under the loosest policy.
    struct Wire: Sendable, CustomTestStringConvertible {
        var status: Int? = 200
        var announced: Int?
        var headersAt = 50
        var crossings: [(Int, Int)] = []
        var elapsed = 100
        var bytes: Int? = 2_000
        var connect = 10
        var redirects = 0
        var failure: DiagnosticCode?
        var name: String
        var testDescription: String { name }
    }

    static func result(_ wire: Wire) -> MediaResult {
        var transfer = TransferFacts(finalURL: "https://media.example/a.jpg")
        transfer.httpStatus = wire.status
        transfer.announcedBytes = wire.announced
        transfer.timings.firstByteMs = wire.headersAt
        transfer.timings.connectMs = wire.connect
        transfer.elapsedMilliseconds = wire.elapsed
        transfer.redirects = wire.redirects
        transfer.capCrossings = wire.crossings.map { TransferFacts.CapCrossing(cap: $0.0, atMilliseconds: $0.1) }
        var facts = MediaFacts(url: "https://media.example/a.jpg", policy: loosest)
        facts.transfer = transfer
        if let failure = wire.failure { return .failed(facts, failure, "failed under the loosest policy") }
        facts.bytes = wire.bytes
        facts.sha256 = String(repeating: "a", count: 64)
        return .downloaded(MediaDownload(
            facts: facts, source: WorkingFile(placedAt: "/nonexistent"), folder: "/nonexistent", sniffedMime: "image/jpeg", leadingBytes: [0xFF, 0xD8]))
    }

    static func verdict(_ result: MediaResult) -> String {
        switch result {
        case .fetched: "fetched"
        case .failed(_, let reason, _, _): reason.rawValue
        }
    }

    @Test(arguments: [
        (Wire(name: "small and quick"), "fetched", "fetched", "fetched"),
        (Wire(announced: 2_000_000, bytes: 2_000_000, name: "2 MB announced"), "fetched", "too_large", "fetched"),
        (Wire(announced: 2_000_000, headersAt: 6_000, elapsed: 6_100, bytes: 2_000_000, name: "2 MB announced after 6 s"),
         "fetched", "timeout", "fetched"),
        (Wire(announced: 2_000_000, elapsed: 19_000, failure: .networkError, name: "2 MB announced, then the connection drops"),
         "network_error", "too_large", "timeout"),
        (Wire(crossings: [(1_048_576, 900)], elapsed: 3_000, bytes: 2_000_000, name: "2 MB unannounced, 1 MiB in 0.9 s"),
         "fetched", "too_large", "fetched"),
        (Wire(crossings: [(1_048_576, 5_500)], elapsed: 6_000, bytes: 2_000_000, name: "2 MB unannounced, 1 MiB after 5.5 s"),
         "fetched", "timeout", "fetched"),
        (Wire(elapsed: 6_000, bytes: 600_000, name: "600 KB in 6 s"), "fetched", "timeout", "fetched"),
        (Wire(elapsed: 8_000, bytes: 600_000, name: "600 KB in 8 s"), "fetched", "timeout", "timeout"),
        (Wire(crossings: [(1_048_576, 100), (10_485_760, 900)], elapsed: 900, bytes: nil, failure: .tooLarge, name: "over 10 MiB"),
         "too_large", "too_large", "fetched-or-too_large"),
        (Wire(status: nil, elapsed: 20_000, bytes: nil, connect: 0, failure: .timeout, name: "no connection in 20 s"),
         "timeout", "timeout", "timeout"),
        (Wire(connect: 2_500, name: "a 2.5 s connect"), "fetched", "fetched", "timeout"),
        (Wire(redirects: 6, name: "6 redirects"), "too_many_redirects", "fetched", "fetched"),
    ])
    func eachRecordIsJudgedUnderItsOwnLimits(wire: Wire, notti: String, fcm: String, airship: String) {
        let result = Self.result(wire)
        #expect(Self.verdict(result.judged(under: Self.notti)) == notti)
        #expect(Self.verdict(result.judged(under: Self.androidFCM)) == fcm)
        let airshipVerdict = Self.verdict(result.judged(under: Self.androidAirship))
        if airship == "fetched-or-too_large" {
            // Airship has no cap but the tool's bound (52,428,800): a body stopped at 10 MiB proves nothing over it.
            #expect(airshipVerdict == "too_large")
        } else {
            #expect(airshipVerdict == airship)
        }
    }

    @Test func aTimeoutIsReportedAtTheRecordsOwnDeadline() throws {
        let judged = Self.result(Wire(elapsed: 6_000, bytes: 600_000, name: "slow")).judged(under: Self.androidFCM)
        guard case .failed(let facts, .timeout, let message, _) = judged else {
            Issue.record("expected a timeout, got \(judged)")
            return
        }
        #expect(facts.elapsedMilliseconds == 5_000)
        #expect(facts.bytes == nil && facts.sha256 == nil, "a stopped download has no file")
        #expect(message.contains("within 5 s"))
    }

    @Test func theLoosestPolicyKeepsAConnectLimitOnlyWhenEveryPolicyHasOne() {
        #expect(Self.loosest.connectTimeoutSeconds == nil)
        #expect(MediaPolicy.loosest(of: [Self.androidAirship, Self.androidAirship]).connectTimeoutSeconds == 2)
        #expect(Self.loosest.maxBytes == 52_428_800 && Self.loosest.timeoutSeconds == 20 && Self.loosest.maxRedirects == 20)
    }

    @Test func everyCapInPlayIsWatched() {
        #expect(MediaPolicy.capsInPlay(FetchOptions()) == [1_048_576, 10_485_760, 52_428_800])
        #expect(MediaPolicy.capsInPlay(FetchOptions(maxBytes: 2_000)) == [2_000])
    }
}

/// The same, from the outside: one process run per send request on the loopback server.
@Suite struct RecordLimitTests {
    let server = TestServer.shared

    /// A request whose picture is named by `notification.image` (both platforms) or by
    /// `android.notification.image` alone (the iOS record then names no media).
    private func request(image: String?, androidOnly: Bool = false, data: [String: String] = ["notification_id": "n-1"]) -> String {
        var message: [String: Any] = ["token": "device", "notification": ["title": "Sale", "body": "50% off"], "data": data,
                                      "apns": ["payload": ["aps": ["mutable-content": 1]]]]
        if let image, androidOnly {
            message["android"] = ["notification": ["image": image]]
        } else if let image {
            message["notification"] = ["title": "Sale", "body": "50% off", "image": image]
        }
        return String(decoding: try! JSONSerialization.data(withJSONObject: ["message": message], options: [.sortedKeys, .withoutEscapingSlashes]), as: UTF8.self)
    }

    private func process(_ text: String, _ extra: [String] = []) throws -> (result: CLI.Result, ios: [String: Any], android: [String: Any]) {
        let out = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: out) }
        let result = try CLI.run(["process", "-", "--report", "--cacert", Paths.testCA, "--out", out.path] + extra, stdin: text)
        let json = result.json
        OutFolder.expectHoldsExactly(out, namedBy: [json["ios"], json["android"]].compactMap { $0 as? [String: Any] })
        return (result, json["ios"] as? [String: Any] ?? [:], json["android"] as? [String: Any] ?? [:])
    }

    private func codes(_ report: [String: Any]) -> [String] {
        (report["diagnostics"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
    }

    private func message(_ report: [String: Any]) -> String {
        (report["diagnostics"] as? [[String: Any]])?.first?["message"] as? String ?? ""
    }

    private func elapsed(_ report: [String: Any]) -> Int? {
        (report["media"] as? [String: Any])?["elapsedMs"] as? Int
    }

    @Test func anAndroidOnlyPictureAnnouncedOverOneMiBIsTooLargeBeforeTheBody() throws {
        // Content-Length 2,000,000, then not one byte for a minute.
        let run = try process(request(image: server.url("/bytes/2000000?send=0"), androidOnly: true))
        #expect(run.ios["reason"] as? String == "no_media")
        #expect(run.android["reason"] as? String == "too_large")
        #expect(message(run.android).contains("Content-Length over Firebase Messaging's Android limit of 1 MiB"), "\(message(run.android))")
        #expect(run.result.seconds < 4, "refused on the headers: took \(run.result.seconds) s")
    }

    @Test(arguments: [("fcm", 5.0), ("airship", 7.0)])
    func anAndroidOnlyTrickleTimesOutAtItsOwnDeadline(sdk: String, deadline: Double) throws {
        let url = server.url("/trickle")
        let text = sdk == "fcm" ? request(image: url, androidOnly: true)
            : request(image: nil, data: ["com.urbanairship.style": #"{"type": "big_picture", "big_picture": "\#(url)"}"#])
        let run = try process(text, ["--sdk", sdk])
        #expect(run.ios["reason"] as? String == "no_media", "the iOS record names no media")
        #expect(run.android["reason"] as? String == "timeout")
        #expect(run.result.seconds > deadline - 0.5 && run.result.seconds < deadline + 3, "took \(run.result.seconds) s")
    }

    @Test(arguments: ["mode=length", "mode=chunked"])
    func oneURLWithTwoCapsIsOneDownloadAndTwoExactVerdicts(mode: String) throws {
        let tag = UUID().uuidString
        let run = try process(request(image: server.url("/u/\(tag)/bytes/2000000?\(mode)")))
        #expect(run.ios["outcome"] as? String == "attached", "Firebase on iOS: 2 MB is within its limits")
        #expect(run.android["reason"] as? String == "too_large")
        let announced = mode == "mode=length"
        #expect(message(run.android).contains(announced ? "announced a Content-Length over" : "larger than"), "\(message(run.android))")
        #expect(((run.android["media"] as? [String: Any])?["limits"] as? [String: Any])?["maxBytes"] as? Int == 1_048_576)
        #expect(try server.requestCounts().filter { $0.key.contains(tag) }.values.reduce(0, +) == 1, "one download")
    }

    @Test func aSlowBodyIsTimeoutForAndroidAtFiveSecondsAndAttachedOnIOS() throws {
        // 600,000 bytes at 100,000 a second: about 6 s, inside iOS's 30 s and outside Firebase's 5 s on Android.
        let run = try process(request(image: server.url("/bytes/600000?rate=100000")))
        #expect(run.ios["outcome"] as? String == "attached")
        #expect(run.android["reason"] as? String == "timeout")
        #expect(elapsed(run.android) == 5_000, "stopped at its own deadline")
        #expect((elapsed(run.ios) ?? 0) > 5_000)
    }

    @Test func oneSignalsResourceNameIsNoMediaWithAWarning() throws {
        let run = try process(request(image: nil, data: ["bicon": "promo_banner"]),
                              ["--platform", "android", "--sdk", "onesignal"])
        #expect(run.android["reason"] as? String == "no_media")
        #expect(run.android["passed"] as? Bool == true)
        #expect(codes(run.android) == ["bundle_resource"])
        // Said as Android's display code reads it: a resource of the app, and no picture (not iOS's attached bundle file).
        #expect(message(run.android).contains("resource of the app") && !message(run.android).contains("attaches"), "\(message(run.android))")
    }

    @Test func aRequestWithoutSDKIsJudgedUnderAuto() throws {
        // A request names Firebase's key: judged as Notti's, a webp would pass iOS as no_media plus a warning.
        let run = try process(request(image: server.url("/media/badge.webp")))
        #expect(run.ios["sdk"] as? String == "fcm")
        #expect(run.ios["reason"] as? String == "unsupported_type")
        #expect(run.ios["passed"] as? Bool == false)
        let apns = try CLI.run(["process", "-", "--report", "--cacert", Paths.testCA, "--out", Paths.temporaryFolder().path],
                               stdin: payload(url: server.url("/media/logo.png")))
        #expect(apns.json["sdk"] as? String == "notti", "an APNs payload is still Notti's by default")
    }
}

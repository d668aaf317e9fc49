import Foundation
import Testing
@testable import NottiMedia

/// SPEC section 7: what a device would punish, each lint positive and negative.
@Suite struct LintTests {
    private func codes(_ json: String) throws -> [String] {
        Lints.payloadDiagnostics(for: try Payload(json: Array(json.utf8))).map(\.codeText)
    }

    private let clean = #"{"aps":{"alert":{"title":"T","body":"B"},"mutable-content":1},"notification_id":"n-1"}"#

    @Test func aCleanPayloadHasNoFindings() throws {
        #expect(try codes(clean) == [])
    }

    @Test(arguments: [
        #"{"aps":{"alert":"x"},"notification_id":"n"}"#,
        #"{"aps":{"alert":"x","mutable-content":0},"notification_id":"n"}"#,
        #"{"aps":{"alert":"x","mutable-content":"1"},"notification_id":"n"}"#,
        #"{"aps":{"alert":"x","mutable-content":true},"notification_id":"n"}"#,
    ])
    func mutableContentMustBeTheNumberOne(_ json: String) throws {
        #expect(try codes(json) == ["mutable_content_missing"])
    }

    /// A text push (no media key) without mutable-content loses no media: under notti only
    /// the received event (a warning), under the other profiles nothing (SPEC 7).
    @Test func aTextPushWithoutMutableContentIsAWarningUnderNottiAndNothingElsewhere() throws {
        let text = try Payload(json: Array(#"{"aps":{"alert":"x"},"notification_id":"n"}"#.utf8))
        let notti = Lints.payloadDiagnostics(for: text, sdk: .notti, namesMedia: false)
        #expect(notti.map(\.codeText) == ["mutable_content_missing"])
        #expect(notti.map(\.severity) == [.warning])
        for sdk in SDK.allCases where sdk != .notti {
            #expect(Lints.payloadDiagnostics(for: text, sdk: sdk, namesMedia: false).isEmpty, "\(sdk)")
        }
        #expect(Lints.payloadDiagnostics(for: text, sdk: .braze, namesMedia: true).map(\.severity) == [.error])
    }

    @Test(arguments: [
        #"{"aps":{"content-available":1,"mutable-content":1},"notification_id":"n"}"#,
        #"{"aps":{"badge":3,"mutable-content":1},"notification_id":"n"}"#,
        #"{"aps":{"alert":"","mutable-content":1},"notification_id":"n"}"#,
        #"{"aps":{"alert":{},"mutable-content":1},"notification_id":"n"}"#,
        #"{"aps":{"alert":{"title":""},"mutable-content":1},"notification_id":"n"}"#,
        #"{"aps":{"alert":{"title":7,"sound":"ding"},"mutable-content":1},"notification_id":"n"}"#,
        // A repeated key: the last one counts, as every JSON reader on the way resolves it.
        #"{"aps":{"alert":{"title":"Hi","title":""},"mutable-content":1},"notification_id":"n"}"#,
        #"{"mutable-content":1,"notification_id":"n"}"#,
    ])
    func aPushWithoutAlertTextSkipsTheExtension(_ json: String) throws {
        #expect(try codes(json).contains("no_alert"))
    }

    @Test(arguments: [
        #"{"aps":{"alert":"Hi","mutable-content":1},"notification_id":"n"}"#,
        #"{"aps":{"alert":{"body":"Hi"},"mutable-content":1},"notification_id":"n"}"#,
        #"{"aps":{"alert":{"loc-key":"GREETING"},"mutable-content":1},"notification_id":"n"}"#,
        #"{"aps":{"alert":{"subtitle":"","sound":"ding","subtitle-loc-key":"K"},"mutable-content":1},"notification_id":"n"}"#,
    ])
    func alertTextInAnyFormCounts(_ json: String) throws {
        #expect(try codes(json) == [])
    }

    @Test func thePayloadSizeLimitIs4096SerializedBytesInclusive() throws {
        func payload(totalBytes: Int) -> String {
            let base = #"{"aps":{"alert":"x","mutable-content":1},"notification_id":"n","pad":""}"#
            let pad = String(repeating: "a", count: totalBytes - base.utf8.count)
            return #"{"aps":{"alert":"x","mutable-content":1},"notification_id":"n","pad":"\#(pad)"}"#
        }
        #expect(try codes(payload(totalBytes: 4096)) == [])
        let over = Lints.payloadDiagnostics(for: try Payload(json: Array(payload(totalBytes: 4097).utf8)))
        #expect(over.map(\.codeText) == ["payload_too_large"])
        #expect(over[0].severity == .error)
        #expect(over[0].message.contains("4097 bytes"))
    }

    /// A short text can still serialize over the limit: a raw DEL is written as \u007f.
    /// The lint skips the count only below the worst growth, so these must be caught.
    @Test(arguments: [(671, 4096, [String]()), (672, 4102, ["payload_too_large"])])
    func aShortTextThatGrowsWhenSerializedIsStillCaught(dels: Int, serialized: Int, expected: [String]) throws {
        let json = #"{"aps":{"alert":"x","mutable-content":1},"notification_id":"n","p":""#
            + String(repeating: "\u{7F}", count: dels) + #""}"#
        let payload = try Payload(json: Array(json.utf8))
        #expect(payload.byteCount == 70 + dels)
        #expect(JSONWriter.compactByteCount(payload.root) == serialized)
        #expect(Lints.payloadDiagnostics(for: payload).map(\.codeText) == expected)
    }

    @Test func theSizeIsCountedAsSerializedNotAsTheFileIsIndented() throws {
        let indented = "{\n" + String(repeating: " ", count: 5000) + #""aps":{"alert":"x","mutable-content":1},"notification_id":"n"}"#
        #expect(try codes(indented) == [])
    }

    @Test(arguments: [
        #"{"aps":{"alert":"x","mutable-content":1}}"#,
        #"{"aps":{"alert":"x","mutable-content":1},"notification_id":""}"#,
        #"{"aps":{"alert":"x","mutable-content":1},"notification_id":null}"#,
    ])
    func aMissingNotificationIDWarns(_ json: String) throws {
        let found = Lints.payloadDiagnostics(for: try Payload(json: Array(json.utf8)))
        #expect(found.map(\.codeText) == ["notification_id_missing"])
        #expect(found[0].severity == .warning)
    }

    @Test func aNumericNotificationIDCounts() throws {
        #expect(try codes(#"{"aps":{"alert":"x","mutable-content":1},"notification_id":42}"#) == [])
    }

    /// Apple's "5 MB / 10 MB / 50 MB" in both readings: within, may refuse (a warning), refuses.
    @Test(arguments: [
        (MediaType.Kind.audio, 5_000_000, "within"), (.audio, 5_000_001, "exceeds_ios_limit"),
        (.audio, 5_242_880, "exceeds_ios_limit"), (.audio, 5_242_881, "too_large"),
        (.image, 10_000_000, "within"), (.image, 10_000_001, "exceeds_ios_limit"),
        (.image, 10_485_760, "exceeds_ios_limit"), (.image, 10_485_761, "too_large"),
        (.video, 50_000_000, "within"), (.video, 50_000_001, "exceeds_ios_limit"),
        (.video, 52_428_800, "exceeds_ios_limit"), (.video, 52_428_801, "too_large"),
    ])
    func appleLimitsPerKindInBothReadings(kind: MediaType.Kind, bytes: Int, verdict: String) {
        switch IOSLimit(kind).judge(bytes: bytes) {
        case .within: #expect(verdict == "within")
        case .mayRefuse(let warning): #expect(verdict == warning.codeText)
        case .refuses(let message):
            #expect(verdict == "too_large")
            #expect(message.hasPrefix("\(bytes) bytes is over iOS's \(IOSLimit(kind).binaryBytes)-byte limit for \(kind.rawValue)"))
        }
    }

    @Test(arguments: [
        ("image/webp", "convert it to png or jpg"), ("image/heic", "convert it to png or jpg"),
        ("image/svg+xml", "convert it to png or jpg"), ("image/bmp", "convert it to png or jpg"),
        ("audio/x-m4a", "convert it to mp3"), ("audio/x-wav", "convert it to mp3"),
        ("video/quicktime", "convert it to mp4"), ("text/html", "not media"),
    ])
    func unsupportedTypesComeWithAFix(mime: String, advice: String) {
        #expect(Lints.conversionAdvice(forSniffedMime: mime).contains(advice))
        let decision = TypeDecision(sniffedMime: mime, declaredMime: nil, urlExtension: nil)
        #expect(decision.diagnostics.first { $0.code == .unsupportedType }?.message.contains(advice) == true)
    }
}

/// The same lints as users see them, with real media from the loopback server.
@Suite struct LintCLITests {
    let server = TestServer.shared

    @Test func anMP3OverFiveMBPassesTheSDKButWarnsForIOS() throws {
        // tone.mp3's real frames 1250 times over: 5,225,000 bytes of mp3.
        let run = try ProcessRun.fetch(server.url("/repeat/1250/tone.mp3"))
        #expect(run.outcome == "attached")
        #expect(run.media["type"] as? String == "mp3")
        #expect(run.diagnosticCodes == ["exceeds_ios_limit"])
        #expect(run.report["passed"] as? Bool == true)
        #expect(try ProcessRun.fetch(server.url("/media/tone.mp3")).diagnosticCodes == [])
    }

    @Test func aMislabeledJPEGNamesTheContentTypeToServe() throws {
        let run = try ProcessRun.fetch(server.url("/media/photo.jpg?type=image/png"))
        #expect(run.diagnosticCodes == ["type_mismatch"])
        #expect(run.result.stderr.contains("serve it with Content-Type: image/jpeg"))
        #expect(try ProcessRun.fetch(server.url("/media/photo.jpg")).diagnosticCodes == [])
    }

    @Test(arguments: [("badge.webp", "convert it to png or jpg"), ("voice.m4a", "convert it to mp3")])
    func unsupportedMediaIsAttachedAsJPGWithAFix(name: String, advice: String) throws {
        let run = try ProcessRun.fetch(server.url("/media/\(name)"))
        #expect(run.outcome == "attached")
        #expect(run.media["fallback"] as? Bool == true)
        // A WebP attached as jpg still draws (iOS's picture decoder reads WebP); a sound attached as jpg goes
        // to the picture decoder too, which reads nothing of it (SPEC 17): attached, and failing.
        #expect(run.diagnosticCodes == (name == "voice.m4a" ? ["undecodable_media", "unsupported_type"] : ["unsupported_type"]))
        #expect(run.report["passed"] as? Bool == (name != "voice.m4a"))
        #expect(run.result.stderr.contains(advice))
    }

    /// Bytes no picture decoder reads, attached as a picture (Notti's fallback), fail on iOS whatever
    /// libmagic names them: an HTML error page served with status 200 (SPEC 17).
    @Test func anErrorPageServedAsAPictureIsUndecodable() throws {
        let run = try ProcessRun.fetch(server.url("/media/error-page.html?type=image/jpeg"))
        #expect(run.outcome == "attached")
        #expect(run.report["passed"] as? Bool == false)
        #expect(run.diagnosticCodes.contains("undecodable_media"), "\(run.diagnosticCodes)")
        #expect(run.result.stderr.contains("no picture decoder reads it: the bytes are text/html"), "\(run.result.stderr)")
        #expect((run.media["decoded"] as? [String: Any])?["complete"] as? Bool == false)
    }

    @Test func payloadLintsRunEvenWhenTheMediaFails() throws {
        let text = #"{"aps":{"badge":1},"notti_image_url":"\#(server.url("/status/404"))"}"#
        let run = try ProcessRun.fetch("", payloadText: text)
        // The extension never runs: that is the reason; the media's own failure is still listed.
        #expect(run.reason == "mutable_content_missing")
        #expect(run.diagnosticCodes == ["http_error", "mutable_content_missing", "no_alert", "notification_id_missing"])
        #expect(run.result.status == 0)
    }

    @Test func sniffGivesTheIOSLimitAndFormatAdvice() throws {
        let result = try CLI.run(["sniff", Paths.medium("voice.m4a")])
        #expect(result.stdout.contains("unsupported_type"))
        #expect(result.stdout.contains("convert it to mp3"))
    }
}

/// SPEC 7: a payload APNs rejects reaches no phone: outcome `rejected`, no attachment,
/// nothing stored, no send-time download; its media's own verdict is still given.
@Suite struct RejectedPayloadTests {
    let server = TestServer.shared

    private var oversized: String {
        payload(url: server.url("/media/logo.png"), extra: ", \"padding\": \"\(String(repeating: "x", count: 4_200))\"")
    }

    @Test func anOversizedPayloadIsRejectedWithNothingStored() throws {
        let run = try ProcessRun.fetch(server.url("/media/logo.png"), payloadText: oversized)
        #expect(run.outcome == "rejected")
        #expect(run.reason == "payload_too_large")
        #expect(run.attachments.isEmpty)
        #expect(run.filesLeft.isEmpty, "nothing stored")
        #expect(run.media["sniffedMime"] as? String == "image/png", "the media's own verdict is still given")
        let text = try CLI.run(["process", "-", "--format", "text", "--cacert", Paths.testCA, "--out", Paths.temporaryFolder().path],
                               stdin: oversized)
        #expect(text.stdout.contains("not delivered: APNs rejects the payload"), "\(text.stdout)")
    }

    @Test func aRejectedPayloadAddsNoSendTimeLoadAndItsCardSaysNothingArrives() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let page = folder.appendingPathComponent("report.html")
        let result = try CLI.run(["check", "-", "--cacert", Paths.testCA, "--format", "json", "--html", page.path,
                                  "--out", folder.appendingPathComponent("out").path], stdin: oversized + "\n")
        #expect(result.status == 1)
        let summary = try #require(OutFolder.summary(ofJSONLines: result.stdout))
        let hosts = summary["hosts"] as? [[String: Any]] ?? []
        #expect(hosts.allSatisfy { ($0["downloads"] as? Int ?? 0) == 0 }, "\(hosts)")
        let html = try String(contentsOf: page, encoding: .utf8)
        #expect(html.contains("Nothing arrives on the phone"))
        #expect(!html.contains("<img class=\"thumb\""))
        #expect(Paths.contents(of: folder.appendingPathComponent("out")).isEmpty)
    }
}

/// SPEC 10: `payload_too_large` is measured on the compact UTF-8 form, and
/// warned about when only the `\uXXXX`-escaped form is over.
@Suite struct PayloadSizeTests {
    /// A clean payload whose body is `count` copies of `character`.
    private func payload(_ character: String, _ count: Int) throws -> Payload {
        let body = String(repeating: character, count: count)
        return try Payload(json: Array(#"{"aps":{"alert":{"body":"\#(body)"},"mutable-content":1},"notification_id":"n-1"}"#.utf8))
    }

    @Test func onlyTheEscapedFormOverTheLimitIsAWarningNamingBothSizes() throws {
        // 1,300 × "é": 2,600 bytes of UTF-8, 7,800 escaped (\u00e9 is six bytes).
        let found = Lints.payloadDiagnostics(for: try payload("é", 1_300))
        let warning = try #require(found.first { $0.code == .payloadTooLarge })
        #expect(warning.severity == .warning)
        let compact = JSONWriter.compactByteCount(try payload("é", 1_300).root)
        #expect(compact <= 4096)
        #expect(warning.message.contains("\(compact) bytes in compact UTF-8 but \(compact + 1_300 * 4) bytes"))
    }

    @Test func overTheLimitInUTF8IsTheError() throws {
        let found = Lints.payloadDiagnostics(for: try payload("é", 2_100))
        #expect(found.map(\.codeText) == ["payload_too_large"])
        #expect(found.first?.severity == .error)
    }

    @Test func charactersPastTheBasicPlaneEscapeAsSurrogatePairs() throws {
        // U+1F600: four bytes of UTF-8, twelve escaped (\ud83d\ude00).
        let small = try payload("😀", 1)
        #expect(JSONWriter.asciiEscapedByteCount(small.root) == JSONWriter.compactByteCount(small.root) + 8)
        #expect(Lints.payloadDiagnostics(for: try payload("a", 100)).isEmpty)
    }
}

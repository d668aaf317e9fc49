import Foundation
import Testing

/// A payload with alert text and mutable-content (so no payload lint fires),
/// plus the given top-level members.
func sdkPayload(_ members: String) -> String {
    "{\"aps\": {\"alert\": {\"title\": \"Sale\", \"body\": \"50% off\"}, \"mutable-content\": 1}, \(members)}"
}

extension ProcessRun {
    /// `process --sdk SDK` on `payloadText`, against the test server.
    static func profile(_ sdk: String, _ payloadText: String, _ extra: [String] = []) throws -> ProcessRun {
        try fetch("", ["--sdk", sdk] + extra, payloadText: payloadText)
    }

    var content: [String: Any] { report["content"] as? [String: Any] ?? [:] }
    var diagnostics: [[String: Any]] { report["diagnostics"] as? [[String: Any]] ?? [] }

    /// The message of the first diagnostic with `code`.
    func message(_ code: String) -> String {
        diagnostics.first { $0["code"] as? String == code }?["message"] as? String ?? ""
    }
}

/// Every SDK profile's rules (SPEC section 12) against the real loopback TLS server.
@Suite struct ProfileTests {
    let server = TestServer.shared

    // MARK: Braze

    @Test func brazeAttachesWithThePayloadTypeAsTheSuffix() throws {
        let run = try ProcessRun.profile("braze", sdkPayload(#""ab": {"att": {"url": "\#(server.url("/media/logo.png"))", "type": "png"}}"#))
        #expect(run.report["sdk"] as? String == "braze")
        #expect(run.outcome == "attached")
        #expect(run.diagnosticCodes.isEmpty, "no notification_id lint: that is Notti's")
        let attachment = try #require(run.attachments.first)
        #expect(attachment["identifier"] as? String == "")
        #expect(attachment["type"] as? String == "png")
        #expect(attachment["uti"] as? String == "public.png")
        #expect((attachment["url"] as? String)?.hasSuffix(".png") == true)
        #expect(run.media["typeSource"] as? String == "ab.att.type")
        #expect((run.media["limits"] as? [String: Any])?["timeoutSeconds"] as? Int == 30, "the system's 30 s budget")
    }

    @Test func brazeTrustsThePayloadTypeOverTheBytes() throws {
        let mislabeled = try ProcessRun.profile("braze", sdkPayload(#""ab": {"att": {"url": "\#(server.url("/media/logo.png"))", "type": "gif"}}"#))
        #expect(mislabeled.outcome == "attached")
        #expect(mislabeled.attachments.first?["type"] as? String == "gif")
        #expect(mislabeled.diagnosticCodes == ["type_mismatch"])
        let unknown = try ProcessRun.profile("braze", sdkPayload(#""ab": {"att": {"url": "\#(server.url("/media/logo.png"))", "type": "webp"}}"#))
        #expect(unknown.outcome == "unchanged")
        #expect(unknown.reason == "unsupported_type")
        #expect(unknown.message("unsupported_type").contains("Braze names the file .webp"))
        #expect(unknown.attachments.isEmpty)
        #expect(!unknown.filesLeft.contains { $0.hasSuffix(".webp") }, "no file is named as iOS would refuse it")
    }

    @Test(arguments: [
        (#""other": 1"#, "unchanged", "no_media"),
        (#""ab": {"x": 1}"#, "unchanged", "no_media"),
        (#""ab": {"att": {"url": "https://cdn.example.com/a.png"}}"#, "unchanged", "invalid_media_spec"),
        (#""ab": {"att": {"url": "https://cdn.example.com/a.png", "type": 3}}"#, "unchanged", "invalid_media_spec"),
        (#""ab": {"att": "https://cdn.example.com/a.png"}"#, "unchanged", "invalid_media_spec"),
        (#""ab": {"att": {"url": "https:///f/a.png", "type": "png"}}"#, "unchanged", "invalid_url"),
    ])
    func brazeReadsOnlyACompleteSpec(members: String, outcome: String, reason: String) throws {
        let run = try ProcessRun.profile("braze", sdkPayload(members))
        #expect(run.outcome == outcome)
        #expect(run.reason == reason)
        #expect(run.result.status == 0, "content is still delivered")
    }

    // MARK: App Transport Security

    @Test(arguments: ["braze", "fcm", "clevertap", "iterable", "batch"])
    func httpIsRefusedByATSUnlessTheAppAllowsIt(sdk: String) throws {
        let url = server.httpURL("/media/logo.png")
        let members = switch sdk {
        case "braze": #""ab": {"att": {"url": "\#(url)", "type": "png"}}"#
        case "fcm": #""fcm_options": {"image": "\#(url)"}"#
        case "clevertap": #""ct_mediaUrl": "\#(url)", "ct_mediaType": "image""#
        case "iterable": #""itbl": {"attachment-url": "\#(url)"}"#
        default: #""com.batch": {"at": {"u": "\#(url)", "t": "image/png"}}"#
        }
        let refused = try ProcessRun.profile(sdk, sdkPayload(members))
        #expect(refused.reason == "not_https")
        #expect(refused.message("not_https").contains("App Transport Security"))
        let allowed = try ProcessRun.profile(sdk, sdkPayload(members), ["--allow-http"])
        #expect(allowed.outcome == "attached", "\(allowed.diagnostics)")
    }

    @Test func notiRefusesHTTPWhateverATSAllows() throws {
        let run = try ProcessRun.profile("notti", payload(url: server.httpURL("/media/logo.png")), ["--allow-http"])
        #expect(run.reason == "not_https")
        #expect(run.message("not_https") == "the URL scheme is http: the SDK only downloads https; serve the media over https")
    }

    @Test func anHTTPRedirectHopIsInsecureUnderATSAndFollowedWithAnException() throws {
        let hop = server.url("/redirect-to?url=" + server.httpURL("/media/logo.png"))
        let members = #""fcm_options": {"image": "\#(hop)"}"#
        let refused = try ProcessRun.profile("fcm", sdkPayload(members))
        #expect(refused.reason == "insecure_redirect")
        #expect(refused.message("insecure_redirect").contains("App Transport Security"))
        let allowed = try ProcessRun.profile("fcm", sdkPayload(members), ["--allow-http"])
        #expect(allowed.outcome == "attached")
        #expect(allowed.media["redirects"] as? Int == 1)
    }

    // MARK: Firebase

    // Every row of Firebase's naming is judged in process (JudgeTableTests); end to end, the
    // headers of a real response: the Content-Disposition name wins over the URL's, and the
    // Content-Type's image/ text that iOS does not know.
    @Test(arguments: [
        ("/file/logo.png/photo.jpg?cd=attachment%3B%20filename%3D%22banner.png%22", "png", "the Content-Disposition file name"),
        ("/file/logo.png/banner?type=image/x-png", "", "the Content-Type"),
    ])
    func fcmNamesTheFileAsTheResponseSuggests(path: String, type: String, source: String) throws {
        let run = try ProcessRun.profile("fcm", sdkPayload(#""fcm_options": {"image": "\#(server.url(path))"}"#))
        #expect(run.media["typeSource"] as? String == source)
        if type.isEmpty {
            #expect(run.reason == "unsupported_type")
            #expect(run.media["sdkType"] as? String == "x-png")
        } else {
            #expect(run.outcome == "attached")
            #expect(run.attachments.first?["type"] as? String == type)
            #expect(run.attachments.first?["identifier"] as? String == "")
        }
    }

    @Test func fcmDropsAnImageSubtypeThatHoldsASlashAndRejectsANonStringImage() throws {
        let slash = try ProcessRun.profile(
            "fcm", sdkPayload(#""fcm_options": {"image": "\#(server.url("/file/logo.png/banner?type=image/png/evil"))"}"#))
        #expect(slash.reason == "unsupported_type")
        #expect(slash.media["sdkType"] is NSNull)
        let notAString = try ProcessRun.profile("fcm", sdkPayload(#""fcm_options": {"image": ["x"]}"#))
        #expect(notAString.reason == "invalid_media_spec")
    }

    // MARK: iOS's per-type limits

    @Test func anMP3OverFiveMBIsRefusedByIOSForAProfileWithoutACap() throws {
        // 1,436 real mp3 frames: 6,002,480 bytes of playable audio.
        let url = server.url("/repeat/1436/tone.mp3")
        let braze = try ProcessRun.profile("braze", sdkPayload(#""ab": {"att": {"url": "\#(url)", "type": "mp3"}}"#))
        #expect(braze.reason == "too_large")
        #expect(braze.message("too_large").hasPrefix("6002480 bytes is over iOS's 5242880-byte limit for audio attachments"))
        #expect(braze.media["bytes"] as? Int == 6_002_480)
        // Notti's own cap is 10 MiB, but iOS refuses the attachment when the extension creates it.
        let notti = try ProcessRun.profile("notti", payload(url: url))
        #expect(notti.outcome == "unchanged")
        #expect(notti.reason == "too_large")
        #expect(notti.diagnosticCodes == ["too_large"])
    }

    // MARK: OneSignal

    @Test func oneSignalAttachesEachEntryAloneSortedByKey() throws {
        let run = try ProcessRun.profile("onesignal", sdkPayload(#"""
            "att": {"zeta": "\#(server.url("/media/spinner.gif"))", "alpha": "\#(server.url("/media/logo.png"))",
                    "broken": "\#(server.url("/status/404"))", "local": "  sounds/ding.wav  "}
            """#))
        #expect(run.outcome == "attached", "another entry attached")
        #expect(run.reason == nil)
        #expect(run.attachments.map { $0["identifier"] as? String } == ["alpha", "zeta"])
        #expect(run.diagnosticCodes == ["http_error", "bundle_resource"])
        #expect(run.message("bundle_resource").contains("'sounds/ding.wav'"), "the value is trimmed")
        #expect(run.report["passed"] as? Bool == false, "a failed entry is an error")
        let media = run.report["media"] as? [[String: Any]] ?? []
        #expect(media.map { $0["identifier"] as? String } == ["alpha", "broken", "local", "zeta"])
    }

    /// SPEC 20, round five: a bundle file name alone is no media fetched: reason `no_media` (not a failure), the
    /// warning beside it, the record passing; it was reason `bundle_resource`, a reason with only a warning.
    @Test func aOneSignalBundleFileAloneIsNoMediaWithTheWarning() throws {
        let run = try ProcessRun.profile("onesignal", sdkPayload(#""att": {"local": "sounds/ding.wav"}"#))
        #expect(run.outcome == "unchanged")
        #expect(run.reason == "no_media")
        #expect(run.diagnosticCodes == ["bundle_resource"])
        #expect(run.report["passed"] as? Bool == true)
    }

    @Test(arguments: [
        ("/file/logo.png/x?filename=pic.png&type=none", "png", "the filename query parameter"),
        ("/file/photo.jpg/x?type=image/jpg", "jpg", "the Content-Type"),
        ("/file/logo.png/pic.png?type=none", "png", "the URL's path"),
        ("/file/logo.png/x?type=none&v=pic.png", "png", "a query value"),
        // OneSignal compares its list as written: PNG is not in it.
        ("/file/logo.png/pic.PNG?type=none", "", "the filename parameter, the Content-Type, the URL's path and its query values"),
    ])
    func oneSignalDecidesTheExtensionInItsOrder(path: String, type: String, source: String) throws {
        let run = try ProcessRun.profile("onesignal", sdkPayload(#""att": {"id": "\#(server.url(path))"}"#))
        let media = (run.report["media"] as? [[String: Any]])?.first ?? [:]
        #expect(media["typeSource"] as? String == source)
        if type.isEmpty {
            #expect(run.reason == "unsupported_type")
            #expect(run.attachments.isEmpty)
        } else {
            #expect(run.attachments.first?["type"] as? String == type)
        }
    }

    @Test func oneSignalCancelsOnlyWhatContentLengthAnnouncesOver50MB() throws {
        let announced = try ProcessRun.profile("onesignal", sdkPayload(#""att": {"big": "\#(server.url("/bytes/60000000?mode=length"))"}"#))
        #expect(announced.reason == "too_large")
        #expect(announced.message("too_large").contains("OneSignal's 50000000-byte limit (announced lengths only)"))
        #expect(((announced.report["media"] as? [[String: Any]])?.first?["bytes"]) is NSNull, "refused before the body")
        let fromOSData = try ProcessRun.profile("onesignal", sdkPayload(#""os_data": {"att": {"a": "\#(server.url("/media/logo.png"))"}}"#))
        #expect(fromOSData.outcome == "attached", "os_data.att when att is absent")
    }

    // MARK: Airship

    @Test func airshipAttachesEveryEntryWithOptionsAndAppliesTheContent() throws {
        let run = try ProcessRun.profile("airship", sdkPayload(#"""
            "com.urbanairship.media_attachment": {
              "urls": [{"url": "\#(server.url("/file/photo.jpg/x?type=none"))", "url_id": "hero"},
                       {"url": "\#(server.url("/file/tone-id3.mp3/y?type=none"))", "url_id": "jingle"},
                       {"url": "\#(server.url("/file/logo.png/z"))"},
                       {"url": "\#(server.url("/media/spinner.gif"))", "url_id": "thumb"}],
              "url": "\#(server.url("/status/404"))",
              "thumbnail_id": "thumb",
              "options": {"crop": {"x": 0.1, "y": 0, "width": 0.5, "height": 1.0}, "time": 2.5},
              "content": {"title": "New title", "body": "New body"}}
            """#))
        #expect(run.outcome == "attached", "urls wins over url: the 404 is never fetched")
        #expect(run.content["title"] as? String == "New title")
        #expect(run.content["subtitle"] == nil)
        #expect(run.content["body"] as? String == "New body")
        let attachments = run.attachments
        #expect(attachments.map { $0["identifier"] as? String } == ["hero", "jingle", "", "thumb"], "payload order")
        // Magic bytes, magic bytes, the Content-Type, the URL's suffix.
        #expect(attachments.map { $0["typeHint"] as? String } == ["public.jpeg", "public.mp3", "public.png", nil])
        let hero = try #require(attachments.first?["options"] as? [String: Any])
        #expect((hero["thumbnailClippingRect"] as? [String: Any])?["Width"] as? Double == 0.5)
        #expect(hero["thumbnailTime"] as? Double == 2.5)
        #expect(hero["thumbnailHidden"] as? Bool == true, "thumbnail_id names another entry")
        #expect((attachments.last?["options"] as? [String: Any])?["thumbnailHidden"] == nil)
    }

    @Test func airshipIsAllOrNothingOverridesIncluded() throws {
        let run = try ProcessRun.profile("airship", sdkPayload(#"""
            "com.urbanairship.media_attachment": {
              "url": ["\#(server.url("/media/logo.png"))", "\#(server.url("/status/500"))"],
              "content": {"body": "Replaced"}}
            """#))
        #expect(run.outcome == "unchanged")
        #expect(run.reason == "http_error")
        #expect(run.attachments.isEmpty)
        #expect(run.content["body"] as? String == "50% off", "the overrides are dropped too")
    }

    @Test(arguments: [
        #"{"url": 5}"#,
        #"{"url": "https://cdn.example.com/a.png", "options": {"crop": {"x": 1.5, "y": 0, "width": 1, "height": 1}}}"#,
        #"{"url": "https://cdn.example.com/a.png", "options": {"crop": {"x": 0, "y": 0, "width": 1}}}"#,
        #"{"urls": [{"url": "https://cdn.example.com/a.png", "url_id": 7}]}"#,
        #"{"url": "https://cdn.example.com/a.png", "content": {"title": 1}}"#,
    ])
    func airshipRejectsASpecItsDecoderRejects(spec: String) throws {
        let run = try ProcessRun.profile("airship", sdkPayload(#""com.urbanairship.media_attachment": \#(spec)"#))
        #expect(run.reason == "invalid_media_spec")
        #expect(run.content["title"] as? String == "Sale", "no override is applied")
    }

    @Test func anEmptyAirshipListIsNoMediaAndTheOverridesStillApply() throws {
        let run = try ProcessRun.profile("airship", sdkPayload(#""com.urbanairship.media_attachment": {"url": [], "content": {"title": "T2"}}"#))
        #expect(run.outcome == "unchanged")
        #expect(run.reason == "no_media")
        #expect(run.content["title"] as? String == "T2")
    }

    @Test func airshipWithNoRecognisedTypeIsRefused() throws {
        let run = try ProcessRun.profile(
            "airship", sdkPayload(#""com.urbanairship.media_attachment": {"url": "\#(server.url("/file/badge.webp/x?type=none"))"}"#))
        #expect(run.reason == "unsupported_type")
        #expect(run.message("unsupported_type").contains("the bytes are image/webp"))
    }

    // MARK: CleverTap

    // Every row of CleverTap's typing is judged in process (JudgeTableTests); end to end, the
    // media type, and the real response's Content-Type when the media type is not one of three.
    @Test(arguments: [
        ("image", "/file/logo.png/x", "jpg", "ct_mediaType"),
        ("gif", "/file/logo.png/x", "png", "the Content-Type"),
    ])
    func cleverTapTypesByFieldThenContentType(kind: String, path: String, type: String, source: String) throws {
        let run = try ProcessRun.profile(
            "clevertap", sdkPayload(#""ct_mediaUrl": "\#(server.url(path))", "ct_mediaType": "\#(kind)""#))
        #expect(run.media["typeSource"] as? String == source)
        if type.isEmpty {
            #expect(run.reason == "unsupported_type")
        } else {
            #expect(run.attachments.first?["type"] as? String == type)
        }
    }

    @Test func cleverTapNeedsBothKeys() throws {
        let run = try ProcessRun.profile("clevertap", sdkPayload(#""ct_mediaUrl": "\#(server.url("/media/logo.png"))""#))
        #expect(run.reason == "invalid_media_spec")
    }

    // MARK: Iterable

    @Test func iterableUsesTheSuggestedFileNameAsIdentifier() throws {
        let run = try ProcessRun.profile("iterable", sdkPayload(#""itbl": {"attachment-url": "\#(server.url("/file/logo.png/promo"))"}"#))
        #expect(run.outcome == "attached")
        #expect(run.attachments.first?["identifier"] as? String == "promo.png")
        let none = try ProcessRun.profile("iterable", sdkPayload(#""itbl": {"attachment-url": "\#(server.url("/file/logo.png/promo?type=none"))"}"#))
        #expect(none.reason == "unsupported_type", "no extension, no hint: iOS refuses it")
    }

    // MARK: Batch

    // Every hint is judged in process (JudgeTableTests); end to end, one that types the file and one iOS refuses.
    @Test(arguments: [("public.png", "png"), ("banana", "")])
    func batchTypesByTheHintAlone(hint: String, type: String) throws {
        // The URL says .gif and the server says image/gif: Batch looks at neither.
        let run = try ProcessRun.profile(
            "batch", sdkPayload(#""com.batch": {"at": {"u": "\#(server.url("/file/logo.png/x.gif?type=image/gif"))", "t": "\#(hint)"}}"#))
        #expect((run.media["limits"] as? [String: Any])?["timeoutSeconds"] as? Int == 20, "Batch's own 20 s")
        if type.isEmpty {
            #expect(run.reason == "unsupported_type")
        } else {
            #expect(run.attachments.first?["type"] as? String == type)
            #expect(run.attachments.first?["typeHint"] as? String == "public.png")
            #expect(run.attachments.first?["identifier"] as? String == "batch_rich_attachment")
        }
    }

    @Test func batchNeedsBothFields() throws {
        let run = try ProcessRun.profile("batch", sdkPayload(#""com.batch": {"at": {"u": "\#(server.url("/media/logo.png"))"}}"#))
        #expect(run.reason == "invalid_media_spec")
    }

    // MARK: auto and foreign keys

    @Test func autoPicksByMediaKeyAndWarnsWhenSeveralArePresent() throws {
        let braze = try ProcessRun.profile("auto", sdkPayload(#""ab": {"att": {"url": "\#(server.url("/media/logo.png"))", "type": "png"}}"#))
        #expect(braze.report["sdk"] as? String == "braze")
        #expect(braze.diagnosticCodes.isEmpty)
        let both = try ProcessRun.profile("auto", sdkPayload(#"""
            "fcm_options": {"image": "\#(server.url("/media/logo.png"))"}, "ab": {"att": {"url": "\#(server.url("/media/logo.png"))", "type": "png"}}
            """#))
        #expect(both.report["sdk"] as? String == "braze", "braze comes before fcm in --sdk's list")
        #expect(both.diagnosticCodes.contains("ambiguous_sdk"))
        #expect(both.message("foreign_media_key").contains("fcm_options.image"))
        let none = try ProcessRun.profile("auto", sdkPayload(#""x": 1"#))
        #expect(none.report["sdk"] as? String == "notti")
        #expect(none.reason == "no_media")
    }

    @Test func aMediaKeyTheChosenSDKIgnoresIsForeign() throws {
        let run = try ProcessRun.profile("notti", sdkPayload(#""ab": {"att": {"url": "https://cdn.example.com/a.png", "type": "png"}}"#))
        #expect(run.reason == "no_media")
        #expect(run.message("foreign_media_key").hasPrefix("this payload has ab.att, which the Notti extension ignores"))
    }

    @Test func aBadSDKNameIsAUsageError() throws {
        let result = try CLI.run(["process", "-", "--sdk", "firebase"])
        #expect(result.status == 2)
        #expect(result.stderr == "notti-media: --sdk expects notti, braze, fcm, onesignal, airship, clevertap, iterable, batch, expo or auto, not 'firebase'\n")
    }

    @Test func checkAutoOverAMixedExportFetchesEachURLOnce() throws {
        let tag = UUID().uuidString
        let logo = server.url("/u/\(tag)/media/logo.png")
        let gif = server.url("/u/\(tag)/media/spinner.gif")
        let lines = [
            payload(url: logo),
            sdkPayload(#""ab": {"att": {"url": "\#(logo)", "type": "png"}}"#),
            sdkPayload(#""fcm_options": {"image": "\#(gif)"}"#),
            sdkPayload(#""att": {"a": "\#(logo)", "b": "\#(gif)"}"#),
            sdkPayload(#""com.urbanairship.media_attachment": {"url": ["\#(gif)", "\#(logo)"]}"#),
            sdkPayload(#""ab": {"att": {"url": "\#(logo)", "type": "png"}}"#),
        ]
        let out = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: out) }
        let result = try CLI.run(
            ["check", "--sdk", "auto", "--format", "json", "--cacert", Paths.testCA, "--out", out.path, "-"],
            stdin: lines.joined(separator: "\n"))
        let records = result.stdout.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }
        #expect(records.dropLast().map { $0["sdk"] as? String } == ["notti", "braze", "fcm", "onesignal", "airship", "braze"])
        #expect(records.dropLast().allSatisfy { $0["outcome"] as? String == "attached" })
        // One download per distinct URL, judged under each payload's own profile.
        let counts = try server.requestCounts().filter { $0.key.hasPrefix("/u/\(tag)/") }
        #expect(counts == ["/u/\(tag)/media/logo.png": 1, "/u/\(tag)/media/spinner.gif": 1])
        let notti = try #require(records.first?["media"] as? [String: Any])
        #expect((notti["limits"] as? [String: Any])?["timeoutSeconds"] as? Int == 20, "the Notti payload under Notti's limits")
        #expect(result.status == 0)
    }
}

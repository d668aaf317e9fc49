import Foundation
import Testing

/// SPEC 15: an FCM send request is checked for both platforms it reaches: the
/// APNs payload FCM derives for iPhones, and what Android phones show.
@Suite struct SendRequestTests {
    let server = TestServer.shared

    /// A request with `notification` (title, body, image when given), mutable-content for iOS, and `data`.
    private func request(image: String?, data: [String: String] = ["notification_id": "n-1"], extra: [String: Any] = [:]) -> String {
        var notification: [String: Any] = ["title": "Sale", "body": "50% off"]
        if let image { notification["image"] = image }
        var message: [String: Any] = ["token": "device", "notification": notification, "data": data,
                                      "apns": ["payload": ["aps": ["mutable-content": 1]]]]
        message.merge(extra) { $1 }
        return String(decoding: try! JSONSerialization.data(withJSONObject: ["message": message], options: [.sortedKeys, .withoutEscapingSlashes]), as: UTF8.self)
    }

    /// SPEC 20: a picture's URL under `data` only is `data_only_image` on the Android record; not
    /// with a notification image, nor for a value that is no URL.
    @Test(arguments: [
        (["imageUrl": "https://cdn.example/a.png"], nil as String?, true), (["big_picture": "http://cdn.example/a.png"], nil, true),
        (["image": "https://cdn.example/a.png"], "https://cdn.example/b.png", false), (["picture": "a.png"], nil, false),
        (["banner": "https://cdn.example/a.png"], nil, false),
    ])
    func anImageInDataAloneIsSaidOnAndroid(data: [String: String], image: String?, said: Bool) throws {
        let (_, ios, android, out) = try process(request(image: image, data: data), ["--timeout", "1"])
        defer { try? FileManager.default.removeItem(at: out) }
        func codes(_ report: [String: Any]) -> [String] { (report["diagnostics"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String } }
        #expect(codes(android).contains("data_only_image") == said, "\(codes(android))")
        #expect(!codes(ios).contains("data_only_image"), "an Android finding")
    }

    /// SPEC 20: `--device-headers` fetches each URL with each platform's own headers; a server that
    /// answers an Android phone with 403 is `device_dependent` on the Android record alone, with both answers.
    @Test func aServerThatBlocksAndroidsUserAgentIsDeviceDependentThere() throws {
        let text = request(image: server.url("/bot-wall/logo.png"))
        let (_, ios, android, out) = try process(text, ["--device-headers"])
        defer { try? FileManager.default.removeItem(at: out) }
        func finding(_ report: [String: Any]) -> String? {
            (report["diagnostics"] as? [[String: Any]] ?? []).first { $0["code"] as? String == "device_dependent" }?["message"] as? String
        }
        #expect(finding(ios) == nil, "an iPhone gets what the tool got")
        let said = try #require(finding(android))
        #expect(said.contains("(User-Agent: Dalvik/2.1.0 (Linux; U; Android 14; Pixel 8 Build/UQ1A.240205.004)) with HTTP 403, where the tool's got HTTP 200, image/png, 539 bytes"), "\(said)")
        let answers = (android["media"] as? [String: Any])?["deviceAnswers"] as? [[String: Any]] ?? []
        #expect(answers.map { $0["httpStatus"] as? Int } == [200, 403])
        // Without the option, no extra fetch and no finding.
        let (_, _, plain, plainOut) = try process(text)
        defer { try? FileManager.default.removeItem(at: plainOut) }
        #expect(finding(plain) == nil && (plain["media"] as? [String: Any])?["deviceAnswers"] == nil)
    }

    /// `process --report` on a request: the reports keyed by platform.
    private func process(_ text: String, _ extra: [String] = []) throws -> (result: CLI.Result, ios: [String: Any], android: [String: Any], out: URL) {
        let out = Paths.temporaryFolder()
        let result = try CLI.run(["process", "-", "--report", "--cacert", Paths.testCA, "--out", out.path] + extra, stdin: text)
        let json = result.json
        OutFolder.expectHoldsExactly(out, namedBy: [json["ios"], json["android"]].compactMap { $0 as? [String: Any] })
        return (result, json["ios"] as? [String: Any] ?? [:], json["android"] as? [String: Any] ?? [:], out)
    }

    private func codes(_ report: [String: Any]) -> [String] {
        (report["diagnostics"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
    }

    @Test func oneRequestGivesTwoRecordsIOSFirstWithOneIndex() throws {
        let out = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: out) }
        let lines = [payload(url: server.url("/media/logo.png")), request(image: server.url("/media/logo.png"))]
        let result = try CLI.run(["check", "-", "--format", "json", "--cacert", Paths.testCA, "--out", out.path],
                                 stdin: lines.joined(separator: "\n") + "\n")
        let records = OutFolder.records(ofJSONLines: result.stdout)
        #expect(records.map { $0["source"] as? String } == ["-:1", "-:2#ios", "-:2#android"])
        #expect(records.map { $0["platform"] as? String } == ["ios", "ios", "android"])
        #expect(records.map { $0["index"] as? Int } == [0, 1, 1])
        OutFolder.expectHoldsExactly(out, namedBy: records)
        let summary = try #require(OutFolder.summary(ofJSONLines: result.stdout))
        #expect(summary["payloads"] as? Int == 3)
        #expect(summary["inputs"] as? Int == 2, "a request is one input, two records")
        let platforms = summary["platforms"] as? [String: [String: Int]]
        #expect(platforms?["ios"]?["payloads"] == 2)
        #expect(platforms?["android"]?["payloads"] == 1)
        let text = try CLI.run(["check", "-", "--cacert", Paths.testCA, "--out", out.path], stdin: lines.joined(separator: "\n") + "\n")
        // Inputs and records apart (SPEC 10): passed and failed count records.
        #expect(text.stdout.contains("checked 2 payloads (3 records: 2 iOS, 1 Android): "), "\(text.stdout)")
        #expect(text.stdout.contains("  ios: 2 records: "))
        #expect(text.stdout.contains("  android: 1 record: 1 passed, 0 failed"))
    }

    @Test func theIOSPayloadIsDerivedAsFCMDoes() throws {
        let text = request(image: server.url("/media/photo.jpg"), data: ["notification_id": "n-7", "fcm_options": "kept?"], extra: [
            "apns": ["payload": ["aps": ["mutable-content": 1, "alert": "From APNs"], "fcm_options": ["image": server.url("/media/logo.png")]],
                     "fcm_options": ["image": server.url("/media/spinner.gif")]],
        ])
        let run = try process(text, ["--sdk", "fcm"])
        let userInfo = try #require((run.ios["content"] as? [String: Any])?["userInfo"] as? [String: Any])
        let aps = try #require(userInfo["aps"] as? [String: Any])
        // A string alert is the body; the notification's title makes it {"title", "body"}.
        #expect(aps["alert"] as? [String: String] == ["title": "Sale", "body": "From APNs"])
        // apns.fcm_options.image overrides notification.image; the payload's own fcm_options keeps its key.
        #expect((userInfo["fcm_options"] as? [String: Any])?["image"] as? String == server.url("/media/spinner.gif"))
        #expect(userInfo["notification_id"] as? String == "n-7", "data entries become top-level keys")
        #expect((run.ios["media"] as? [String: Any])?["sniffedMime"] as? String == "image/gif")
        #expect(run.android["source"] as? String == "-#android")
        #expect(((run.android["content"] as? [String: Any])?["picture"] as? [String: Any])?["mimeType"] as? String == "image/jpeg",
                "Android shows notification.image")
    }

    @Test func dataThatIsNotAllStringsIsInvalidForBothPlatforms() throws {
        let text = #"{"message": {"notification": {"title": "x"}, "data": {"count": 3}}}"#
        let process = try CLI.run(["process", "-"], stdin: text)
        #expect(process.status == 2)
        #expect(process.stderr.contains("invalid_payload: message.data.count is a number, not a string: FCM refuses the request"))
        let check = try CLI.run(["check", "-", "--format", "json", "--out", Paths.temporaryFolder().path], stdin: text + "\n")
        let records = OutFolder.records(ofJSONLines: check.stdout)
        #expect(records.map { $0["source"] as? String } == ["-:1#ios", "-:1#android"])
        #expect(records.allSatisfy { $0["reason"] as? String == "invalid_payload" })
    }

    @Test(arguments: [
        ("/bytes/1048576?mode=length", "attached", [String]()), ("/bytes/1048577?mode=length", "unchanged", ["too_large"]),
        ("/bytes/1048576?mode=nolength", "attached", []), ("/bytes/1048577?mode=nolength", "unchanged", ["too_large"]),
    ])
    func firebaseOnAndroidCapsThePictureAtOneMiB(route: String, outcome: String, codes expected: [String]) throws {
        let run = try process(request(image: server.url(route)), ["--platform", "android"])
        #expect(run.ios.isEmpty, "only the platform asked for")
        #expect(run.android["outcome"] as? String == outcome)
        #expect(codes(run.android) == expected)
        if !expected.isEmpty {
            let message = (run.android["diagnostics"] as? [[String: Any]])?.first?["message"] as? String ?? ""
            #expect(message.contains("1 MiB"), "\(message)")
        }
        #expect(((run.android["media"] as? [String: Any])?["limits"] as? [String: Any])?["maxBytes"] as? Int == 1_048_576)
    }

    @Test func firebaseOnAndroidGivesUpAfterFiveSeconds() throws {
        let run = try process(request(image: server.url("/trickle")), ["--platform", "android"])
        #expect(run.android["reason"] as? String == "timeout")
        #expect(run.result.seconds > 4.5 && run.result.seconds < 8, "took \(run.result.seconds) s")
        #expect(((run.android["media"] as? [String: Any])?["limits"] as? [String: Any])?["timeoutSeconds"] as? Int == 5)
    }

    @Test func cleartextIsBlockedByAndroidsPolicyUnlessAllowed() throws {
        let blocked = try process(request(image: server.httpURL("/media/logo.png")), ["--platform", "android"])
        #expect(blocked.android["reason"] as? String == "not_https")
        let message = (blocked.android["diagnostics"] as? [[String: Any]])?.first?["message"] as? String ?? ""
        #expect(message.contains("Android's default network security policy"))
        let allowed = try process(request(image: server.httpURL("/media/logo.png")), ["--platform", "android", "--allow-http"])
        #expect(allowed.android["outcome"] as? String == "attached")
    }

    @Test(arguments: [
        ("logo.png", "attached", [String](), 48), ("photo.jpg", "attached", [], 64), ("badge.webp", "attached", [], 48),
        ("spinner.gif", "attached", ["animation_lost"], 32), ("clip.mp4", "unchanged", ["unsupported_type"], 0),
        ("icon.svg", "unchanged", ["unsupported_type"], 0),
    ])
    func androidShowsWhatBitmapFactoryDecodes(file: String, outcome: String, codes expected: [String], width: Int) throws {
        let run = try process(request(image: server.url("/media/\(file)")), ["--platform", "android"])
        #expect(run.android["outcome"] as? String == outcome)
        #expect(codes(run.android) == expected)
        let content = try #require(run.android["content"] as? [String: Any])
        if outcome == "attached" {
            #expect(content["style"] as? String == "big_picture")
            #expect((content["picture"] as? [String: Any])?["width"] as? Int == width)
        } else {
            #expect(content["style"] as? String == "text")
            #expect(content["picture"] is NSNull)
            #expect(content["title"] as? String == "Sale", "the notification shows its text")
        }
    }

    @Test func airshipsBigPictureStyle() throws {
        let style = { (json: String) in self.request(image: nil, data: ["com.urbanairship.style": json]) }
        let valid = try process(style(#"{"type": "big_picture", "big_picture": "\#(server.url("/media/logo.png"))"}"#), ["--platform", "android", "--sdk", "auto"])
        #expect(valid.android["sdk"] as? String == "airship")
        #expect(valid.android["outcome"] as? String == "attached")
        #expect(((valid.android["media"] as? [String: Any])?["limits"] as? [String: Any])?["timeoutSeconds"] as? Int == 7)
        let text = try process(style(#"{"type": "big_text", "big_text": "long"}"#), ["--platform", "android", "--sdk", "airship"])
        #expect(text.android["reason"] as? String == "no_media")
        let broken = try process(style("{not json"), ["--platform", "android", "--sdk", "airship"])
        #expect(broken.android["reason"] as? String == "invalid_media_spec")
    }

    @Test func oneSignalsResourceNameIsNotFetched() throws {
        let tag = UUID().uuidString
        let run = try process(request(image: nil, data: ["bicon": "promo_banner", "other": server.url("/u/\(tag)/media/logo.png")]),
                              ["--platform", "android", "--sdk", "onesignal"])
        #expect(run.android["sdk"] as? String == "onesignal")
        #expect(codes(run.android) == ["bundle_resource"])
        #expect(try server.requestCounts().keys.filter { $0.contains(tag) }.isEmpty, "no request sent")
    }

    @Test func anIOSOnlyMediaKeyInDataIsNoAndroidMedia() throws {
        let run = try process(request(image: nil, data: ["notti_image_url": server.url("/media/logo.png"), "notification_id": "n-1"]))
        #expect(run.ios["outcome"] as? String == "attached", "Notti's extension reads it on iOS")
        #expect(run.android["reason"] as? String == "no_media")
        #expect(codes(run.android) == ["no_android_media"])
        let message = (run.android["diagnostics"] as? [[String: Any]])?.first?["message"] as? String ?? ""
        #expect(message.hasPrefix("nothing on Android reads notti_image_url; set notification.image"))
    }

    @Test func shardsOfRequestsMergeIntoOneRun() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("requests.jsonl")
        let lines = (0..<5).map { request(image: server.url($0 % 2 == 0 ? "/media/logo.png" : "/status/404")) }
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: input)
        let whole = try CLI.run(["check", input.path, "--format", "json", "--cacert", Paths.testCA, "--out", folder.path])
        var files: [String] = []
        for shard in 1...2 {
            let part = try CLI.run(["check", input.path, "--shard", "\(shard)/2", "--format", "json", "--cacert", Paths.testCA, "--out", folder.path])
            let file = folder.appendingPathComponent("\(shard).json")
            try Data(part.stdout.utf8).write(to: file)
            files.append(file.path)
        }
        let merged = try CLI.run(["merge", "--format", "json"] + files)
        func masked(_ text: String) -> String {
            text.replacingOccurrences(of: #""elapsedMs":[0-9]+"#, with: "", options: .regularExpression)
                .replacingOccurrences(of: #""timings":(\{[^}]*\}|null)"#, with: "", options: .regularExpression)
        }
        #expect(masked(merged.stdout) == masked(whole.stdout))
        #expect(OutFolder.records(ofJSONLines: whole.stdout).count == 10)
    }

    @Test func airshipGivesUpAfterSevenSecondsAndTwoToConnect() throws {
        let style = { (url: String) in
            self.request(image: nil, data: ["com.urbanairship.style": #"{"type": "big_picture", "big_picture": "\#(url)"}"#])
        }
        let slow = try process(style(server.url("/trickle")), ["--platform", "android", "--sdk", "airship"])
        #expect(slow.android["reason"] as? String == "timeout")
        #expect(slow.result.seconds > 6.5 && slow.result.seconds < 10, "took \(slow.result.seconds) s")
        let stalled = try process(style("https://127.0.0.1:\(server.stallPort)/x.png"), ["--platform", "android", "--sdk", "airship"])
        #expect(stalled.android["reason"] as? String == "timeout")
        #expect(stalled.result.seconds > 1.5 && stalled.result.seconds < 4.5, "the connection's 2 s: took \(stalled.result.seconds) s")
    }

    @Test func platformPicksTheDeliveriesChecked() throws {
        let text = request(image: server.url("/media/logo.png"))
        for (platform, keys) in [("ios", ["ios"]), ("android", ["android"]), ("all", ["android", "ios"])] {
            let result = try CLI.run(["process", "-", "--platform", platform, "--cacert", Paths.testCA, "--out", Paths.temporaryFolder().path], stdin: text)
            #expect(result.status == 0)
            #expect(result.json.keys.sorted() == keys, "\(platform)")
        }
        let junit = try CLI.run(["check", "-", "--format", "junit", "--cacert", Paths.testCA, "--out", Paths.temporaryFolder().path], stdin: text + "\n")
        #expect(junit.stdout.contains("name=\"-:1#ios\"") && junit.stdout.contains("name=\"-:1#android\""))
    }
}

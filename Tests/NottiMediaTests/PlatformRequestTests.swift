import Foundation
import Testing

/// SPEC 20: the send requests of OneSignal, Airship, Braze and Expo, checked as
/// each platform's phones would see them, against a real TLS server on loopback.
@Suite struct PlatformRequestTests {
    let server = TestServer.shared
    var good: String { server.url("/media/logo.png") }
    var missing: String { server.url("/missing.png") }

    // MARK: the requests, as a back end posts them

    static func json(_ object: [String: Any]) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]), as: UTF8.self)
    }

    static func oneSignal(attachments: [String: String], bigPicture: String?, contents: String = "50% off", extra: [String: Any] = [:]) -> String {
        var request: [String: Any] = ["app_id": "5eb5a37e-b458-11e3-ac11-000c2940e62c", "include_subscription_ids": ["s-1"],
                                      "contents": ["en": contents]]
        if !attachments.isEmpty { request["ios_attachments"] = attachments }
        if let bigPicture { request["big_picture"] = bigPicture }
        return json(request.merging(extra) { $1 })
    }

    static func airship(deviceTypes: Any, ios: String?, android: String?) -> String {
        var notification: [String: Any] = ["alert": "50% off"]
        if let ios { notification["ios"] = ["media_attachment": ["url": ios]] }
        if let android { notification["android"] = ["style": ["type": "big_picture", "big_picture": android]] }
        return json(["audience": "all", "device_types": deviceTypes, "notification": notification])
    }

    static func braze(ios: String?, type: String = "png", alert: String = "50% off", android: String?, androidAlert: String = "50% off") -> String {
        var messages: [String: Any] = [:]
        if let ios { messages["apple_push"] = ["alert": alert, "asset_url": ios, "asset_file_type": type] }
        if let android { messages["android_push"] = ["title": "Sale", "alert": androidAlert, "extra": ["appboy_image_url": android]] }
        return json(["external_user_ids": ["u-1"], "messages": messages])
    }

    static func expo(image: String, data: [String: String] = [:]) -> String {
        json(["to": "ExponentPushToken[xxxxxxxxxxxxxxxxxxxxxx]", "title": "Sale", "body": "50% off", "mutableContent": true,
              "richContent": ["image": image], "data": data])
    }

    /// `check --format json` of `lines` on standard input: the records, after asserting `--out` holds exactly what they name.
    private func check(_ lines: [String], _ extra: [String] = []) throws -> [[String: Any]] {
        let out = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: out) }
        let result = try CLI.run(["check", "-", "--format", "json", "--cacert", Paths.testCA, "--out", out.path] + extra,
                                 stdin: lines.joined(separator: "\n") + "\n")
        let records = OutFolder.records(ofJSONLines: result.stdout)
        OutFolder.expectHoldsExactly(out, namedBy: records)
        return records
    }

    private func codes(_ record: [String: Any]) -> [String] {
        (record["diagnostics"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
    }

    private func message(_ record: [String: Any], _ code: String) -> String? {
        (record["diagnostics"] as? [[String: Any]] ?? []).first { $0["code"] as? String == code }?["message"] as? String
    }

    /// A line per record: `source sdk outcome reason passed`.
    private func summary(_ records: [[String: Any]]) -> [String] {
        records.map { record in
            ["source", "sdk", "outcome", "reason"].map { (record[$0] as? String) ?? "-" }.joined(separator: " ")
                + " " + String(record["passed"] as? Bool ?? false)
        }
    }

    // MARK: each platform, a passing and a failing picture on each phone

    @Test(arguments: ["onesignal", "airship", "braze"])
    func eachPlatformsRequestIsJudgedOnBothPhonesUnderItsOwnRules(platform: String) throws {
        func request(ios: String, android: String) -> String {
            switch platform {
            case "onesignal": Self.oneSignal(attachments: ["hero": ios], bigPicture: android)
            case "airship": Self.airship(deviceTypes: "all", ios: ios, android: android)
            default: Self.braze(ios: ios, android: android)
            }
        }
        let records = try check([request(ios: good, android: missing), request(ios: missing, android: good)])
        #expect(summary(records) == [
            "-:1#ios \(platform) attached - true", "-:1#android \(platform) unchanged http_error false",
            "-:2#ios \(platform) unchanged http_error false", "-:2#android \(platform) attached - true",
        ], "\(summary(records))")
        #expect(records.map { $0["platform"] as? String } == ["ios", "android", "ios", "android"])
        #expect(records.map { $0["index"] as? Int } == [0, 0, 1, 1], "one index per request")
    }

    /// Expo's one picture field reaches both phones: one URL, one verdict on each.
    @Test func anExpoMessagesPictureIsBothPhonesPicture() throws {
        let records = try check([Self.expo(image: good), Self.expo(image: missing)])
        #expect(summary(records) == [
            "-:1#ios expo attached - true", "-:1#android expo attached - true",
            "-:2#ios expo unchanged http_error false", "-:2#android expo unchanged http_error false",
        ], "\(summary(records))")
        // iOS gets the picture as an attachment, from the APNs payload Expo builds.
        let content = try #require(records[0]["content"] as? [String: Any])
        let userInfo = try #require(content["userInfo"] as? [String: Any])
        #expect((userInfo["aps"] as? [String: Any])?["mutable-content"] as? Int == 1)
        #expect((userInfo["richContent"] as? [String: Any])?["image"] as? String == good)
        #expect((content["attachments"] as? [[String: Any]])?.count == 1)
    }

    /// samples/platforms: one request per platform, each with a picture that passes and one that fails.
    @Test func eachPlatformsSampleHasAPassingAndAFailingPicture() throws {
        let media = TestServer(media: Paths.packageRoot.appendingPathComponent("samples/media").path)
        let out = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: out) }
        let result = try CLI.run(["check", Paths.packageRoot.appendingPathComponent("samples/platforms").path, "--format", "json",
                                  "--cacert", Paths.testCA, "--connect-to", "media.notti.test:443:127.0.0.1:\(media.port)", "--out", out.path])
        let records = OutFolder.records(ofJSONLines: result.stdout)
        OutFolder.expectHoldsExactly(out, namedBy: records)
        var byFile: [String: [Bool]] = [:]
        for record in records {
            let source = record["source"] as? String ?? ""
            let file = String(source.split(separator: "/").last?.split(whereSeparator: { $0 == ":" || $0 == "#" || $0 == "[" }).first ?? "")
            byFile[file, default: []].append(record["passed"] as? Bool ?? false)
        }
        #expect(byFile.keys.sorted() == ["airship-spring-banner.json", "braze-new-arrivals.json", "expo-flash-deal.json", "onesignal-summer-sale.json"])
        for (file, verdicts) in byFile {
            #expect(verdicts.contains(true) && verdicts.contains(false), "\(file): \(verdicts)")
        }
        #expect(Set(records.compactMap { $0["sdk"] as? String }) == ["onesignal", "airship", "braze", "expo"])
    }

    // MARK: the mapping's edges

    @Test func oneSignalsAttachmentsEachFailAlone() throws {
        let records = try check([Self.oneSignal(attachments: ["a": good, "b": missing], bigPicture: nil)])
        #expect(records.map { $0["source"] as? String } == ["-:1#ios", "-:1#android"])
        let ios = records[0]
        #expect(ios["outcome"] as? String == "attached" && ios["passed"] as? Bool == false)
        #expect((ios["media"] as? [[String: Any]])?.compactMap { $0["identifier"] as? String } == ["a", "b"])
        #expect(((ios["content"] as? [String: Any])?["attachments"] as? [[String: Any]])?.count == 1)
        #expect(message(ios, "http_error")?.hasPrefix("att.b: ") == true, "\(codes(ios))")
        // An entry whose message already names it is not named twice.
        let number = try check([Self.oneSignal(attachments: [:], bigPicture: nil, extra: ["ios_attachments": ["a": 5]])])
        #expect(message(number[0], "invalid_url") == "att.a must be a string, not a number; send an absolute URL with a host and no spaces",
                "\(String(describing: message(number[0], "invalid_url")))")
        // No big_picture: the Android notification shows its text, which is no failure.
        #expect(records[1]["reason"] as? String == "no_media" && records[1]["passed"] as? Bool == true)
        #expect(((records[1]["content"] as? [String: Any])?["style"]) as? String == "text")
    }

    @Test func oneSignalsPlatformFlagsAndAirshipsDeviceTypesChooseTheRecords() throws {
        let records = try check([
            Self.airship(deviceTypes: ["android"], ios: good, android: good),
            Self.airship(deviceTypes: ["ios"], ios: good, android: good),
            Self.oneSignal(attachments: ["a": good], bigPicture: good, extra: ["isAndroid": false]),
            Self.oneSignal(attachments: ["a": good], bigPicture: good, extra: ["isIos": false]),
        ])
        #expect(records.map { $0["source"] as? String } == ["-:1#android", "-:2#ios", "-:3#ios", "-:4#android"])
        #expect(records.allSatisfy { $0["passed"] as? Bool == true })
    }

    @Test func brazeWithoutAnAndroidPushReachesIPhonesAlone() throws {
        let records = try check([Self.braze(ios: good, android: nil), Self.braze(ios: nil, android: good)])
        #expect(summary(records) == ["-:1#ios braze attached - true", "-:2#android braze attached - true"], "\(summary(records))")
        // Braze's type field is the attachment's suffix; its big picture is Android's.
        let userInfo = (records[0]["content"] as? [String: Any])?["userInfo"] as? [String: Any]
        #expect(((userInfo?["ab"] as? [String: Any])?["att"] as? [String: Any])?["type"] as? String == "png")
        #expect((records[1]["content"] as? [String: Any])?["style"] as? String == "big_picture")
    }

    /// A JSON array of Expo messages, as Expo's API takes them: one input per element.
    @Test func anArrayOfExpoMessagesIsOneInputEach() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("expo.json")
        try Data("[\(Self.expo(image: good)),\n\(Self.expo(image: missing))]\n".utf8).write(to: file)
        let result = try CLI.run(["check", file.path, "--format", "json", "--cacert", Paths.testCA, "--out", folder.appendingPathComponent("out").path])
        let records = OutFolder.records(ofJSONLines: result.stdout)
        #expect(records.map { $0["index"] as? Int } == [0, 0, 1, 1])
        #expect(records.map { $0["passed"] as? Bool } == [true, true, false, false])
        #expect(result.status == 1)
    }

    /// Expo's Android code shows the picture as the large icon: a picture far from square loses what the crop cuts.
    @Test func expoShowsThePictureAsTheLargeIconOnAndroid() throws {
        let records = try check([Self.expo(image: server.url("/media/photo.jpg")), Self.expo(image: good)])
        let wide = records[1], square = records[3]
        #expect((wide["content"] as? [String: Any])?["style"] as? String == "large_icon")
        #expect(message(wide, "large_icon_only")?.contains("the 64×48 picture is cropped to its middle 48×48 (75% of it)") == true,
                "\(codes(wide))")
        #expect(wide["passed"] as? Bool == true, "a warning")
        #expect((square["content"] as? [String: Any])?["style"] as? String == "large_icon" && !codes(square).contains("large_icon_only"))
        #expect(!codes(records[0]).contains("large_icon_only"), "iPhones attach it as any picture")
    }

    /// A request its platform refuses names the path inside it, under the platform's name.
    @Test(arguments: [
        (#"{"messages": {"apple_push": {"alert": "x", "asset_url": 7}}}"#, "braze", "messages.apple_push.asset_url is a number, not a string: Braze refuses the request"),
        (#"{"audience": "all", "notification": {"alert": "x"}}"#, "airship", "device_types is missing: Airship refuses the request"),
        (#"{"audience": "all", "device_types": "all", "notification": {"android": {"style": 1}}}"#, "airship", "notification.android.style is a number, not an object: Airship refuses the request"),
        (#"{"app_id": "a", "contents": {"en": 5}}"#, "onesignal", "contents.en is a number, not a string: OneSignal refuses the request"),
        (#"{"to": 5, "title": "x"}"#, "expo", "to is a number, not a push token or a list of them: Expo refuses the request"),
        (#"{"external_user_ids": ["u"], "messages": {"email": {}}}"#, "braze", "the Braze request targets neither iOS nor Android"),
    ])
    func aRefusedRequestIsInvalidPayloadNamingThePath(request: String, sdk: String, said: String) throws {
        let records = try check([request])
        #expect(records.count == 2)
        for record in records {
            #expect(record["reason"] as? String == "invalid_payload" && record["sdk"] as? String == sdk)
            #expect(message(record, "invalid_payload")?.hasPrefix(said) == true, "\(message(record, "invalid_payload") ?? "-")")
        }
    }

    // MARK: the platforms' limits, just under and just over

    /// The compact JSON text of a string value's own bytes (ASCII, no escapes in these tests).
    private static func filler(_ count: Int) -> String { String(repeating: "x", count: count) }

    @Test(arguments: [0, 1])
    func brazeKeeps3807BytesForIPhonesAnd4000ForAndroid(over: Int) throws {
        let url = good
        // What Braze sends iPhones for apple_push {alert, asset_url, asset_file_type}.
        let base = #"{"aps":{"alert":"","mutable-content":1},"ab":{"att":{"url":"","type":"png"}}}"#.utf8.count + url.utf8.count
        // Android: the alert's bytes plus extra's, as compact JSON.
        let extra = #"{"appboy_image_url":""}"#.utf8.count + url.utf8.count
        let records = try check([Self.braze(ios: url, alert: Self.filler(3_807 - base + over), android: url,
                                            androidAlert: Self.filler(4_000 - extra + over))])
        for record in records {
            #expect(codes(record).contains("payload_too_large") == (over == 1), "\(record["source"] ?? "") \(codes(record))")
            #expect(record["outcome"] as? String == (over == 1 ? "rejected" : "attached"))
        }
        if over == 1 {
            #expect(message(records[0], "payload_too_large")?.contains("3808 bytes, over Braze's 3,807-byte limit for iOS") == true)
            #expect(message(records[1], "payload_too_large")?.contains("android_push's alert and extra are 4001 bytes, over Braze's 4,000-byte limit") == true)
        }
    }

    /// Airship's `device_types: ["all"]`, what its own Python library writes (`ua.device_types("all")`), is every
    /// platform, as the string `"all"` is (issue 61, item 3: it was invalid_payload, naming no field).
    @Test func airshipsAllInAListIsEveryPlatform() throws {
        let records = try check([Self.airship(deviceTypes: ["all"], ios: good, android: good)])
        #expect(records.map { $0["platform"] as? String } == ["ios", "android"])
        #expect(records.map { $0["outcome"] as? String } == ["attached", "attached"], "\(records.map(codes))")
    }

    @Test(arguments: [0, 1])
    func oneSignalWarnsOver3500BytesAndRefusesDataOver2048(over: Int) throws {
        let url = good
        // OneSignal's APNs payload for contents and one attachment: its id is a UUID.
        let base = #"{"aps":{"alert":{"body":""},"mutable-content":1},"custom":{"i":"00000000-0000-4000-8000-000000000000"},"att":{"hero":""}}"#
            .utf8.count + url.utf8.count
        let near = try check([Self.oneSignal(attachments: ["hero": url], bigPicture: nil, contents: Self.filler(3_500 - base + over))])
        #expect(codes(near[0]).contains("payload_near_limit") == (over == 1), "\(codes(near[0]))")
        #expect(near[0]["passed"] as? Bool == true, "a warning")
        #expect(!codes(near[1]).contains("payload_near_limit"), "an iOS limit")

        let data = ["k": Self.filler(2_048 - #"{"k":""}"#.utf8.count + over)]
        let heavy = try check([Self.oneSignal(attachments: ["hero": url], bigPicture: url, extra: ["data": data])])
        for record in heavy {
            #expect(codes(record).contains("additional_data_too_large") == (over == 1), "\(codes(record))")
            #expect(record["passed"] as? Bool == (over == 0))
            // OneSignal refuses the request (SPEC 20, round five): rejected, as payload_too_large, nothing stored
            // (check's folder holds exactly what the records name); it was attached, its pictures stored.
            #expect(record["outcome"] as? String == (over == 1 ? "rejected" : "attached"), "\(record["source"] ?? "")")
            #expect(record["reason"] as? String == (over == 1 ? "additional_data_too_large" : nil))
        }
    }

    /// FCM's, Expo's and Airship's Android messages: data and notification at most 4,096 bytes.
    @Test(arguments: [0, 1])
    func androidMessagesStopAt4096Bytes(over: Int) throws {
        let url = good
        let notification = #"{"title":"Sale","body":"50% off","image":""}"#.utf8.count + url.utf8.count
        let fcm = Self.json(["message": ["token": "t", "notification": ["title": "Sale", "body": "50% off", "image": url],
                                         "data": ["k": Self.filler(4_096 - notification - #"{"k":""}"#.utf8.count + over)]]])
        let expoNotification = #"{"title":"Sale","body":"50% off"}"#.utf8.count
        let expo = Self.expo(image: url, data: ["k": Self.filler(4_096 - expoNotification - #"{"k":""}"#.utf8.count + over)])
        // Airship's: the alert as the body, the style as the JSON text of com.urbanairship.style (its 8 quotes escaped).
        let styleText = #"{"big_picture":"","type":"big_picture"}"#.utf8.count + url.utf8.count + 8
        let airshipFixed = #"{"body":""}"#.utf8.count + #"{"com.urbanairship.style":""}"#.utf8.count + styleText
        let airship = Self.json(["audience": "all", "device_types": ["android"], "notification": [
            "alert": Self.filler(4_096 - airshipFixed + over), "android": ["style": ["type": "big_picture", "big_picture": url]]]])
        let records = try check([fcm, expo, airship], ["--platform", "android"])
        #expect(records.map { $0["source"] as? String } == ["-:1#android", "-:2#android", "-:3#android"])
        for record in records {
            #expect(codes(record).contains("payload_too_large") == (over == 1), "\(codes(record))")
            #expect(record["outcome"] as? String == (over == 1 ? "rejected" : "attached"))
        }
        if over == 1 {
            #expect(message(records[0], "payload_too_large")?.contains("the Android message's data and notification are 4097 bytes, over FCM's 4,096-byte limit") == true)
            #expect(message(records[1], "payload_too_large")?.contains("over Expo's (FCM's) 4,096-byte limit") == true)
        }
    }

    // MARK: the URL as the campaign wrote it

    @Test func templateTextIsSaidInEveryPlatformsPictureField() throws {
        let template = "https://cdn.example/{{ ${user.hero} }}.png"
        let records = try check([
            Self.oneSignal(attachments: ["hero": template], bigPicture: template),
            Self.airship(deviceTypes: "all", ios: template, android: template),
            Self.braze(ios: template, android: template),
            Self.expo(image: template),
        ])
        #expect(records.count == 8)
        for record in records {
            #expect(record["reason"] as? String == "unrendered_template", "\(record["source"] ?? "") \(codes(record))")
        }
    }

    /// A picture's URL in the request's data alone: the platform's Android code never reads it there.
    @Test func aPictureInTheRequestsDataAloneIsSaidOnAndroid() throws {
        let records = try check([
            Self.oneSignal(attachments: [:], bigPicture: nil, extra: ["data": ["image": good]]),
            Self.oneSignal(attachments: [:], bigPicture: good, extra: ["data": ["image": good]]),
            Self.expo(image: good, data: ["imageUrl": good]),
        ], ["--platform", "android"])
        #expect(records.map { codes($0).contains("data_only_image") } == [true, false, false])
        #expect(message(records[0], "data_only_image")?.contains("OneSignal's display code never reads data") == true)
    }

    /// OneSignal keeps a push 3 days unless `ttl` says otherwise: a URL signed for 5 days outlives it.
    @Test func aSignedURLIsJudgedAgainstThePlatformsOwnLifetime() throws {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        formatter.timeZone = TimeZone(identifier: "UTC")
        let signed = good + "?X-Amz-Date=\(formatter.string(from: Date()))&X-Amz-Expires=\(5 * 86_400)"
        let records = try check([
            Self.oneSignal(attachments: ["hero": signed], bigPicture: signed),
            Self.oneSignal(attachments: ["hero": signed], bigPicture: signed, extra: ["ttl": 7 * 86_400]),
        ])
        #expect(records.prefix(2).allSatisfy { !codes($0).contains("url_expires") }, "\(records.prefix(2).map(codes))")
        #expect(records.suffix(2).allSatisfy { codes($0).contains("url_expires") }, "\(records.suffix(2).map(codes))")
    }

    // MARK: fix --rewrite writes each request back with only its URLs changed

    @Test func fixRewritesEachPlatformsRequestChangingOnlyTheURL() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let webp = server.url("/media/badge.webp")
        let requests = [
            Self.oneSignal(attachments: ["hero": webp], bigPicture: webp),
            Self.airship(deviceTypes: "all", ios: webp, android: webp),
            Self.braze(ios: webp, type: "webp", android: webp),
            Self.expo(image: webp),
        ]
        let input = folder.appendingPathComponent("campaign.jsonl")
        try Data((requests.joined(separator: "\n") + "\n").utf8).write(to: input)
        let into = folder.appendingPathComponent("fixed"), rewritten = folder.appendingPathComponent("requests")
        let result = try CLI.run(["fix", input.path, "--cacert", Paths.testCA, "--into", into.path,
                                  "--base-url", "https://cdn.example/p/", "--rewrite", rewritten.path])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let manifest = try String(contentsOf: into.appendingPathComponent("fixes.jsonl"), encoding: .utf8)
            .split(separator: "\n").compactMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(manifest.count == 1, "one URL, one rendition")
        let newURL = try #require(manifest.first?["newUrl"] as? String)
        #expect(Set(Paths.contents(of: into)) == [manifest[0]["file"] as? String ?? "?", "fixes.jsonl"])
        #expect(Paths.contents(of: rewritten) == ["campaign.jsonl"])
        let after = try String(contentsOf: rewritten.appendingPathComponent("campaign.jsonl"), encoding: .utf8)
        let expected = requests.map { $0.replacingOccurrences(of: webp, with: newURL) }
            .map { $0.replacingOccurrences(of: #""asset_file_type":"webp""#, with: #""asset_file_type":"jpg""#) }
        #expect(after == expected.joined(separator: "\n") + "\n")
        // The rewritten requests pass on both phones, once the renditions are where they point.
        let cdn = TestServer(media: into.path)
        let fixedURL = cdn.url("/media/") + (manifest[0]["file"] as? String ?? "?")
        let recheck = try check(requests.map { $0.replacingOccurrences(of: webp, with: fixedURL)
            .replacingOccurrences(of: #""asset_file_type":"webp""#, with: #""asset_file_type":"jpg""#) })
        #expect(recheck.allSatisfy { $0["passed"] as? Bool == true }, "\(summary(recheck))")
    }
}

/// OneSignal's create-notification body (`POST /notifications`, an object with
/// `app_id`; documentation.onesignal.com, "Create notification" and "Rich
/// media"). OneSignal sends iPhones `aps` (alert from `headings`, `subtitle`,
/// `contents`; `mutable-content` always 1, which its API cannot turn off),
/// `custom` (`i`, the notification's id; `a`, the request's `data`) and `att`
/// (`ios_attachments`); Android phones the title, the body, `bicon`
/// (`big_picture`) and the data. `isIos` / `isAndroid` false drop a platform.
enum OneSignalRequest {
    /// OneSignal keeps a push for an offline phone 3 days unless `ttl` says otherwise.
    static let defaultTTLSeconds = 259_200
    /// The notification id OneSignal adds (a UUID): a stand-in of the same length.
    static let notificationID = "00000000-0000-4000-8000-000000000000"

    static func parse(_ payload: Payload) throws(PayloadError) -> SendRequest {
        let root = payload.root
        let read = RequestReader(dialect: .onesignal)
        _ = try read.string(root["app_id"], "app_id")
        let title = try localized(root["headings"], "headings", read)
        let subtitle = try localized(root["subtitle"], "subtitle", read)
        let body = try localized(root["contents"], "contents", read)
        let data = try read.object(root["data"], "data")
        _ = try read.object(root["ios_attachments"], "ios_attachments")
        let bigPicture = root["big_picture"]
        _ = try read.string(bigPicture, "big_picture")
        let lifetime = SendRequest.Lifetime.seconds(try read.seconds(root["ttl"], "ttl") ?? defaultTTLSeconds)
        let dataLimit = PlatformLimits.oneSignalData(data.map { .object($0) })
        // `isIos` / `isAndroid` false leave a platform out; absent, both are sent.
        let toIOS = try root["isIos"] == nil ? true : read.flag(root["isIos"], "isIos")
        let toAndroid = try root["isAndroid"] == nil ? true : read.flag(root["isAndroid"], "isAndroid")
        var request = SendRequest(dialect: .onesignal)
        if toIOS {
            var aps: [JSONMember] = []
            aps.set("alert", JSONValue.alert(title: title, subtitle: subtitle, body: body))
            aps.set("mutable-content", .int(1))
            aps.set("sound", try read.string(root["ios_sound"], "ios_sound").map { .string($0) })
            var custom = [JSONMember("i", .string(notificationID))]
            custom.set("a", data.map { .object($0) })
            var members = [JSONMember("aps", .object(aps)), JSONMember("custom", .object(custom))]
            members.set("att", root["ios_attachments"])
            let ios = SendRequest.payload(.object(members), from: payload, added: 96)
            request.ios = SendRequest.Delivery(
                payload: ios,
                limits: dataLimit + PlatformLimits.iosPayload(
                    ios, over: PlatformLimits.oneSignalAdvisedBytes, severity: .warning, code: .payloadNearLimit,
                    why: "over the \(NumberText.grouped(PlatformLimits.oneSignalAdvisedBytes)) bytes OneSignal advises staying under "
                        + "(APNs rejects 4,096): a personalised text that grows tips it over"),
                lifetime: lifetime)
        }
        if toAndroid {
            // The app's data, then OneSignal's own key: in OneSignal's message the data sits apart, under `custom`.
            var androidData = (data ?? []).filter { $0.key != "bicon" }
            androidData.set("bicon", bigPicture)
            let notification = JSONValue.alert(title: title, body: body) ?? .object([])
            request.android = SendRequest.Delivery(
                payload: SendRequest.payload(
                    .object([JSONMember("notification", notification), JSONMember("data", .object(androidData))]), from: payload),
                limits: dataLimit, lifetime: lifetime)
        }
        return request
    }

    /// A language map's text as a phone set to English shows it: `en`, else the first language given.
    private static func localized(_ value: JSONValue?, _ path: String, _ read: RequestReader) throws(PayloadError) -> JSONValue? {
        guard let members = try read.object(value, path), !members.isEmpty else { return nil }
        for member in members {
            guard case .string = member.value else { throw read.refused("\(path).\(member.key)", "is \(member.value.kindName), not a string") }
        }
        return (members.last { $0.key == "en" } ?? members[0]).value
    }
}

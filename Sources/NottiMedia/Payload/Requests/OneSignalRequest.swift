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
        // The fields the mapping reads, found in one pass over the request's members (the last of a repeated key, as
        // a lookup by key finds it), in plain variables: a campaign of a million requests reads each once.
        var appID, headings, subtitleField, contents, dataField, attachments, bigPicture, ttl, isIOS, isAndroid, sound: JSONValue?
        if case .object(let members) = payload.root {
            for member in members {
                let key = member.key
                // By length first: most of a request's keys are compared with one name, or none.
                switch key.utf8.count {
                case 3: if key == "ttl" { ttl = member.value }
                case 4: if key == "data" { dataField = member.value }
                case 5: if key == "isIos" { isIOS = member.value }
                case 6: if key == "app_id" { appID = member.value }
                case 8:
                    if key == "headings" { headings = member.value }
                    else if key == "contents" { contents = member.value }
                    else if key == "subtitle" { subtitleField = member.value }
                case 9:
                    if key == "isAndroid" { isAndroid = member.value }
                    else if key == "ios_sound" { sound = member.value }
                case 11: if key == "big_picture" { bigPicture = member.value }
                case 15: if key == "ios_attachments" { attachments = member.value }
                default: break
                }
            }
        }
        let read = RequestReader(dialect: .onesignal)
        _ = try read.string(appID, "app_id")
        let title = try localized(headings, "headings", read)
        let subtitle = try localized(subtitleField, "subtitle", read)
        let body = try localized(contents, "contents", read)
        let data = try read.object(dataField, "data")
        _ = try read.object(attachments, "ios_attachments")
        _ = try read.string(bigPicture, "big_picture")
        let lifetime = SendRequest.Lifetime.seconds(try read.seconds(ttl, "ttl") ?? defaultTTLSeconds)
        // `isIos` / `isAndroid` false leave a platform out; absent, both are sent.
        let toIOS = try isIOS == nil ? true : read.flag(isIOS, "isIos")
        let toAndroid = try isAndroid == nil ? true : read.flag(isAndroid, "isAndroid")
        let dataLimit = PlatformLimits.oneSignalData(dataField)
        var request = SendRequest(dialect: .onesignal)
        if toIOS {
            var aps: [JSONMember] = []
            if let alert = JSONValue.alert(title: title, subtitle: subtitle, body: body) { aps.append(JSONMember("alert", alert)) }
            aps.append(JSONMember("mutable-content", .int(1)))
            if let sound = try read.string(sound, "ios_sound") { aps.append(JSONMember("sound", .string(sound))) }
            var custom = [JSONMember("i", .string(notificationID))]
            if let data = dataField { custom.append(JSONMember("a", data)) }
            var members = [JSONMember("aps", .object(aps)), JSONMember("custom", .object(custom))]
            if let attachments = attachments { members.append(JSONMember("att", attachments)) }
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
            if let bigPicture = bigPicture { androidData.append(JSONMember("bicon", bigPicture)) }
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

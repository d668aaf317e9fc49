/// An FCM HTTP v1 send request (`{"message": {...}}`, no `aps`): one request
/// that Firebase delivers to iPhones, through APNs, and to Android phones
/// (SPEC 15). Each delivery is a `Payload` the usual path checks: the APNs
/// payload FCM sends, and the Android message as the app receives it
/// (`{"notification": {"title", "body", "image"}, "data": {...}}`).
package struct SendRequest: Sendable {
    /// The APNs payload FCM derives for iPhones.
    package let ios: Payload
    /// What an Android phone's app receives.
    package let android: Payload

    /// The request in `payload`, or nil when it is an APNs payload (it has `aps`,
    /// or no `message` object).
    /// - Throws: `PayloadError` when `message.data` is not an object of strings (FCM refuses it).
    package static func parse(_ payload: Payload) throws(PayloadError) -> SendRequest? {
        guard payload.root["aps"] == nil, let message = payload.root["message"], case .object = message else { return nil }
        var data: [JSONMember] = []
        switch message["data"] {
        case nil: break
        case .object(let members)?:
            for member in members {
                guard case .string = member.value else {
                    throw PayloadError(message: "message.data.\(member.key) is \(member.value.kindName), not a string: FCM refuses "
                        + "the request (every data value is a string)")
                }
                data.append(member)
            }
        case let other?:
            throw PayloadError(message: "message.data is \(other.kindName), not an object of strings: FCM refuses the request")
        }
        let notification = message["notification"]
        // A delivery holds what the request holds, rearranged, plus a few keys FCM adds: the
        // request's size plus those bounds it, which is all payload_too_large's quick test
        // needs (it counts exactly past that); counting every derived payload cost 2.5%.
        let bound = payload.byteCount + 64
        return SendRequest(
            // A delivery's objects come from the request's: they repeat a key only where it did.
            ios: Payload(root: iosRoot(message: message, notification: notification, data: data), byteCount: bound,
                         mayRepeatKeys: payload.mayRepeatKeys),
            android: Payload(root: androidRoot(message: message, notification: notification, data: data), byteCount: bound,
                             mayRepeatKeys: payload.mayRepeatKeys))
    }

    /// `message.apns.payload`, with the alert's title and body from `notification`
    /// where it sets none, `fcm_options.image` from `apns.fcm_options.image` over
    /// `notification.image`, and every data entry as a top-level key it lacks.
    private static func iosRoot(message: JSONValue, notification: JSONValue?, data: [JSONMember]) -> JSONValue {
        var members: [JSONMember] = if case .object(let members)? = message["apns"]?["payload"] { members } else { [] }
        var aps: [JSONMember] = if case .object(let members)? = members.last(where: { $0.key == "aps" })?.value { members } else { [] }
        let title = notification?["title"]
        let body = notification?["body"]
        switch aps.last(where: { $0.key == "alert" })?.value {
        case .string(let text)?:
            // A string alert is the body; a notification title makes it {"title", "body"}.
            if let title { set(&aps, "alert", .object([JSONMember("title", title), JSONMember("body", .string(text))])) }
        case .object(var alert)?:
            if let title, !alert.contains(where: { $0.key == "title" }) { alert.append(JSONMember("title", title)) }
            if let body, !alert.contains(where: { $0.key == "body" }) { alert.append(JSONMember("body", body)) }
            set(&aps, "alert", .object(alert))
        default:
            let alert = [title.map { JSONMember("title", $0) }, body.map { JSONMember("body", $0) }].compactMap { $0 }
            if !alert.isEmpty { set(&aps, "alert", .object(alert)) }
        }
        set(&members, "aps", .object(aps))
        if let image = message["apns"]?["fcm_options"]?["image"] ?? notification?["image"] {
            var options: [JSONMember] = if case .object(let members)? = members.last(where: { $0.key == "fcm_options" })?.value { members } else { [] }
            set(&options, "image", image)
            set(&members, "fcm_options", .object(options))
        }
        for entry in data where !members.contains(where: { $0.key == entry.key }) { members.append(entry) }
        return .object(members)
    }

    /// `android.notification.X` over `notification.X` for title, body and image, and the data.
    private static func androidRoot(message: JSONValue, notification: JSONValue?, data: [JSONMember]) -> JSONValue {
        let specific = message["android"]?["notification"]
        let fields = ["title", "body", "image"].compactMap { key in
            (specific?[key] ?? notification?[key]).map { JSONMember(key, $0) }
        }
        return .object([JSONMember("notification", .object(fields)), JSONMember("data", .object(data))])
    }

    private static func set(_ members: inout [JSONMember], _ key: String, _ value: JSONValue) {
        if let index = members.lastIndex(where: { $0.key == key }) {
            members[index] = JSONMember(key, value)
        } else {
            members.append(JSONMember(key, value))
        }
    }
}

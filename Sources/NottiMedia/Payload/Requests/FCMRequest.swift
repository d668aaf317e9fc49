/// An FCM HTTP v1 send request (`{"message": {...}}`, no `aps`), which Firebase
/// delivers to iPhones, through APNs, and to Android phones (SPEC 15).
enum FCMRequest {
    /// - Throws: `PayloadError` when `message.data` is not an object of strings (FCM refuses it).
    static func parse(_ payload: Payload) throws(PayloadError) -> SendRequest {
        let message = payload.root["message"]!
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
        return SendRequest(
            dialect: .fcm,
            ios: SendRequest.Delivery(
                payload: SendRequest.payload(iosRoot(message: message, notification: notification, data: data), from: payload),
                lifetime: iosLifetime(message)),
            android: SendRequest.Delivery(
                payload: SendRequest.payload(androidRoot(message: message, notification: notification, data: data), from: payload),
                lifetime: androidLifetime(message)))
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
            if let title { aps.set("alert", .object([JSONMember("title", title), JSONMember("body", .string(text))])) }
        case .object(var alert)?:
            if let title, !alert.contains(where: { $0.key == "title" }) { alert.append(JSONMember("title", title)) }
            if let body, !alert.contains(where: { $0.key == "body" }) { alert.append(JSONMember("body", body)) }
            aps.set("alert", .object(alert))
        default:
            aps.set("alert", JSONValue.alert(title: title, body: body))
        }
        members.set("aps", .object(aps))
        if let image = message["apns"]?["fcm_options"]?["image"] ?? notification?["image"] {
            var options: [JSONMember] = if case .object(let members)? = members.last(where: { $0.key == "fcm_options" })?.value { members } else { [] }
            options.set("image", image)
            members.set("fcm_options", .object(options))
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

    /// The APNs `apns-expiration` header (seconds since 1970; 0: not stored, so the send time).
    private static func iosLifetime(_ message: JSONValue) -> SendRequest.Lifetime? {
        guard let text = message.value(at: ["apns", "headers", "apns-expiration"])?.stringValue, let epoch = Int(text) else { return nil }
        return epoch == 0 ? .seconds(0) : .until(epoch)
    }

    /// Android's `ttl` (`"86400s"`) after the send time.
    private static func androidLifetime(_ message: JSONValue) -> SendRequest.Lifetime? {
        guard let text = message.value(at: ["android", "ttl"])?.stringValue, text.hasSuffix("s"),
              let seconds = Double(text.dropLast()), seconds >= 0, seconds < 1e12 else { return nil }
        return .seconds(Int(seconds.rounded(.up)))
    }
}

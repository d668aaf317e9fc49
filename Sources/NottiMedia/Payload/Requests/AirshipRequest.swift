/// Airship's push object (`POST /api/push`: an object with `audience` and
/// `notification`; docs.airship.com, "Push object", "iOS overrides", "Android
/// overrides"). `device_types` (`"all"` or a list) chooses the platforms. iPhones
/// get `aps` (the alert from `notification.ios.alert`, else `notification.alert`;
/// `mutable-content` 1 with a media attachment or `mutable_content`), the
/// `media_attachment` object as `com.urbanairship.media_attachment`, and `extra`'s
/// keys; Android phones the alert and title, `extra`'s keys, and the `style`
/// object as the JSON text of `com.urbanairship.style`.
enum AirshipRequest {
    static func parse(_ payload: Payload) throws(PayloadError) -> SendRequest {
        let root = payload.root
        let read = RequestReader(dialect: .airship)
        let targets = try deviceTypes(root["device_types"], read)
        guard let notification = try read.object(root["notification"], "notification").map({ JSONValue.object($0) }) else {
            throw read.refused("notification", "is missing")
        }
        let alert = notification["alert"]
        _ = try read.string(alert, "notification.alert")
        let lifetime = try expiry(root["options"], read)
        var request = SendRequest(dialect: .airship)
        if targets.contains("ios") {
            let ios = try read.object(notification["ios"], "notification.ios").map { JSONValue.object($0) }
            let attachment = try read.object(ios?["media_attachment"], "notification.ios.media_attachment")
            var aps: [JSONMember] = []
            switch ios?["alert"] {
            case .object?: aps.set("alert", ios?["alert"])
            case .string?:
                let title = try read.string(ios?["title"], "notification.ios.title").map { JSONValue.string($0) }
                aps.set("alert", title == nil ? ios?["alert"] : JSONValue.alert(title: title, body: ios?["alert"]))
            case nil:
                let title = try read.string(ios?["title"], "notification.ios.title").map { JSONValue.string($0) }
                aps.set("alert", title == nil ? alert : JSONValue.alert(title: title, body: alert))
            case let other?: throw read.refused("notification.ios.alert", "is \(other.kindName), not a string or an object")
            }
            let asksMutable = try read.flag(ios?["mutable_content"], "notification.ios.mutable_content")
            if attachment != nil || asksMutable { aps.set("mutable-content", .int(1)) }
            var members = [JSONMember("aps", .object(aps))]
            members.set(SDKProfile.mediaAttachmentKey, attachment.map { .object($0) })
            for entry in try read.object(ios?["extra"], "notification.ios.extra") ?? [] where entry.key != "aps" { members.set(entry.key, entry.value) }
            request.ios = SendRequest.Delivery(payload: SendRequest.payload(.object(members), from: payload), lifetime: lifetime)
        }
        if targets.contains("android") {
            let android = try read.object(notification["android"], "notification.android").map { JSONValue.object($0) }
            let body = try read.string(android?["alert"], "notification.android.alert").map { JSONValue.string($0) } ?? alert
            let title = try read.string(android?["title"], "notification.android.title").map { JSONValue.string($0) }
            var data = try read.object(android?["extra"], "notification.android.extra") ?? []
            if let style = try read.object(android?["style"], "notification.android.style") {
                data.set(SDKProfile.styleKey, .string(JSONWriter.string(.object(style))))
            }
            request.android = SendRequest.Delivery(
                payload: SendRequest.payload(
                    .object([JSONMember("notification", JSONValue.alert(title: title, body: body) ?? .object([])),
                             JSONMember("data", .object(data))]), from: payload, added: 128),
                lifetime: lifetime)
        }
        return request
    }

    /// `device_types`: `"all"`, or a list of platform names; Airship requires it.
    private static func deviceTypes(_ value: JSONValue?, _ read: RequestReader) throws(PayloadError) -> [String] {
        switch value {
        case nil: throw read.refused("device_types", "is missing")
        case .string("all")?: return ["ios", "android"]
        case .array(let items)?:
            var names: [String] = []
            for (index, item) in items.enumerated() {
                guard case .string(let name) = item else { throw read.refused("device_types[\(index)]", "is \(item.kindName), not a platform name") }
                names.append(name)
            }
            guard !names.isEmpty else { throw read.refused("device_types", "is an empty list") }
            // `["all"]`, what Airship's own Python library writes for `ua.device_types("all")`, is every platform.
            return names.contains("all") ? ["ios", "android"] : names
        case let other?: throw read.refused("device_types", "is \(other.kindName), not \"all\" or a list of platforms")
        }
    }

    /// `options.expiry`: seconds from the send, or a time (`2026-12-24T09:00:00Z`).
    private static func expiry(_ options: JSONValue?, _ read: RequestReader) throws(PayloadError) -> SendRequest.Lifetime? {
        guard let value = try read.object(options, "options").map({ JSONValue.object($0) })?["expiry"] else { return nil }
        if case .string(let text) = value {
            guard let epoch = RFC3339.seconds(text) else { throw read.refused("options.expiry", "is not a number of seconds or a time") }
            return .until(epoch)
        }
        return try read.seconds(value, "options.expiry").map { .seconds($0) }
    }
}

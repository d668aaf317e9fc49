/// Braze's `/messages/send` body (and the campaign and canvas trigger bodies: an
/// object with `messages`; braze.com/docs/api, "Apple push object", "Android push
/// object"). `messages.apple_push` reaches iPhones: `aps` with its alert
/// (`mutable-content` 1 with an `asset_url`, which Braze sets for a rich
/// notification whatever `mutable_content` says, or with `mutable_content`), `ab.att`
/// from `asset_url` and `asset_file_type`, and `extra`'s keys; `messages.android_push`
/// reaches Android phones: its title, its alert and `extra`, whose
/// `appboy_image_url` is the big picture.
enum BrazeRequest {
    static func parse(_ payload: Payload) throws(PayloadError) -> SendRequest {
        let read = RequestReader(dialect: .braze)
        guard let messages = try read.object(payload.root["messages"], "messages").map({ JSONValue.object($0) }) else {
            throw read.refused("messages", "is missing")
        }
        var request = SendRequest(dialect: .braze)
        if let apple = try read.object(messages["apple_push"], "messages.apple_push").map({ JSONValue.object($0) }) {
            request.ios = try iosDelivery(apple, from: payload, read)
        }
        if let android = try read.object(messages["android_push"], "messages.android_push").map({ JSONValue.object($0) }) {
            request.android = try androidDelivery(android, from: payload, read)
        }
        return request
    }

    private static func iosDelivery(_ apple: JSONValue, from payload: Payload, _ read: RequestReader) throws(PayloadError) -> SendRequest.Delivery {
        let path = "messages.apple_push"
        var aps: [JSONMember] = []
        switch apple["alert"] {
        case nil: break
        case .string?, .object?: aps.set("alert", apple["alert"])
        case let other?: throw read.refused("\(path).alert", "is \(other.kindName), not a string or an Apple push alert object")
        }
        let assetURL = try read.string(apple["asset_url"], "\(path).asset_url")
        let assetType = try read.string(apple["asset_file_type"], "\(path).asset_file_type")
        let asksMutable = try read.flag(apple["mutable_content"], "\(path).mutable_content")
        if assetURL != nil || asksMutable { aps.set("mutable-content", .int(1)) }
        var members = [JSONMember("aps", .object(aps))]
        if let assetURL {
            var att = [JSONMember("url", .string(assetURL))]
            att.set("type", assetType.map { .string($0) })
            members.set("ab", .object([JSONMember("att", .object(att))]))
        }
        for entry in try read.object(apple["extra"], "\(path).extra") ?? [] where entry.key != "aps" && entry.key != "ab" {
            members.set(entry.key, entry.value)
        }
        var lifetime: SendRequest.Lifetime?
        if let expiry = try read.string(apple["expiry"], "\(path).expiry") {
            guard let epoch = RFC3339.seconds(expiry) else { throw read.refused("\(path).expiry", "is not an ISO 8601 time") }
            lifetime = .until(epoch)
        }
        let ios = SendRequest.payload(.object(members), from: payload)
        return SendRequest.Delivery(
            payload: ios,
            limits: PlatformLimits.iosPayload(
                ios, over: PlatformLimits.brazeIOSBytes, severity: .error, code: .payloadTooLarge,
                why: "over Braze's \(NumberText.grouped(PlatformLimits.brazeIOSBytes))-byte limit for iOS (Braze keeps the rest of "
                    + "APNs's 4 KB for its own keys): Braze refuses to send it and no iPhone receives it"),
            lifetime: lifetime)
    }

    private static func androidDelivery(_ android: JSONValue, from payload: Payload, _ read: RequestReader) throws(PayloadError) -> SendRequest.Delivery {
        let path = "messages.android_push"
        let alert = try read.string(android["alert"], "\(path).alert").map { JSONValue.string($0) }
        let title = try read.string(android["title"], "\(path).title").map { JSONValue.string($0) }
        let extra = try read.object(android["extra"], "\(path).extra") ?? []
        let lifetime = try read.seconds(android["time_to_live"], "\(path).time_to_live").map { SendRequest.Lifetime.seconds($0) }
        return SendRequest.Delivery(
            payload: SendRequest.payload(
                .object([JSONMember("notification", JSONValue.alert(title: title, body: alert) ?? .object([])),
                         JSONMember("data", .object(extra))]), from: payload),
            lifetime: lifetime)
    }
}

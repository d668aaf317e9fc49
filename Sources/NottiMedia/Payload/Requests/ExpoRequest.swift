/// Expo's push message (`POST /--/api/v2/push/send`: an object with `to`;
/// docs.expo.dev, "Sending notifications with Expo's push API"). A push token
/// does not say which phone it is, so a message gives both records. iPhones get
/// `aps` (alert from `title`, `subtitle`, `body`; `mutable-content` 1 when
/// `mutableContent` is true), the data under `body`, and `richContent`; Android
/// phones the title and body, the data, and `richContent`, whose image
/// `expo-notifications` shows as the large icon.
enum ExpoRequest {
    static func parse(_ payload: Payload) throws(PayloadError) -> SendRequest {
        let root = payload.root
        let read = RequestReader(dialect: .expo)
        switch root["to"] {
        case .string?: break
        case .array(let tokens)?:
            for (index, token) in tokens.enumerated() {
                guard case .string = token else { throw read.refused("to[\(index)]", "is \(token.kindName), not a push token") }
            }
        case let other?: throw read.refused("to", "is \(other.kindName), not a push token or a list of them")
        case nil: throw read.refused("to", "is missing")
        }
        let title = try read.string(root["title"], "title").map { JSONValue.string($0) }
        let subtitle = try read.string(root["subtitle"], "subtitle").map { JSONValue.string($0) }
        let body = try read.string(root["body"], "body").map { JSONValue.string($0) }
        let data = try read.object(root["data"], "data")
        let richContent = try read.object(root["richContent"], "richContent").map { JSONValue.object($0) }
        // `ttl` takes precedence over `expiration`, as Expo's API says.
        let lifetime: SendRequest.Lifetime? = if let ttl = try read.seconds(root["ttl"], "ttl") {
            .seconds(ttl)
        } else {
            try read.seconds(root["expiration"], "expiration").map { .until($0) }
        }
        var aps: [JSONMember] = []
        aps.set("alert", JSONValue.alert(title: title, subtitle: subtitle, body: body))
        if try read.flag(root["mutableContent"], "mutableContent") { aps.set("mutable-content", .int(1)) }
        aps.set("sound", root["sound"])
        aps.set("badge", root["badge"])
        var ios = [JSONMember("aps", .object(aps))]
        ios.set("body", data.map { .object($0) })
        ios.set("richContent", richContent)
        var android = [JSONMember("notification", JSONValue.alert(title: title, body: body) ?? .object([])),
                       JSONMember("data", .object(data ?? []))]
        android.set("richContent", richContent)
        return SendRequest(
            dialect: .expo,
            ios: SendRequest.Delivery(payload: SendRequest.payload(.object(ios), from: payload), lifetime: lifetime),
            android: SendRequest.Delivery(payload: SendRequest.payload(.object(android), from: payload), lifetime: lifetime))
    }
}

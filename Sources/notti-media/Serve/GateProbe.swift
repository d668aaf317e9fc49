import NottiMedia

/// What `GET /v1/media` checks for a URL (SPEC 21): the send request a campaign of
/// that SDK would hold with the URL as its picture, so the verdict is the one that
/// SDK's records give it: the platform's own request for OneSignal, Airship, Braze
/// and Expo (its mapping, its profiles), else an FCM request whose APNs payload
/// carries the SDK's media key and whose Android notification the picture.
enum GateProbe {
    /// The request, as JSON text.
    static func request(url: String, sdk: SDK) -> String {
        let link = JSONValue.string(url)
        let type = fileExtension(url)
        func fcm(_ apnsKeys: [JSONMember], sharedImage: Bool) -> JSONValue {
            var notification = [JSONMember("title", .string("gate")), JSONMember("body", .string("gate"))]
            if sharedImage { notification.append(JSONMember("image", link)) }
            var message = [JSONMember("notification", .object(notification)),
                           JSONMember("apns", .object([JSONMember("payload", .object(
                               [JSONMember("aps", .object([JSONMember("mutable-content", .int(1))]))] + apnsKeys))]))]
            // Android's own image: on iOS the FCM image would be a second SDK's key beside this one's.
            if !sharedImage { message.append(JSONMember("android", .object([JSONMember("notification", .object([JSONMember("image", link)]))]))) }
            return .object([JSONMember("message", .object(message))])
        }
        let value: JSONValue = switch sdk {
        case .fcm: fcm([], sharedImage: true)
        case .notti: fcm([JSONMember("notti_image_url", link), JSONMember("notification_id", .string("gate"))], sharedImage: false)
        case .clevertap: fcm([JSONMember("ct_mediaUrl", link), JSONMember("ct_mediaType", .string(MediaType(rawValue: type)?.kind.rawValue ?? "image"))], sharedImage: false)
        case .iterable: fcm([JSONMember("itbl", .object([JSONMember("attachment-url", link)]))], sharedImage: false)
        case .batch:
            fcm([JSONMember("com.batch", .object([JSONMember("at", .object([JSONMember("u", link), JSONMember("t", .string((MediaType(rawValue: type) ?? .jpg).uti))]))]))], sharedImage: false)
        case .onesignal:
            .object([JSONMember("app_id", .string("gate")), JSONMember("contents", .object([JSONMember("en", .string("gate"))])),
                     JSONMember("ios_attachments", .object([JSONMember("media", link)])), JSONMember("big_picture", link)])
        case .airship:
            .object([JSONMember("audience", .string("all")), JSONMember("device_types", .string("all")), JSONMember("notification", .object([
                JSONMember("alert", .string("gate")),
                JSONMember("ios", .object([JSONMember("media_attachment", .object([JSONMember("url", link)]))])),
                JSONMember("android", .object([JSONMember("style", .object([JSONMember("type", .string("big_picture")), JSONMember("big_picture", link)]))])),
            ]))])
        case .braze:
            .object([JSONMember("messages", .object([
                JSONMember("apple_push", .object([JSONMember("alert", .string("gate")), JSONMember("asset_url", link), JSONMember("asset_file_type", .string(type))])),
                JSONMember("android_push", .object([JSONMember("title", .string("gate")), JSONMember("alert", .string("gate")),
                                                    JSONMember("extra", .object([JSONMember("appboy_image_url", link)]))])),
            ]))])
        case .expo:
            .object([JSONMember("to", .string("gate")), JSONMember("title", .string("gate")), JSONMember("body", .string("gate")),
                     JSONMember("mutableContent", .bool(true)), JSONMember("richContent", .object([JSONMember("image", link)]))])
        }
        return JSONWriter.string(value)
    }

    /// The URL's file extension as a campaign would name its type (Braze's `asset_file_type`): `jpg` when it has none.
    static func fileExtension(_ url: String) -> String {
        let path = url.split(separator: "?", maxSplits: 1).first.map(String.init) ?? url
        guard let name = path.split(separator: "/").last, let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "jpg" }
        let suffix = name[name.index(after: dot)...].lowercased()
        return suffix.isEmpty || suffix.count > 5 || !suffix.allSatisfy({ $0.isLetter || $0.isNumber }) ? "jpg" : suffix
    }

    /// A check's verdict as the gate answers it: the parts that do not change from one answer to the next.
    static func verdict(_ reports: [Report]) -> GateVerdict {
        func record(_ report: Report?) -> JSONValue {
            guard let report else { return .null }
            return .object([
                JSONMember("outcome", .string(report.outcome.rawValue)),
                JSONMember("passed", .bool(report.passed)),
                JSONMember("reason", .optional(report.reason?.rawValue)),
                JSONMember("diagnostics", .array(report.diagnostics.map(\.json))),
            ])
        }
        let failed = reports.contains { !$0.passed }
        let warned = reports.contains { $0.diagnostics.contains { $0.severity == .warning } }
        let verdict = failed ? "fail" : warned ? "warn" : "pass"
        let ios = reports.first { $0.platform == .ios }, android = reports.first { $0.platform == .android }
        let media = (ios ?? android).map { $0.media.json } ?? .null
        let head = JSONWriter.string(.object([
            JSONMember("verdict", .string(verdict)), JSONMember("ios", record(ios)), JSONMember("android", record(android)),
            JSONMember("media", media),
        ]))
        let codes = reports.flatMap { $0.diagnostics.map(\.codeText) }
        return GateVerdict(head: String(head.dropLast()), verdict: verdict, codes: codes,
                           freshSeconds: reports.compactMap { freshness(of: $0) }.min() ?? 0)
    }

    /// How long the media's own server lets its answer be reused (`HTTPFacts.freshSeconds`), which bounds how long
    /// the verdict is reused; nil when no download was made.
    static func freshness(of report: Report) -> Int? {
        guard let facts = report.media.all.first else { return nil }
        return facts.http?.freshSeconds ?? 0
    }
}

/// A check's verdict, kept in the cache: the answer's JSON before its `cache` and `checkedAt` members.
struct GateVerdict: Sendable {
    /// `{"verdict":…,"ios":…,"android":…,"media":…` without its closing brace.
    let head: String
    let verdict: String
    let codes: [String]
    /// How long it may be reused, from the media server's own freshness.
    let freshSeconds: Int
}

/// A send request (SPEC 15, 20): what a back end posts to its push platform,
/// which the platform turns into what each phone receives. Each delivery is a
/// `Payload` the usual path checks: the APNs payload the platform builds for
/// iPhones, and the message an Android phone's app receives, as
/// `{"notification": {"title", "body", "image"}, "data": {...}}` plus the keys
/// the platform's Android code reads. Which request it is, is read from its
/// shape; how each platform builds its deliveries is in its own file here
/// (docs/platforms.md has the table, with the sources).
package struct SendRequest: Sendable {
    /// Whose API a request is written for.
    package enum Dialect: String, Sendable, CaseIterable {
        /// Firebase's HTTP v1 `messages:send` body: `{"message": {...}}`.
        case fcm
        /// OneSignal's `POST /notifications`: an object with `app_id`.
        case onesignal
        /// Airship's `POST /api/push`: an object with `audience` and `notification`.
        case airship
        /// Braze's `/messages/send` and trigger bodies: an object with `messages`.
        case braze
        /// Expo's `POST /--/api/v2/push/send`: an object with `to`.
        case expo

        /// The request's shape, or nil for an APNs payload (it has `aps`, or none of the shapes).
        static func of(_ root: JSONValue) -> Dialect? {
            guard root["aps"] == nil else { return nil }
            if case .object? = root["message"] { return .fcm }
            if root["app_id"] != nil { return .onesignal }
            if root["messages"] != nil { return .braze }
            if root["audience"] != nil, root["notification"] != nil { return .airship }
            if root["to"] != nil { return .expo }
            return nil
        }

        /// The platform as people name it.
        package var displayName: String {
            switch self {
            case .fcm: "FCM"
            case .onesignal: "OneSignal"
            case .airship: "Airship"
            case .braze: "Braze"
            case .expo: "Expo"
            }
        }

        /// Whose rules judge the deliveries: the platform's own SDK; nil for FCM, which any SDK's app receives (`--sdk`).
        package var sdk: SDK? {
            switch self {
            case .fcm: nil
            case .onesignal: .onesignal
            case .airship: .airship
            case .braze: .braze
            case .expo: .expo
            }
        }
    }

    /// How long the platform keeps a push for a phone that is offline, as the request sets it.
    package enum Lifetime: Sendable, Equatable {
        /// Until this time (seconds since 1970).
        case until(Int)
        /// This many seconds after the send.
        case seconds(Int)

        /// The latest time a phone may still receive the push sent at `sendAt`.
        package func latestDelivery(sentAt sendAt: Int) -> Int {
            switch self {
            case .until(let epoch): epoch
            case .seconds(let seconds): sendAt + seconds
            }
        }
    }

    /// One delivery: what the platform sends one kind of phone.
    package struct Delivery: Sendable {
        package var payload: Payload
        /// The platform's own limits it breaks, found before any phone (SPEC 20).
        package var limits: [Diagnostic] = []
        /// Set by the request (`apns-expiration`, `ttl`, …); nil: the platform's default.
        package var lifetime: Lifetime?
    }

    package let dialect: Dialect
    /// The APNs payload for iPhones; nil when the request does not target them.
    package var ios: Delivery?
    /// What an Android phone's app receives; nil when the request does not target them.
    package var android: Delivery?

    /// The delivery to `platform`, if the request targets it.
    package func delivery(to platform: Platform) -> Delivery? { platform == .ios ? ios : android }

    /// The request in `payload`, or nil when it is an APNs payload.
    /// - Throws: `PayloadError` for a request its platform refuses, naming the path inside it.
    package static func parse(_ payload: Payload) throws(PayloadError) -> SendRequest? {
        guard let dialect = Dialect.of(payload.root) else { return nil }
        var request = switch dialect {
        case .fcm: try FCMRequest.parse(payload)
        case .onesignal: try OneSignalRequest.parse(payload)
        case .airship: try AirshipRequest.parse(payload)
        case .braze: try BrazeRequest.parse(payload)
        case .expo: try ExpoRequest.parse(payload)
        }
        guard request.ios != nil || request.android != nil else {
            var error = PayloadError(message: "the \(dialect.displayName) request targets neither iOS nor Android: no push is sent to a phone")
            error.refusedBy = dialect
            throw error
        }
        if var android = request.android {
            android.limits += PlatformLimits.androidMessage(android.payload, dialect: dialect)
            request.android = android
        }
        return request
    }

    /// A delivery built from `request`'s parts. Its objects come from the request's: they repeat a
    /// key only where it did. A delivery holds what the request holds, rearranged, plus a few keys the
    /// platform adds: the request's size plus `added` bounds it, which is all the size lints' quick
    /// test needs (they count exactly past that); counting every derived payload cost 2.5%.
    static func payload(_ root: JSONValue, from request: Payload, added: Int = 64) -> Payload {
        Payload(root: root, byteCount: request.byteCount + added, mayRepeatKeys: request.mayRepeatKeys)
    }
}

/// Reading a request's parts the way its platform's API validates them: a part of the
/// wrong kind is `invalid_payload`, its message naming the path inside the request.
struct RequestReader {
    let dialect: SendRequest.Dialect

    func refused(_ path: String, _ why: String) -> PayloadError {
        var error = PayloadError(message: "\(path) \(why): \(dialect.displayName) refuses the request")
        error.refusedBy = dialect
        return error
    }

    /// The object at `path`, nil when absent.
    func object(_ value: JSONValue?, _ path: String) throws(PayloadError) -> [JSONMember]? {
        guard let value else { return nil }
        guard case .object(let members) = value else { throw refused(path, "is \(value.kindName), not an object") }
        return members
    }

    /// The string at `path`, nil when absent.
    func string(_ value: JSONValue?, _ path: String) throws(PayloadError) -> String? {
        guard let value else { return nil }
        guard case .string(let text) = value else { throw refused(path, "is \(value.kindName), not a string") }
        return text
    }

    /// A whole number of seconds at `path`, nil when absent.
    func seconds(_ value: JSONValue?, _ path: String) throws(PayloadError) -> Int? {
        guard let value else { return nil }
        guard case .number(let text) = value, let number = Double(text), number >= 0, number < 1e12 else {
            throw refused(path, value.isNumber ? "is not a number of seconds" : "is \(value.kindName), not a number")
        }
        return Int(number.rounded(.down))
    }

    /// A boolean at `path` (false when absent).
    func flag(_ value: JSONValue?, _ path: String) throws(PayloadError) -> Bool {
        guard let value else { return false }
        guard case .bool(let flag) = value else { throw refused(path, "is \(value.kindName), not true or false") }
        return flag
    }
}

extension [JSONMember] {
    /// Sets `key` (its last copy, or appended).
    mutating func set(_ key: String, _ value: JSONValue) {
        if let index = lastIndex(where: { $0.key == key }) {
            self[index] = JSONMember(key, value)
        } else {
            append(JSONMember(key, value))
        }
    }

    /// Sets `key` when `value` is given.
    mutating func set(_ key: String, _ value: JSONValue?) {
        if let value { set(key, value) }
    }
}

extension JSONValue {
    /// An alert object of the parts given (nil when none is).
    static func alert(title: JSONValue?, subtitle: JSONValue? = nil, body: JSONValue?) -> JSONValue? {
        var members: [JSONMember] = []
        if let title { members.append(JSONMember("title", title)) }
        if let subtitle { members.append(JSONMember("subtitle", subtitle)) }
        if let body { members.append(JSONMember("body", body)) }
        return members.isEmpty ? nil : .object(members)
    }
}

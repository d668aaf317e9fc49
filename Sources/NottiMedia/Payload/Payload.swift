/// A payload that could not be read as a JSON object.
public struct PayloadError: Error, Sendable, Equatable {
    public var message: String
    /// Where in the payload text, when the problem is a syntax error.
    public var line: Int?
    public var column: Int?
    /// The platform whose API refuses a send request of its own (SPEC 20); nil for a payload, or FCM's request.
    package var refusedBy: SendRequest.Dialect?

    package init(message: String, line: Int? = nil, column: Int? = nil) {
        self.message = message
        self.line = line
        self.column = column
    }

    /// `3:7: expected ',' or '}'` or just the message when there is no position.
    public var description: String {
        if let line, let column { return "\(line):\(column): \(message)" }
        return message
    }
}

/// One APNs payload: a JSON object with `aps` and custom keys.
public struct Payload: Sendable, Equatable {
    /// The key the Notti SDK reads the media URL from; never part of the app-visible data.
    package static let mediaURLKey = "notti_image_url"
    /// Larger than any push could be (APNs caps payloads at 4 KiB), small enough
    /// that a hostile file cannot exhaust memory.
    package static let maxReadBytes = 1 << 20

    /// The whole payload, members in their original order.
    public let root: JSONValue
    /// Its size as given, in bytes (a send request's delivery: a bound on it, `SendRequest`).
    package let byteCount: Int
    /// False when no object of it repeats a key (its parser saw none); true when one may.
    package let mayRepeatKeys: Bool

    /// Reads a payload from its JSON text.
    /// - Throws: `PayloadError` when the text is not JSON or not a JSON object.
    public init(json bytes: [UInt8]) throws(PayloadError) {
        guard bytes.count <= Self.maxReadBytes else {
            throw PayloadError(message: "larger than \(Self.maxReadBytes) bytes: not a push payload")
        }
        let value: JSONValue
        do {
            (value, mayRepeatKeys) = try JSONParser.parseNotingRepeatedKeys(bytes)
        } catch {
            throw PayloadError(message: error.message, line: error.line, column: error.column)
        }
        guard case .object = value else {
            throw PayloadError(message: "a payload must be a JSON object, not \(value.kindName)")
        }
        self.root = value
        self.byteCount = bytes.count
    }

    init(root: JSONValue, byteCount: Int, mayRepeatKeys: Bool = true) {
        self.root = root
        self.byteCount = byteCount
        self.mayRepeatKeys = mayRepeatKeys
    }

    /// The `aps` dictionary, when it is one.
    package var aps: JSONValue? {
        guard let aps = root["aps"], case .object = aps else { return nil }
        return aps
    }

    /// The raw `notti_image_url` value, whatever its JSON type.
    package var mediaURLValue: JSONValue? { root[Self.mediaURLKey] }

    /// `aps.alert` read once, the way iOS reads it: a string is the body; an
    /// object gives title, subtitle and body.
    package var alert: Alert {
        guard let object = aps?["alert"] else { return Alert(hasText: false) }
        switch object {
        case .string(let body):
            return Alert(body: body, hasText: !body.isEmpty)
        case .object:
            let title = object["title"]?.stringValue
            let subtitle = object["subtitle"]?.stringValue
            let body = object["body"]?.stringValue
            return Alert(title: title, subtitle: subtitle, body: body, hasText: hasAlertText)
        default:
            return Alert(hasText: false)
        }
    }

    /// The keys of an alert object whose text shows; localized keys show text too, though it is resolved on the device.
    private static let alertTextKeys = ["title", "subtitle", "body", "title-loc-key", "subtitle-loc-key", "loc-key"]

    /// Whether iOS shows some alert text, and so runs the extension (`alert.hasText`): read in one
    /// pass over the alert's members, the last of a repeated key counting, as `alert` reads them,
    /// without making the alert (the lints ask for every payload of a campaign).
    package var hasAlertText: Bool {
        guard let object = aps?["alert"] else { return false }
        switch object {
        case .string(let body): return !body.isEmpty
        case .object(let members):
            var seen = 0
            for member in members.reversed() {
                guard let index = Self.alertTextKeys.firstIndex(of: member.key), seen & (1 << index) == 0 else { continue }
                seen |= 1 << index
                if case .string(let text) = member.value, !text.isEmpty { return true }
            }
            return false
        default: return false
        }
    }

    /// The alert text a push shows.
    package struct Alert: Sendable, Equatable {
        package var title: String?
        package var subtitle: String?
        package var body: String?
        /// True when iOS shows some text (and so runs the extension).
        package var hasText: Bool

        init(title: String? = nil, subtitle: String? = nil, body: String? = nil, hasText: Bool) {
            self.title = title
            self.subtitle = subtitle
            self.body = body
            self.hasText = hasText
        }
    }
}

extension JSONValue {
    /// "an array", "a string", ... for messages.
    var kindName: String {
        switch self {
        case .object: "an object"
        case .array: "an array"
        case .string: "a string"
        case .number: "a number"
        case .bool: "a boolean"
        case .null: "null"
        }
    }
}

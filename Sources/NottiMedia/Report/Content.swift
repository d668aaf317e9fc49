/// The file the extension attaches, as `UNNotificationAttachment` would hold it.
public struct Attachment: Sendable, Equatable {
    /// The identifier the SDK gives its attachment.
    public static let identifier = "notti_image"

    /// `file://` URL of the stored attachment, named by its SHA-256.
    public var fileURL: String
    /// The same file as a path.
    public var filePath: String
    public var type: MediaType
    /// What libmagic says the bytes are (for a fallback, not image/jpeg).
    public var mimeType: String
    public var size: Int
    public var sha256: String

    public var json: JSONValue {
        .object([
            JSONMember("identifier", .string(Self.identifier)),
            JSONMember("url", .string(fileURL)),
            JSONMember("type", .string(type.rawValue)),
            JSONMember("uti", .string(type.uti)),
            JSONMember("mimeType", .string(mimeType)),
            JSONMember("size", .int(size)),
            JSONMember("sha256", .string(sha256)),
        ])
    }
}

/// Builds the content the extension hands to iOS, shaped like `UNNotificationContent`.
public enum NotificationContent {
    /// `aps` keys that map to content properties, in output order, when they hold a string.
    private static let apsStrings: [(apsKey: String, contentKey: String)] = [
        ("thread-id", "threadIdentifier"),
        ("category", "categoryIdentifier"),
        ("target-content-id", "targetContentIdentifier"),
        ("interruption-level", "interruptionLevel"),
    ]

    /// The payload's content plus `attachment` (none: delivered unchanged).
    ///
    /// Keys the payload does not set are omitted; `userInfo` (the whole payload,
    /// values and types kept) and `attachments` are always present.
    public static func json(for payload: Payload, attachment: Attachment?) -> JSONValue {
        var members: [JSONMember] = []
        let aps = payload.aps
        switch aps?["alert"] {
        case .string(let body)?:
            members.append(JSONMember("body", .string(body)))
        case .object?:
            for key in ["title", "subtitle", "body"] {
                if case .string(let text)? = aps?["alert"]?[key] { members.append(JSONMember(key, .string(text))) }
            }
        default:
            break
        }
        if let badge = aps?["badge"], badge.isNumber { members.append(JSONMember("badge", badge)) }
        if let sound = aps?["sound"] {
            switch sound {
            case .string, .object: members.append(JSONMember("sound", sound))
            default: break
            }
        }
        for (apsKey, contentKey) in apsStrings {
            if case .string(let text)? = aps?[apsKey] { members.append(JSONMember(contentKey, .string(text))) }
        }
        if let score = aps?["relevance-score"], score.isNumber { members.append(JSONMember("relevanceScore", score)) }
        members.append(JSONMember("userInfo", payload.root))
        members.append(JSONMember("attachments", .array(attachment.map { [$0.json] } ?? [])))
        return .object(members)
    }
}

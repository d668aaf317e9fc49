/// The file the extension attaches, as `UNNotificationAttachment` would hold it.
public struct Attachment: Sendable, Equatable {
    /// The identifier the Notti SDK gives its attachment.
    public static let identifier = "notti_image"

    /// The identifier the SDK gives it (`notti_image`, an entry's key, "").
    public var identifier: String
    /// `file://` URL of the stored attachment, named by its SHA-256.
    public var fileURL: String
    /// The same file as a path.
    public var filePath: String
    /// The file's extension: Notti's type (`jpg`), or what the SDK named it (`jpeg`, `PNG`).
    public var fileExtension: String
    /// The Uniform Type Identifier iOS types it as.
    public var uti: String
    /// What iOS shows it as: image, audio or video.
    public var kind: MediaType.Kind
    /// What libmagic says the bytes are (for a fallback, not image/jpeg).
    public var mimeType: String
    public var size: Int
    public var sha256: String
    /// The type hint the SDK passes (`UNNotificationAttachmentOptionsTypeHintKey`), if any.
    public var typeHint: String?
    /// Thumbnail options the SDK passes, if any.
    public var options: AttachmentOptions?

    public var json: JSONValue {
        var members = [
            JSONMember("identifier", .string(identifier)),
            JSONMember("url", .string(fileURL)),
            JSONMember("type", .string(fileExtension)),
            JSONMember("uti", .string(uti)),
            JSONMember("mimeType", .string(mimeType)),
            JSONMember("size", .int(size)),
            JSONMember("sha256", .string(sha256)),
        ]
        if let typeHint { members.append(JSONMember("typeHint", .string(typeHint))) }
        if let options { members.append(JSONMember("options", options.json)) }
        return .object(members)
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

    /// The payload's content plus `attachments` (none: delivered unchanged), with
    /// `overrides` in place of the alert's title, subtitle and body where set.
    ///
    /// Keys the payload does not set are omitted; `userInfo` (the whole payload,
    /// values and types kept) and `attachments` are always present.
    public static func json(for payload: Payload, attachments: [Attachment], overrides: ContentOverrides? = nil) -> JSONValue {
        var members: [JSONMember] = []
        let aps = payload.aps
        let alert = payload.alert
        for (key, text) in [("title", overrides?.title ?? alert.title), ("subtitle", overrides?.subtitle ?? alert.subtitle),
                            ("body", overrides?.body ?? alert.body)] {
            if let text { members.append(JSONMember(key, .string(text))) }
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
        members.append(JSONMember("attachments", .array(attachments.map(\.json))))
        return .object(members)
    }
}

/// The file the extension attaches, as `UNNotificationAttachment` would hold it.
public struct Attachment: Sendable, Equatable {
    /// The identifier the Notti SDK gives its attachment.
    package static let identifier = "notti_image"

    // Copy-on-write (`CopyOnWrite`), as `MediaFacts`: a campaign payload's
    // attachment is copied through its verdict, report and record.
    private struct Fields: Sendable, Equatable {
        var identifier: String
        var fileURL: String
        var filePath: String
        var fileExtension: String
        var uti: String
        var kind: MediaType.Kind
        var mimeType: String
        var size: Int
        var sha256: String
        var typeHint: String?
        var options: AttachmentOptions?
    }

    private var storage: CopyOnWrite<Fields>

    init(
        identifier: String, fileURL: String, filePath: String, fileExtension: String, uti: String, kind: MediaType.Kind,
        mimeType: String, size: Int, sha256: String, typeHint: String?, options: AttachmentOptions?
    ) {
        storage = CopyOnWrite(Fields(
            identifier: identifier, fileURL: fileURL, filePath: filePath, fileExtension: fileExtension, uti: uti, kind: kind,
            mimeType: mimeType, size: size, sha256: sha256, typeHint: typeHint, options: options))
    }

    /// The identifier the SDK gives it (`notti_image`, an entry's key, "").
    public var identifier: String {
        get { storage.box.fields.identifier }
        set { storage.unique().fields.identifier = newValue }
    }
    /// `file://` URL of the stored attachment, named by its SHA-256.
    public var fileURL: String {
        get { storage.box.fields.fileURL }
        set { storage.unique().fields.fileURL = newValue }
    }
    /// The same file as a path.
    public var filePath: String {
        get { storage.box.fields.filePath }
        set { storage.unique().fields.filePath = newValue }
    }
    /// The file's extension: Notti's type (`jpg`), or what the SDK named it (`jpeg`, `PNG`).
    public var fileExtension: String {
        get { storage.box.fields.fileExtension }
        set { storage.unique().fields.fileExtension = newValue }
    }
    /// The Uniform Type Identifier iOS types it as.
    public var uti: String {
        get { storage.box.fields.uti }
        set { storage.unique().fields.uti = newValue }
    }
    /// What iOS shows it as: image, audio or video.
    package var kind: MediaType.Kind {
        get { storage.box.fields.kind }
        set { storage.unique().fields.kind = newValue }
    }
    /// What libmagic says the bytes are (for a fallback, not image/jpeg).
    public var mimeType: String {
        get { storage.box.fields.mimeType }
        set { storage.unique().fields.mimeType = newValue }
    }
    public var size: Int {
        get { storage.box.fields.size }
        set { storage.unique().fields.size = newValue }
    }
    public var sha256: String {
        get { storage.box.fields.sha256 }
        set { storage.unique().fields.sha256 = newValue }
    }
    /// The type hint the SDK passes (`UNNotificationAttachmentOptionsTypeHintKey`), if any.
    public var typeHint: String? {
        get { storage.box.fields.typeHint }
        set { storage.unique().fields.typeHint = newValue }
    }
    /// Thumbnail options the SDK passes, if any.
    package var options: AttachmentOptions? {
        get { storage.box.fields.options }
        set { storage.unique().fields.options = newValue }
    }

    public static func == (lhs: Attachment, rhs: Attachment) -> Bool {
        lhs.storage.box === rhs.storage.box || lhs.storage.box.fields == rhs.storage.box.fields
    }

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
package enum NotificationContent {
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
    package static func json(for payload: Payload, attachments: [Attachment], overrides: ContentOverrides? = nil) -> JSONValue {
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

/// The file the extension attaches, as `UNNotificationAttachment` would hold it.
public struct Attachment: Sendable, Equatable {
    /// The identifier the Notti SDK gives its attachment.
    public static let identifier = "notti_image"

    // Copy-on-write, as `MediaFacts`: a campaign payload's attachment is copied
    // through its verdict, report and record, and eleven fields made each copy
    // eight retains; now it is one.
    private final class Storage: @unchecked Sendable {
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

        init(
            identifier: String, fileURL: String, filePath: String, fileExtension: String, uti: String, kind: MediaType.Kind,
            mimeType: String, size: Int, sha256: String, typeHint: String?, options: AttachmentOptions?
        ) {
            self.identifier = identifier
            self.fileURL = fileURL
            self.filePath = filePath
            self.fileExtension = fileExtension
            self.uti = uti
            self.kind = kind
            self.mimeType = mimeType
            self.size = size
            self.sha256 = sha256
            self.typeHint = typeHint
            self.options = options
        }

        convenience init(copying other: Storage) {
            self.init(
                identifier: other.identifier, fileURL: other.fileURL, filePath: other.filePath, fileExtension: other.fileExtension,
                uti: other.uti, kind: other.kind, mimeType: other.mimeType, size: other.size, sha256: other.sha256,
                typeHint: other.typeHint, options: other.options)
        }
    }

    private var storage: Storage

    private mutating func unique() -> Storage {
        if !isKnownUniquelyReferenced(&storage) { storage = Storage(copying: storage) }
        return storage
    }

    init(
        identifier: String, fileURL: String, filePath: String, fileExtension: String, uti: String, kind: MediaType.Kind,
        mimeType: String, size: Int, sha256: String, typeHint: String?, options: AttachmentOptions?
    ) {
        storage = Storage(
            identifier: identifier, fileURL: fileURL, filePath: filePath, fileExtension: fileExtension, uti: uti, kind: kind,
            mimeType: mimeType, size: size, sha256: sha256, typeHint: typeHint, options: options)
    }

    /// The identifier the SDK gives it (`notti_image`, an entry's key, "").
    public var identifier: String {
        get { storage.identifier }
        set { unique().identifier = newValue }
    }
    /// `file://` URL of the stored attachment, named by its SHA-256.
    public var fileURL: String {
        get { storage.fileURL }
        set { unique().fileURL = newValue }
    }
    /// The same file as a path.
    public var filePath: String {
        get { storage.filePath }
        set { unique().filePath = newValue }
    }
    /// The file's extension: Notti's type (`jpg`), or what the SDK named it (`jpeg`, `PNG`).
    public var fileExtension: String {
        get { storage.fileExtension }
        set { unique().fileExtension = newValue }
    }
    /// The Uniform Type Identifier iOS types it as.
    public var uti: String {
        get { storage.uti }
        set { unique().uti = newValue }
    }
    /// What iOS shows it as: image, audio or video.
    public var kind: MediaType.Kind {
        get { storage.kind }
        set { unique().kind = newValue }
    }
    /// What libmagic says the bytes are (for a fallback, not image/jpeg).
    public var mimeType: String {
        get { storage.mimeType }
        set { unique().mimeType = newValue }
    }
    public var size: Int {
        get { storage.size }
        set { unique().size = newValue }
    }
    public var sha256: String {
        get { storage.sha256 }
        set { unique().sha256 = newValue }
    }
    /// The type hint the SDK passes (`UNNotificationAttachmentOptionsTypeHintKey`), if any.
    public var typeHint: String? {
        get { storage.typeHint }
        set { unique().typeHint = newValue }
    }
    /// Thumbnail options the SDK passes, if any.
    public var options: AttachmentOptions? {
        get { storage.options }
        set { unique().options = newValue }
    }

    public static func == (lhs: Attachment, rhs: Attachment) -> Bool {
        if lhs.storage === rhs.storage { return true }
        return lhs.identifier == rhs.identifier
            && lhs.fileURL == rhs.fileURL
            && lhs.filePath == rhs.filePath
            && lhs.fileExtension == rhs.fileExtension
            && lhs.uti == rhs.uti
            && lhs.kind == rhs.kind
            && lhs.mimeType == rhs.mimeType
            && lhs.size == rhs.size
            && lhs.sha256 == rhs.sha256
            && lhs.typeHint == rhs.typeHint
            && lhs.options == rhs.options
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

/// What an SDK's extension reads from a payload before any download: its
/// media entries, or why there are none.
package enum MediaSpec: Sendable {
    /// The SDK's media key is not there: `no_media`.
    case absent
    /// The key is there but the SDK cannot use what it holds: `invalid_media_spec`.
    case invalid(String)
    /// One or more entries to fetch (an empty list is `no_media`), and text that
    /// replaces the content's on success (Airship's `content`).
    case entries([MediaEntry], overrides: ContentOverrides?)

    /// The payload carries the SDK's media key (a text push does not).
    package var namesMedia: Bool {
        if case .absent = self { return false }
        return true
    }
}

/// One attachment an SDK would try to make.
package struct MediaEntry: Sendable {
    /// Where in the payload its URL is, for messages: `ab.att.url`, `att.main`.
    package var key: String
    /// The URL value as the payload holds it, of any JSON type.
    package var value: JSONValue
    /// The entry's own name for itself (OneSignal's key, Airship's `url_id`).
    package var identifier: String?
    /// The entry's type field, for rules that read one (Braze, CleverTap, Batch).
    package var typeField: String?
    /// Attachment options the SDK passes to iOS (Airship).
    package var options: AttachmentOptions?

    package init(key: String, value: JSONValue, identifier: String? = nil, typeField: String? = nil, options: AttachmentOptions? = nil) {
        self.key = key
        self.value = value
        self.identifier = identifier
        self.typeField = typeField
        self.options = options
    }
}

/// Text an SDK puts in place of the alert's on success (Airship's `content`).
package struct ContentOverrides: Sendable, Equatable {
    package var title: String?
    package var subtitle: String?
    package var body: String?
}

/// `UNNotificationAttachment` options, as an SDK sets them (numbers kept as written).
package struct AttachmentOptions: Sendable, Equatable {
    /// `thumbnailClippingRect`: x, y, width, height, each 0–1.
    package var clippingRect: (x: JSONValue, y: JSONValue, width: JSONValue, height: JSONValue)?
    /// `thumbnailTime`, in seconds, for video.
    package var thumbnailTime: JSONValue?
    /// `thumbnailHidden`.
    package var thumbnailHidden: Bool?

    package var isEmpty: Bool { clippingRect == nil && thumbnailTime == nil && thumbnailHidden == nil }

    package static func == (lhs: AttachmentOptions, rhs: AttachmentOptions) -> Bool {
        lhs.json == rhs.json
    }

    package var json: JSONValue {
        var members: [JSONMember] = []
        if let rect = clippingRect {
            members.append(JSONMember("thumbnailClippingRect", .object([
                JSONMember("X", rect.x), JSONMember("Y", rect.y), JSONMember("Width", rect.width), JSONMember("Height", rect.height),
            ])))
        }
        if let thumbnailTime { members.append(JSONMember("thumbnailTime", thumbnailTime)) }
        if let thumbnailHidden { members.append(JSONMember("thumbnailHidden", .bool(thumbnailHidden))) }
        return .object(members)
    }
}

/// Findings a device would punish that the SDK's own path never sees
/// (SPEC section 7). Payload lints need no download, so they run even when
/// the media fails and one run shows every problem.
package enum Lints {
    /// APNs refuses larger payloads.
    package static let maxPayloadBytes = 4096
    /// The most a payload grows when serialized compactly, per byte of its text.
    static let maxSerializedGrowth = 6

    /// The payload-only lints: mutable-content, alert text and size (iOS's and
    /// APNs's rules, for every SDK), and Notti's notification_id.
    /// - Parameter namesMedia: the payload carries the profile's media key. Without
    ///   media, a missing mutable-content loses nothing but Notti's received event
    ///   (a warning under notti, nothing under other profiles: SPEC 7).
    package static func payloadDiagnostics(for payload: Payload, sdk: SDK = .notti, namesMedia: Bool = true) -> [Diagnostic] {
        var found: [Diagnostic] = []
        let aps = payload.aps
        if aps?["mutable-content"]?.intValue != 1 {
            if namesMedia {
                found.append(Diagnostic(.error, .mutableContentMissing,
                    "aps.mutable-content is not 1: iOS never runs the extension, so the media never shows; add \"mutable-content\": 1"))
            } else if sdk == .notti {
                found.append(Diagnostic(.warning, .mutableContentMissing,
                    "aps.mutable-content is not 1: iOS never runs the extension, so the SDK cannot report the push as received "
                        + "(it names no media, so nothing else is lost); add \"mutable-content\": 1 to count it"))
            }
        }
        if !payload.hasAlertText {
            found.append(Diagnostic(.error, .noAlert,
                "the push has no alert text: silent and badge-only pushes skip the extension; add aps.alert with a title or body"))
        }
        // Serializing grows a payload at most sixfold (a raw DEL, 1 byte, is written as
        // the 6-byte \u007f; every other byte is written in at most as many bytes, also
        // with non-ASCII escaped), so a text of up to maxPayloadBytes / 6 bytes cannot be
        // over and needs no count.
        if payload.byteCount * maxSerializedGrowth > maxPayloadBytes {
            let size = JSONWriter.compactByteCount(payload.root)
            if size > maxPayloadBytes {
                found.append(Diagnostic(
                    .error, .payloadTooLarge,
                    "the payload is \(size) bytes serialized, over APNs's \(maxPayloadBytes)-byte limit: APNs rejects it; "
                        + DiagnosticCode.payloadTooLarge.fix))
            } else if case let escaped = JSONWriter.asciiEscapedByteCount(payload.root), escaped > maxPayloadBytes {
                found.append(Diagnostic(
                    .warning, .payloadTooLarge,
                    "the payload is \(size) bytes in compact UTF-8 but \(escaped) bytes with non-ASCII text escaped as \\uXXXX "
                        + "(what many JSON libraries send by default, Python's json.dumps among them), over APNs's "
                        + "\(maxPayloadBytes)-byte limit: APNs rejects it if it is sent escaped; send it as UTF-8 "
                        + "(json.dumps(..., ensure_ascii=False)), or \(DiagnosticCode.payloadTooLarge.fix)"))
            }
        }
        // The walk that names where spells paths: run it only for the rare payload that has a repeat.
        if payload.mayRepeatKeys && hasDuplicateKeys(payload.root) { duplicateKeys(in: payload.root, at: "", into: &found) }
        if sdk == .notti && !hasNotificationID(payload.root["notification_id"]) {
            found.append(Diagnostic(.warning, .notificationIDMissing,
                "no notification_id: the SDK cannot report the push as received; add the campaign's notification_id"))
        }
        return found
    }

    /// What to convert media the SDK does not support into.
    package static func conversionAdvice(forSniffedMime mime: String) -> String {
        switch mime {
        case "image/webp", "image/heic", "image/heif", "image/avif", "image/svg+xml", "image/bmp", "image/x-ms-bmp", "image/tiff":
            return "convert it to png or jpg"
        case "audio/x-m4a", "audio/mp4", "audio/aac", "audio/x-hx-aac-adts", "audio/x-wav", "audio/wav", "audio/ogg",
            "audio/flac", "audio/x-flac", "application/ogg":
            return "convert it to mp3"
        case "video/quicktime", "video/3gpp", "video/3gpp2", "video/webm", "video/x-matroska":
            return "convert it to mp4"
        case "text/html", "text/plain", "application/json", "application/xml", "text/xml":
            return "the URL serves a document, not media: check the link"
        default:
            return "serve jpg, png, gif, mp4 or mp3"
        }
    }

    /// The Content-Type a server should send for `type`.
    package static func contentType(for type: MediaType) -> String {
        switch type {
        case .jpg: "image/jpeg"
        case .png: "image/png"
        case .gif: "image/gif"
        case .mp4: "video/mp4"
        case .mp3: "audio/mpeg"
        }
    }

    /// An Android delivery's own findings: `data_only_image` when a picture's URL sits under
    /// `data` and the display code's own image field is empty, and `no_android_media` when it has
    /// no notification image and its data carries the media key of a profile with no Android
    /// path (Notti's, CleverTap's).
    /// - Parameters:
    ///   - namesMedia: the delivery carries the display code's own image field (`notification.image`, …).
    ///   - displayCode: whose display code shows the notification, as messages name it.
    package static func androidDiagnostics(for payload: Payload, namesMedia: Bool, displayCode: String) -> [Diagnostic] {
        guard payload.root.value(at: ["notification", "image"]) == nil, !namesMedia else { return [] }
        // A picture's URL put under `data` (SPEC 20): the display code never reads data.
        for key in ["image", "imageUrl", "image_url", "picture", "big_picture", "bigPicture"] {
            guard case .string(let url)? = payload.root["data"]?[key], url.hasPrefix("https://") || url.hasPrefix("http://") else { continue }
            return [Diagnostic(
                .warning, .dataOnlyImage,
                "data.\(key) holds a picture's URL, but \(displayCode) display code never reads data: the notification shows text only "
                    + "unless the app builds it itself; \(DiagnosticCode.dataOnlyImage.fix)")]
        }
        for key in [Payload.mediaURLKey, "ct_mediaUrl"] {
            guard case .string? = payload.root["data"]?[key] else { continue }
            return [Diagnostic(
                .warning, .noAndroidMedia,
                "nothing on Android reads \(key); set notification.image (or android.notification.image) for Android phones to show the picture")]
        }
        return []
    }

    /// True when some object in `value` repeats a key: no allocation, as every payload of a campaign runs it.
    private static func hasDuplicateKeys(_ value: JSONValue) -> Bool {
        switch value {
        case .object(let members):
            for (position, member) in members.enumerated() {
                if members[..<position].contains(where: { $0.key == member.key }) || hasDuplicateKeys(member.value) { return true }
            }
            return false
        case .array(let elements): return elements.contains(where: hasDuplicateKeys)
        default: return false
        }
    }

    /// `duplicate_key` for each key repeated in one object, anywhere in the payload.
    private static func duplicateKeys(in value: JSONValue, at path: String, into found: inout [Diagnostic]) {
        switch value {
        case .object(let members):
            for (position, member) in members.enumerated() {
                // Reported once, at its first repeat; most objects have a handful of keys.
                if members[..<position].contains(where: { $0.key == member.key }) {
                    if members[..<position].filter({ $0.key == member.key }).count == 1 {
                        found.append(Diagnostic(
                            .warning, .duplicateKey,
                            "the key \(quoted(member.key)) appears more than once in \(path.isEmpty ? "the payload's top level" : path): "
                                + "iOS keeps one of them, and which is not promised; \(DiagnosticCode.duplicateKey.fix)"))
                    }
                } else if member.value.isContainer {
                    // The path is spelled only for containers: a campaign runs this for every payload.
                    duplicateKeys(in: member.value, at: path.isEmpty ? member.key : "\(path).\(member.key)", into: &found)
                }
            }
        case .array(let elements):
            for (index, element) in elements.enumerated() where element.isContainer {
                duplicateKeys(in: element, at: "\(path)[\(index)]", into: &found)
            }
        default: break
        }
    }

    private static func hasNotificationID(_ value: JSONValue?) -> Bool {
        switch value {
        case .string(let text)?: return !text.isEmpty
        case .number?: return true
        default: return false
        }
    }
}

extension JSONValue {
    /// An object or an array.
    var isContainer: Bool {
        switch self {
        case .object, .array: true
        default: false
        }
    }
}

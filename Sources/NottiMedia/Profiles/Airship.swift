extension SDKProfile {
    /// Airship (ios-library, UANotificationServiceExtension.swift and
    /// MediaAttachmentPayload.swift): `com.urbanairship.media_attachment` with
    /// `urls` or `url`, `thumbnail_id`, `options` and `content`; every entry is
    /// fetched, all or nothing; the type from a name suffix, the Content-Type or
    /// magic bytes.
    package static let airship = SDKProfile(
        sdk: .airship, mediaKeys: [[mediaAttachmentKey]], refusesHTTPItself: false,
        deadlineSeconds: DeviceModel.systemDeadlineSeconds, sizeCap: .none, rule: .typed(.airship), failurePolicy: .allOrNothing,
        identifier: .entry, readSpec: AirshipSpec.read)

    /// One top-level key, dots and all.
    static let mediaAttachmentKey = "com.urbanairship.media_attachment"
}

/// Airship's media attachment payload as its `Decodable` reads it: a value of the
/// wrong kind anywhere, or crop values outside 0-1, rejects the whole spec.
enum AirshipSpec {
    private struct Rejected: Error {
        let why: String
        init(_ why: String) { self.why = why }
    }

    static func read(_ payload: Payload) -> MediaSpec {
        let key = SDKProfile.mediaAttachmentKey
        guard let spec = payload.root[key] else { return .absent }
        do {
            return try decode(spec, key: key)
        } catch {
            return .invalid("\(key): \(error.why): Airship's decoder rejects the whole spec, so the push goes out without media or content changes")
        }
    }

    private static func decode(_ spec: JSONValue, key: String) throws(Rejected) -> MediaSpec {
        guard case .object = spec else { throw Rejected("it must be an object, not \(spec.kindName)") }
        var urls: [(url: String, id: String?, key: String)] = []
        if let list = spec["urls"] {
            guard case .array(let items) = list else { throw Rejected("urls must be an array, not \(list.kindName)") }
            for (index, item) in items.enumerated() {
                guard case .object = item, case .string(let url)? = item["url"] else {
                    throw Rejected("urls[\(index)] must be an object with a string url")
                }
                urls.append((url, try optionalString(item["url_id"], "urls[\(index)].url_id"), "\(key).urls[\(index)].url"))
            }
        } else if let single = spec["url"] {
            switch single {
            case .string(let url): urls = [(url, nil, "\(key).url")]
            case .array(let items):
                for (index, item) in items.enumerated() {
                    guard case .string(let url) = item else { throw Rejected("url[\(index)] must be a string, not \(item.kindName)") }
                    urls.append((url, nil, "\(key).url[\(index)]"))
                }
            default: throw Rejected("url must be a string or an array of strings, not \(single.kindName)")
            }
        }
        let thumbnailID = try optionalString(spec["thumbnail_id"], "thumbnail_id")
        var shared = AttachmentOptions()
        if let options = spec["options"] {
            guard case .object = options else { throw Rejected("options must be an object, not \(options.kindName)") }
            if let crop = options["crop"] {
                guard case .object = crop else { throw Rejected("options.crop must be an object, not \(crop.kindName)") }
                let sides = try ["x", "y", "width", "height"].map { (side: String) throws(Rejected) -> JSONValue in
                    guard let value = crop[side], case .number(let text) = value else {
                        throw Rejected("options.crop.\(side) must be a number")
                    }
                    guard let number = Double(text), (0...1).contains(number) else {
                        throw Rejected("options.crop.\(side) is \(text), outside 0-1")
                    }
                    return value
                }
                shared.clippingRect = (sides[0], sides[1], sides[2], sides[3])
            }
            if let time = options["time"] {
                guard case .number = time else { throw Rejected("options.time must be a number, not \(time.kindName)") }
                shared.thumbnailTime = time
            }
            if let hidden = options["hidden"] {
                guard case .bool(let flag) = hidden else { throw Rejected("options.hidden must be a boolean, not \(hidden.kindName)") }
                shared.thumbnailHidden = flag
            }
        }
        var overrides: ContentOverrides?
        if let content = spec["content"] {
            guard case .object = content else { throw Rejected("content must be an object, not \(content.kindName)") }
            overrides = ContentOverrides(
                title: try optionalString(content["title"], "content.title"),
                subtitle: try optionalString(content["subtitle"], "content.subtitle"),
                body: try optionalString(content["body"], "content.body"))
        }
        let entries = urls.map { entry in
            var options = shared
            // A thumbnail named by thumbnail_id hides the others', unless options.hidden says otherwise.
            if options.thumbnailHidden == nil, let thumbnailID, thumbnailID != entry.id { options.thumbnailHidden = true }
            return MediaEntry(
                key: entry.key, value: .string(entry.url), identifier: entry.id, options: options.isEmpty ? nil : options)
        }
        return .entries(entries, overrides: overrides)
    }

    private static func optionalString(_ value: JSONValue?, _ name: String) throws(Rejected) -> String? {
        guard let value else { return nil }
        guard case .string(let text) = value else { throw Rejected("\(name) must be a string, not \(value.kindName)") }
        return text
    }
}

/// What an SDK's extension gives iOS to type a downloaded file by: a file
/// extension, a type hint, or neither; and what iOS recognises from it.
package struct DeviceTypeDecision: Sendable, Equatable {
    /// The extension the SDK gives the file, as written; nil when it gives none.
    package var fileExtension: String?
    /// The type hint (a UTI) the SDK passes with the file, if any.
    package var hint: String?
    /// Where the decision came from, for messages: "ab.att.type", "the Content-Type", ...
    package var source: String
    /// What iOS recognises the attachment as; nil: iOS refuses it.
    package var recognised: RecognisedType?
    /// The file name the SDK keeps (the response's suggested name), when it keeps one.
    package var suggestedName: String?

    /// The extension the stored file gets: the SDK's, else the recognised type's own.
    package var storedExtension: String? { fileExtension ?? recognised?.rawValue }
}

/// What a type rule reads: the payload's entry, the request and the response.
package struct TypeInputs: Sendable {
    /// The entry's own type field (Braze `type`, CleverTap `ct_mediaType`, Batch `t`).
    package var entryType: String?
    /// The URL as the payload gave it.
    package var url: String
    package var finalURL: String
    /// The Content-Type, parameters dropped and case folded.
    package var contentType: String?
    package var contentDisposition: String?
    /// The file's first bytes (for magic-number tables).
    package var leadingBytes: [UInt8]
}

/// The few ways the SDKs decide a downloaded file's extension or type hint.
package enum TypeRule: Sendable {
    /// Braze: the payload's `type` becomes the file's suffix.
    case payloadType(field: String)
    /// Firebase and Iterable: the response's suggested file name; Firebase also
    /// falls back to the text after `image/` in the Content-Type.
    case suggestedFilename(imageSubtypeFallback: Bool)
    /// OneSignal: `filename` query parameter, its MIME map, the path's extension, a query value.
    case oneSignal
    /// Airship: a recognised name suffix, else the Content-Type, else magic bytes.
    case airship
    /// CleverTap: `ct_mediaType`, else three exact Content-Types.
    case cleverTap
    /// Batch: the type hint alone, a UTI or MIME type.
    case typeHint(field: String)

    /// What a campaign team can change so iOS recognises the file.
    package var fix: String {
        switch self {
        case .payloadType(let field): "set \(field) to a type iOS attaches: jpg, png, gif, mp3, m4a, wav, mp4, m4v or mpeg"
        case .suggestedFilename: "serve it under a file name ending in a recognised extension (the URL's last segment or Content-Disposition)"
        case .oneSignal: "add ?filename=NAME.jpg (or another listed extension) to the URL, or serve a Content-Type in OneSignal's map"
        case .airship: "give the URL's file name a recognised extension, or serve it with its real Content-Type"
        case .cleverTap: "set ct_mediaType to image, video or audio"
        case .typeHint(let field): "set \(field) to a recognised UTI (public.jpeg, public.png, com.compuserve.gif, public.mp3, public.mpeg-4) or MIME type"
        }
    }

    package func decide(_ inputs: TypeInputs) -> DeviceTypeDecision {
        switch self {
        case .payloadType(let field):
            let ext = inputs.entryType ?? ""
            return DeviceTypeDecision(
                fileExtension: ext.isEmpty ? nil : ext, source: field, recognised: RecognisedType(fileExtension: ext))
        case .suggestedFilename(let imageSubtypeFallback):
            let name = SuggestedFilename.name(
                contentDisposition: inputs.contentDisposition, finalURL: inputs.finalURL, contentType: inputs.contentType)
            var ext = SuggestedFilename.pathExtension(of: name)
            var source = inputs.contentDisposition.flatMap(SuggestedFilename.filename(inContentDisposition:)) != nil
                ? "the Content-Disposition file name" : "the URL's file name"
            if ext == nil, imageSubtypeFallback, let type = inputs.contentType, let range = type.range(ofBytes: "image/") {
                ext = String(type[range.upperBound...])
                source = "the Content-Type"
            }
            // A result containing "/" is dropped (firebase-ios-sdk #16387).
            if let found = ext, found.contains("/") { ext = nil }
            return DeviceTypeDecision(
                fileExtension: ext, source: source, recognised: ext.flatMap(RecognisedType.init(fileExtension:)),
                suggestedName: name)
        case .oneSignal:
            return Self.oneSignal(inputs)
        case .airship:
            return Self.airship(inputs)
        case .cleverTap:
            let byField: [String: String] = ["image": "jpg", "video": "mp4", "audio": "mp3"]
            let byContentType: [String: String] = ["image/jpeg": "jpeg", "image/png": "png", "image/gif": "gif"]
            if let ext = inputs.entryType.flatMap({ byField[$0] }) {
                return DeviceTypeDecision(fileExtension: ext, source: "ct_mediaType", recognised: RecognisedType(fileExtension: ext))
            }
            if let ext = inputs.contentType.flatMap({ byContentType[$0] }) {
                return DeviceTypeDecision(fileExtension: ext, source: "the Content-Type", recognised: RecognisedType(fileExtension: ext))
            }
            return DeviceTypeDecision(fileExtension: nil, source: "ct_mediaType and the Content-Type", recognised: nil)
        case .typeHint(let field):
            let recognised = inputs.entryType.flatMap(RecognisedType.init(hint:))
            return DeviceTypeDecision(fileExtension: nil, hint: recognised?.uti, source: field, recognised: recognised)
        }
    }

    // MARK: OneSignal

    /// OneSignal's own list of extensions, compared as written (`PNG` is not in it).
    static let oneSignalExtensions: Set<String> = ["aiff", "wav", "mp3", "mp4", "jpg", "jpeg", "png", "gif", "mpeg", "mpg", "avi", "m4a", "m4v"]
    /// OneSignal's exact MIME map (OneSignalCore NSString+OneSignal.m).
    static let oneSignalMIMEMap: [String: String] = [
        "audio/aiff": "aiff", "audio/x-wav": "wav", "audio/mpeg": "mp3", "video/mp4": "mp4", "image/jpeg": "jpeg",
        "image/jpg": "jpg", "image/png": "png", "image/gif": "gif", "video/mpeg": "mpeg", "video/mpg": "mpg",
        "video/avi": "avi", "sound/m4a": "m4a", "video/m4v": "m4v",
    ]

    private static func oneSignal(_ inputs: TypeInputs) -> DeviceTypeDecision {
        let query = queryItems(of: inputs.url)
        func listed(_ ext: String?) -> String? { ext.flatMap { oneSignalExtensions.contains($0) ? $0 : nil } }
        let candidates: [(String?, String)] = [
            (listed(query.first { $0.name == "filename" }.flatMap { SuggestedFilename.pathExtension(of: $0.value) }), "the filename query parameter"),
            (inputs.contentType.flatMap { oneSignalMIMEMap[$0] }, "the Content-Type"),
            (listed(SuggestedFilename.pathExtension(of: SuggestedFilename.lastPathComponent(of: inputs.url))), "the URL's path"),
            (query.lazy.compactMap { listed(SuggestedFilename.pathExtension(of: $0.value)) }.first, "a query value"),
        ]
        guard let (ext, source) = candidates.first(where: { $0.0 != nil }), let ext else {
            return DeviceTypeDecision(
                fileExtension: nil, source: "the filename parameter, the Content-Type, the URL's path and its query values",
                recognised: nil)
        }
        return DeviceTypeDecision(fileExtension: ext, source: source, recognised: RecognisedType(fileExtension: ext))
    }

    private static func queryItems(of url: String) -> [(name: String, value: String)] {
        guard let start = url.firstIndex(of: "?") else { return [] }
        let query = url[url.index(after: start)...].prefix { $0 != "#" }
        return query.split(separator: "&").map { item in
            let pair = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (SuggestedFilename.percentDecoded(String(pair[0])), pair.count > 1 ? SuggestedFilename.percentDecoded(String(pair[1])) : "")
        }
    }

    // MARK: Airship

    /// Suffixes Airship leaves to iOS, with no hint (its list has no m4v).
    static let airshipSuffixes = ["jpg", "jpeg", "png", "gif", "aif", "aiff", "mp3", "mpg", "mpeg", "mp4", "m4a", "wav", "avi"]

    private static func airship(_ inputs: TypeInputs) -> DeviceTypeDecision {
        let name = SuggestedFilename.lastPathComponent(of: inputs.url)
        if let suffix = airshipSuffixes.first(where: { name.hasSuffix("." + $0) }) {
            return DeviceTypeDecision(fileExtension: suffix, source: "the URL's file name", recognised: RecognisedType(fileExtension: suffix))
        }
        if let type = inputs.contentType.flatMap(RecognisedType.init(hint:)) {
            return DeviceTypeDecision(fileExtension: nil, hint: type.uti, source: "the Content-Type", recognised: type)
        }
        if let type = magicType(inputs.leadingBytes) {
            return DeviceTypeDecision(fileExtension: nil, hint: type.uti, source: "Airship's magic-byte table", recognised: type)
        }
        return DeviceTypeDecision(fileExtension: nil, source: "the URL, the Content-Type and Airship's magic-byte table", recognised: nil)
    }

    /// Airship's magic-number table (AirshipNotificationMutationProvider).
    static func magicType(_ bytes: [UInt8]) -> RecognisedType? {
        func at(_ offset: Int, _ text: String) -> Bool {
            let expected = Array(text.utf8)
            return bytes.count >= offset + expected.count && Array(bytes[offset..<offset + expected.count]) == expected
        }
        func starts(_ prefix: [UInt8]) -> Bool { bytes.starts(with: prefix) }
        if starts([0xFF, 0xD8, 0xFF]), bytes.count > 3, [0xE0, 0xE2, 0xE3].contains(bytes[3]) { return .jpeg }
        if starts([0x89, 0x50, 0x4E, 0x47]) { return .png }
        if at(0, "GIF8") { return .gif }
        if at(0, "FORM") { return .aiff }
        if at(8, "WAVE") { return .wav }
        if at(8, "AVI ") { return .avi }
        if at(0, "ID3") { return .mp3 }
        if at(4, "ftypM4A ") { return .m4a }
        if at(4, "ftyp"), ["mp41", "mp42", "mmp4", "isom"].contains(where: { at(8, $0) }) { return .mp4 }
        if starts([0x00, 0x00, 0x01, 0xBA]) || starts([0x00, 0x00, 0x01, 0xB3]) { return .mpeg }
        return nil
    }
}

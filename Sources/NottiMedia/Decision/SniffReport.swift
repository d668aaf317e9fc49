/// The type decision for one local file, without a download (`notti-media sniff`).
package struct SniffReport: Sendable {
    package var path: String
    package var sniffedMime: String
    package var type: MediaType
    package var fallback: Bool
    package var bytes: Int
    /// Within Apple's attachment limit for the type's kind (audio 5 MB, image 10 MB,
    /// video 50 MB), read in decimal megabytes: with no extension to run, the strict reading.
    package var withinIOSLimit: Bool
    package var diagnostics: [Diagnostic]
    /// What the phone's decoder makes of the file (SPEC 17); nil when no decoder reads its type, or the
    /// file is a stream cut at the read bound.
    package var decoded: DecodedMedia?
    /// The size as people read it: "N bytes", or "more than 52428800 bytes" for a stream cut at the read bound.
    package let size: String

    /// Sniffs the file at `path` (`bytes` long), judges it against the SDK's size cap and, with
    /// `decoder`, as the phone's decoder reads it (the Notti iOS record's verdicts). `cut`: the file holds
    /// the first bytes of a stream, read to one byte past the global bound (SPEC 12), so its own size is not
    /// known; a regular file's is, however large.
    /// - Throws: `SnifferError` when libmagic cannot read the file.
    package init(
        path: String, bytes: Int, cut: Bool = false, sniffer: Sniffer, maxBytes: Int = MediaPolicy.sdkMaxBytes,
        decoder: DecodeWorker? = nil
    ) throws(SnifferError) {
        self.init(path: path, bytes: bytes, cut: cut, sniffedMime: try sniffer.mimeType(ofFileAt: path, size: bytes),
                  maxBytes: maxBytes, decoder: decoder)
    }

    /// As `init(path:bytes:cut:sniffer:…)`, for a file libmagic has already sniffed as `mime`.
    package init(
        path: String, bytes: Int, cut: Bool = false, sniffedMime mime: String, maxBytes: Int = MediaPolicy.sdkMaxBytes,
        decoder: DecodeWorker? = nil
    ) {
        let sniffed = MediaType(sniffedMime: mime)
        self.path = path
        self.sniffedMime = mime
        self.type = sniffed ?? .jpg
        self.fallback = sniffed == nil
        self.bytes = bytes
        let limit = IOSLimit(type.kind)
        self.withinIOSLimit = bytes <= limit.decimalBytes
        var found: [Diagnostic] = []
        let size = cut ? "more than \(DeviceModel.largestLimitBytes) bytes" : "\(bytes) bytes"
        self.size = size
        if bytes == 0 {
            found.append(.error(.emptyMedia, "the file is empty"))
        } else if bytes > maxBytes {
            found.append(.error(.tooLarge, "\(size) is over the SDK's \(maxBytes)-byte limit: the push would go out without media"))
        }
        if fallback && bytes > 0 {
            found.append(Diagnostic(.warning, .unsupportedType,
                "the file is \(mime), which the SDK does not support: it would be attached as jpg and may not render; "
                    + Lints.conversionAdvice(forSniffedMime: mime)))
        }
        // The verdict `process` and `check` give the same bytes (SPEC 7): one judge for all three.
        switch limit.judge(bytes: bytes, size: size) {
        case .within: break
        case .mayRefuse(let warning): found.append(warning)
        case .refuses(let message): found.append(.error(.tooLarge, message))
        }
        // Named by content, as downloads are: copies of one file (a campaign's folder) are decoded once.
        // A cut stream is not decoded: its end is the read bound's, not the file's (SPEC 17 reads whole files).
        // Bytes of no media type are judged without reading them (`DecodedMedia.unreadable`): no hash needed.
        if bytes > 0, !cut, let decoder,
           let decoded = decoder.decode(
            fileAt: path, mime: mime, sha256: DecodedMedia.kind(ofMime: mime) == nil ? nil : SHA256.hex(ofFileAt: path),
            within: MediaPolicy.sdkTimeoutSeconds) {
            self.decoded = decoded
            found += DecoderRules(decoded: decoded).findings(profile: .notti, attachedAs: (type.kind, type.rawValue))
        }
        self.diagnostics = found
    }

    package var passed: Bool { !diagnostics.contains { $0.severity == .error } }

    package var json: JSONValue {
        .object([
            JSONMember("path", .string(path)),
            JSONMember("sniffedMime", .string(sniffedMime)),
            JSONMember("type", .string(type.rawValue)),
            JSONMember("uti", .string(type.uti)),
            JSONMember("fallback", .bool(fallback)),
            JSONMember("bytes", .int(bytes)),
            JSONMember("withinIOSLimit", .bool(withinIOSLimit)),
            JSONMember("decoded", decoded?.json ?? .null),
            JSONMember("diagnostics", .array(diagnostics.map(\.json))),
        ])
    }
}

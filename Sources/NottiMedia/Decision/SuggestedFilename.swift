/// The file name a download gets on a device when the SDK keeps the name the
/// response suggests (`URLResponse.suggestedFilename`, which Firebase and
/// Iterable use): Content-Disposition's `filename`, else the last component of
/// the final URL's path; a name without an extension gets the preferred one of
/// a known Content-Type, as Apple's type system gives it.
package enum SuggestedFilename {
    /// Preferred extensions of the Content-Types Apple's type system knows.
    static let preferredExtensions: [String: String] = [
        "image/jpeg": "jpeg", "image/png": "png", "image/gif": "gif", "video/mp4": "mp4", "audio/mpeg": "mp3",
        "audio/mp4": "m4a", "audio/x-m4a": "m4a", "audio/wav": "wav", "audio/x-wav": "wav", "audio/aiff": "aiff",
        "video/mpeg": "mpg", "video/x-msvideo": "avi",
    ]

    /// - Parameters:
    ///   - contentDisposition: the response's Content-Disposition header, if any.
    ///   - finalURL: the URL of the last request (after redirects).
    ///   - contentType: the Content-Type, parameters dropped and case folded.
    package static func name(contentDisposition: String?, finalURL: String, contentType: String?) -> String {
        var name = contentDisposition.flatMap(filename(inContentDisposition:))
            ?? lastPathComponent(of: finalURL)
        if name.isEmpty { name = "unknown" }
        if pathExtension(of: name) == nil, let type = contentType, let preferred = preferredExtensions[type] {
            name += "." + preferred
        }
        return name
    }

    /// The extension of a file name as written (case kept): `a.PNG` → `PNG`; nil for none.
    package static func pathExtension(of name: String) -> String? {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        let ext = name[name.index(after: dot)...]
        return ext.isEmpty ? nil : String(ext)
    }

    /// `filename*=UTF-8''a%20b.png` (preferred) or `filename="a.png"`, reduced to its last path component.
    static func filename(inContentDisposition header: String) -> String? {
        var plain: String?
        var extended: String?
        for part in header.split(separator: ";").dropFirst() {
            let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingWhitespace() }
            guard pair.count == 2 else { continue }
            switch pair[0].lowercased() {
            case "filename*":
                // RFC 8187: charset'language'percent-encoded
                let pieces = pair[1].split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
                if pieces.count == 3 { extended = percentDecoded(String(pieces[2])) }
            case "filename":
                var value = pair[1]
                if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
                plain = value
            default:
                break
            }
        }
        guard let chosen = extended ?? plain else { return nil }
        let base = chosen.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
        return base.isEmpty ? nil : base
    }

    /// The last component of a URL's path, percent-decoded; "" when the path ends in `/`.
    static func lastPathComponent(of url: String) -> String {
        var rest = Substring(url)
        if let scheme = rest.range(ofBytes: "://") { rest = rest[scheme.upperBound...] }
        if let end = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) { rest = rest[..<end] }
        guard let slash = rest.firstIndex(of: "/") else { return "" }
        let path = rest[slash...]
        return percentDecoded(String(path.split(separator: "/", omittingEmptySubsequences: false).last ?? ""))
    }

    static func percentDecoded(_ text: String) -> String {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8)[...]
        while let byte = iterator.popFirst() {
            if byte == UInt8(ascii: "%"), iterator.count >= 2,
               let value = UInt8(String(decoding: iterator.prefix(2), as: UTF8.self), radix: 16) {
                bytes.append(value)
                iterator = iterator.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

internal import CCurl

/// A media URL that passed the SDK's checks: a string, absolute, with a host,
/// https (or http, where the app allows it).
package struct MediaURL: Sendable, Equatable {
    /// The URL exactly as the payload gave it.
    package let string: String
    /// `https`, or `http` when allowed; lowercased.
    package let scheme: String
    package let host: String
    /// The path's extension, case folded, query and fragment ignored; nil when there is none.
    package let pathExtension: String?
    /// The URL as the payload wrote it, when that held spaces or non-ASCII characters that `string`
    /// has percent-encoded (as iOS 17's SDK encodes it: `url_needs_encoding`); nil otherwise.
    package var encodedFrom: String?
    /// The expiry a signed URL states (`url_expires`): read once per URL text here, where `check`'s
    /// memo keeps it, rather than for every payload that names it.
    package var expiry: SignedURL.Expiry?

    /// What the SDK concludes from a payload's `notti_image_url` value.
    package enum Verdict: Sendable, Equatable {
        /// No `notti_image_url`: the push goes out unchanged (`no_media`).
        case absent
        /// `invalid_url`, with why.
        case invalid(String)
        /// `unrendered_template`: the URL still holds template code, the marker found.
        case unrenderedTemplate(String)
        /// `not_https`, with the scheme found.
        case notHTTPS(scheme: String)
        case valid(MediaURL)
    }

    /// Applies SPEC section 2 to the raw value: a non-empty string without white
    /// space or control characters; then the scheme, judged on the text as
    /// written (`file://localhost/x` is `not_https`, whatever a URL library
    /// would make of it); then an authority with a host, read by libcurl.
    /// - Parameters:
    ///   - key: the payload key the value came from, for messages.
    ///   - allowHTTP: plain http passes too (an app with an App Transport Security exception).
    package static func check(_ value: JSONValue?, key: String = Payload.mediaURLKey, allowHTTP: Bool = false) -> Verdict {
        guard let value else { return .absent }
        guard case .string(let text) = value else {
            return .invalid("\(key) must be a string, not \(value.kindName)")
        }
        if text.isEmpty { return .invalid("\(key) is empty") }
        // Before the spaces a template holds (`{{ user.id }}`) make it an invalid URL: what to mend is the template.
        if let marker = templateMarker(in: text) { return .unrenderedTemplate(marker) }
        // Spaces and non-ASCII characters are valid once percent-encoded (SPEC 20): checked, and fetched, so.
        if text.utf8.contains(where: { $0 == 0x20 || $0 >= 0x80 }), !text.unicodeScalars.contains(where: isNeverEncoded) {
            let verdict = check(.string(percentEncodingSpacesAndNonASCII(text)), key: key, allowHTTP: allowHTTP)
            guard case .valid(var url) = verdict else { return verdict }
            url.encodedFrom = text
            return .valid(url)
        }
        if let bad = text.unicodeScalars.first(where: isForbidden) {
            let what = bad.properties.isWhitespace ? "white space" : "a control character"
            return .invalid("the URL contains \(what) (U+\(hex4(bad.value)))")
        }
        guard let scheme = scheme(of: text) else {
            return .invalid("not an absolute URL with a host: \(quoted(text))")
        }
        guard scheme == "https" || (allowHTTP && scheme == "http") else { return .notHTTPS(scheme: scheme) }
        // `https:///f/x`: libcurl would take `f` for the host; the URL as written has none.
        if text.utf8.dropFirst(scheme.utf8.count + 3).first == UInt8(ascii: "/") {
            return .invalid("the URL has no host (nothing between // and the path): \(quoted(text))")
        }
        let parsed: (host: String, path: String)
        switch parse(text) {
        case .failure(let failure): return .invalid("\(failure.message): \(quoted(text))")
        case .success(let parts): parsed = parts
        }
        var url = MediaURL(string: text, scheme: scheme, host: parsed.host, pathExtension: pathExtension(of: parsed.path))
        url.expiry = SignedURL.expiry(of: text)
        return .valid(url)
    }

    /// The template code a campaign's URL may still hold when the platform's personalisation did not run
    /// (SPEC 20): Liquid and Handlebars (`{{ }}`, `{% %}`), JavaScript and shell (`${`), ERB and JSP (`<%`),
    /// as written or percent-encoded (case-insensitive hex).
    static let templateMarkers = ["{{", "}}", "{%", "%}", "${", "<%"]

    /// The first template marker `text` holds, as written in it; nil when none.
    static func templateMarker(in text: String) -> String? {
        // Cheap first: most URLs have neither braces nor a percent sign followed by a marker's code.
        guard text.utf8.contains(where: { $0 == UInt8(ascii: "{") || $0 == UInt8(ascii: "}") || $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "<") })
        else { return nil }
        if let plain = templateMarkers.first(where: { text.range(ofBytes: $0) != nil }) { return plain }
        let upper = text.uppercased()
        return ["%7B%7B", "%7D%7D", "%7B%25", "%25%7D", "%24%7B", "%3C%25"].first { upper.range(ofBytes: $0) != nil }
    }

    /// What no encoding makes a URL of: control characters, and white space and invisible format
    /// characters but the ASCII space (which encodes as %20) and non-ASCII spaces.
    private static func isNeverEncoded(_ scalar: UnicodeScalar) -> Bool {
        if scalar.value < 0x80 { return scalar.value < 0x20 || scalar.value == 0x7F }
        return scalar.value <= 0x9F || scalar.properties.generalCategory == .format
    }

    /// `text` with each space and non-ASCII character percent-encoded, byte by byte of its UTF-8.
    private static func percentEncodingSpacesAndNonASCII(_ text: String) -> String {
        var encoded = ""
        for byte in text.utf8 {
            if byte == 0x20 || byte >= 0x80 {
                let hex = String(byte, radix: 16, uppercase: true)
                encoded += "%" + (hex.count == 1 ? "0" : "") + hex
            } else {
                encoded.unicodeScalars.append(UnicodeScalar(byte))
            }
        }
        return encoded
    }

    /// White space, control and invisible format characters have no place in a URL.
    private static func isForbidden(_ scalar: UnicodeScalar) -> Bool {
        // ASCII first: Unicode property lookups are slow and URLs are almost always ASCII.
        if scalar.value < 0x80 { return scalar.value <= 0x20 || scalar.value == 0x7F }
        return scalar.value <= 0x9F || scalar.properties.isWhitespace || scalar.properties.generalCategory == .format
    }

    /// The lowercased scheme before `://`, when the text starts with one.
    private static func scheme(of text: String) -> String? {
        var scheme = ""
        var sawSeparator = false
        var rest = text.utf8.makeIterator()
        while let byte = rest.next() {
            if byte == UInt8(ascii: ":") {
                sawSeparator = rest.next() == UInt8(ascii: "/") && rest.next() == UInt8(ascii: "/")
                break
            }
            let isLetter = (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
            let isOther = (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "+")
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            guard isLetter || (!scheme.isEmpty && isOther) else { return nil }
            scheme.unicodeScalars.append(UnicodeScalar(isLetter ? byte | 0x20 : byte))
        }
        return sawSeparator ? scheme : nil
    }

    /// The scheme, host and port (the scheme's default when none is written) of `text`, an
    /// absolute URL libcurl fetched (a redirect hop): what a TLS connection is made for.
    static func origin(of text: String) -> (scheme: String, host: String, port: Int)? {
        guard let handle = curl_url() else { return nil }
        defer { curl_url_cleanup(handle) }
        guard curl_url_set(handle, CURLUPART_URL, text, UInt32(CURLU_NON_SUPPORT_SCHEME)) == CURLUE_OK,
              let scheme = part(handle, CURLUPART_SCHEME), let host = part(handle, CURLUPART_HOST)
        else { return nil }
        var value: UnsafeMutablePointer<CChar>?
        guard curl_url_get(handle, CURLUPART_PORT, &value, UInt32(CURLU_DEFAULT_PORT)) == CURLUE_OK, let value else { return nil }
        defer { curl_free(value) }
        return (scheme.lowercased(), host, Int(String(cString: value)) ?? 0)
    }

    /// Parses with libcurl's own URL parser, so what passes here is what libcurl will fetch.
    private static func parse(_ text: String) -> Result<(host: String, path: String), URLParseFailure> {
        guard let handle = curl_url() else { return .failure(URLParseFailure("out of memory")) }
        defer { curl_url_cleanup(handle) }
        let status = curl_url_set(handle, CURLUPART_URL, text, UInt32(CURLU_NON_SUPPORT_SCHEME))
        guard status == CURLUE_OK else {
            return .failure(URLParseFailure(String(cString: curl_url_strerror(status))))
        }
        guard let host = part(handle, CURLUPART_HOST), !host.isEmpty else {
            return .failure(URLParseFailure("the URL has no host"))
        }
        return .success((host, part(handle, CURLUPART_PATH) ?? "/"))
    }

    private static func part(_ handle: OpaquePointer, _ which: CURLUPart) -> String? {
        var value: UnsafeMutablePointer<CChar>?
        guard curl_url_get(handle, which, &value, 0) == CURLUE_OK, let value else { return nil }
        defer { curl_free(value) }
        return String(cString: value)
    }

    /// `/a/Photo.JPEG` → `jpeg`; `/a/file` and `/a/.hidden` → nil.
    static func pathExtension(of path: String) -> String? {
        let name = path.split(separator: "/", omittingEmptySubsequences: false).last ?? ""
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        let ext = name[name.index(after: dot)...]
        return ext.isEmpty ? nil : ext.lowercased()
    }
}

struct URLParseFailure: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

/// `MediaURL.check` remembered per URL text, for one thread: a campaign names
/// the same few URLs millions of times.
struct URLCheckMemo {
    /// By URL text (only the text is hashed); the key and http rule it was
    /// checked under are compared on a hit, since a verdict's message names the key.
    /// A few per text: a send request names one URL under two keys (iOS's, Android's),
    /// and one entry a text made them overwrite each other on every request.
    private var known: [String: [(key: String, allowHTTP: Bool, verdict: MediaURL.Verdict)]] = [:]

    mutating func check(_ value: JSONValue?, key: String, allowHTTP: Bool) -> MediaURL.Verdict {
        guard case .string(let text)? = value else { return MediaURL.check(value, key: key, allowHTTP: allowHTTP) }
        if let memo = known[text]?.first(where: { $0.key == key && $0.allowHTTP == allowHTTP }) { return memo.verdict }
        let verdict = MediaURL.check(value, key: key, allowHTTP: allowHTTP)
        if known.count >= 1_024 { known.removeAll(keepingCapacity: true) }
        known[text, default: []].append((key, allowHTTP, verdict))
        return verdict
    }
}

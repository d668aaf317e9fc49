/// How the attachment's type is decided: by the bytes, as the extension does,
/// and, for comparison, by what the SDK would pick without sniffing.
package struct TypeDecision: Sendable, Equatable {
    /// Where the SDK's unsniffed guess came from.
    package enum SDKTypeSource: Sendable, Equatable {
        case contentType(String)
        case urlExtension(String)
        case defaultJPG
    }

    /// What libmagic said the bytes are.
    package var sniffedMime: String
    /// The attachment type: the sniffed type, or jpg when it is none of the five.
    package var type: MediaType
    /// True when the sniffed MIME is none of the five and jpg was used.
    package var fallback: Bool
    /// What the SDK would pick from the Content-Type, then the URL extension, then jpg.
    package var sdkType: MediaType
    package var sdkTypeSource: SDKTypeSource

    package init(sniffedMime: String, declaredMime: String?, urlExtension: String?) {
        self.sniffedMime = sniffedMime
        let sniffed = MediaType(sniffedMime: sniffedMime)
        self.type = sniffed ?? .jpg
        self.fallback = sniffed == nil
        (self.sdkType, self.sdkTypeSource) = Self.sdkType(declaredMime: declaredMime, urlExtension: urlExtension)
    }

    /// The device-side guess: Content-Type first, then the URL path's extension, then jpg.
    package static func sdkType(declaredMime: String?, urlExtension: String?) -> (MediaType, SDKTypeSource) {
        if let declaredMime, let type = MediaType(declaredMime: declaredMime) {
            return (type, .contentType(declaredMime))
        }
        if let urlExtension, let type = MediaType(urlExtension: urlExtension) {
            return (type, .urlExtension(urlExtension))
        }
        return (.jpg, .defaultJPG)
    }

    /// The warnings this decision raises (SPEC section 4).
    package var diagnostics: [Diagnostic] {
        var found: [Diagnostic] = []
        if fallback {
            found.append(Diagnostic(.warning, .unsupportedType,
                "the media is \(sniffedMime), which the SDK does not support: it is attached as jpg "
                    + "and may not render on a device; \(Lints.conversionAdvice(forSniffedMime: sniffedMime))"))
        }
        if sdkType != type {
            let because: String
            switch sdkTypeSource {
            case .contentType(let mime): because = "the Content-Type is \(mime)"
            case .urlExtension(let ext): because = "the URL ends in .\(ext)"
            case .defaultJPG: because = "neither the Content-Type nor the URL names a type"
            }
            let fix = switch sdkTypeSource {
            case .urlExtension: "serve it with Content-Type: \(Lints.contentType(for: type)) or give the URL a .\(type.rawValue) extension"
            case .contentType, .defaultJPG: "serve it with Content-Type: \(Lints.contentType(for: type))"
            }
            found.append(Diagnostic(.warning, .typeMismatch,
                "the bytes are \(sniffedMime) but \(because): without sniffing a device would "
                    + "attach it as \(sdkType.rawValue), not \(type.rawValue); \(fix)"))
        }
        return found
    }
}

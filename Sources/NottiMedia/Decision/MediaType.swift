/// The five attachment types the Notti SDK knows (SPEC section 4).
package enum MediaType: String, Sendable, CaseIterable {
    case jpg, png, gif, mp4, mp3

    /// What iOS shows an attachment as; each kind has its own size limit (`IOSLimit`).
    package enum Kind: String, Sendable {
        case image, video, audio
    }

    /// The Uniform Type Identifier iOS is given for the attachment.
    package var uti: String {
        switch self {
        case .jpg: "public.jpeg"
        case .png: "public.png"
        case .gif: "com.compuserve.gif"
        case .mp4: "public.mpeg-4"
        case .mp3: "public.mp3"
        }
    }

    package var kind: Kind {
        switch self {
        case .jpg, .png, .gif: .image
        case .mp4: .video
        case .mp3: .audio
        }
    }

    /// The type for a MIME type libmagic sniffed, or nil when the SDK has none
    /// (and falls back to jpg).
    package init?(sniffedMime mime: String) {
        switch mime {
        case "image/jpeg": self = .jpg
        case "image/png": self = .png
        case "image/gif": self = .gif
        case "video/mp4", "video/x-m4v": self = .mp4
        case "audio/mpeg": self = .mp3
        default: return nil
        }
    }

    /// The type the SDK reads from a Content-Type header (`declaredMime`: parameters
    /// already dropped and case folded by the download), with the aliases servers
    /// commonly send.
    package init?(declaredMime: String) {
        switch declaredMime {
        case "image/jpeg", "image/jpg", "image/pjpeg": self = .jpg
        case "image/png": self = .png
        case "image/gif": self = .gif
        case "video/mp4": self = .mp4
        case "audio/mpeg", "audio/mp3": self = .mp3
        default: return nil
        }
    }

    /// The type the SDK reads from a URL path's extension (already case folded).
    package init?(urlExtension: String) {
        switch urlExtension {
        case "jpg", "jpeg": self = .jpg
        case "png": self = .png
        case "gif": self = .gif
        case "mp4": self = .mp4
        case "mp3": self = .mp3
        default: return nil
        }
    }

}

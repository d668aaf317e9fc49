/// What iOS itself decides about an attachment, whatever the SDK: the types it
/// recognises by file extension or type hint, and its per-kind size limits.
/// (App Transport Security and the 30 s extension budget are in `SDKProfile`,
/// where each profile applies them.)
public enum DeviceModel {
    /// The service extension's time budget when the SDK sets none of its own.
    public static let systemDeadlineSeconds = 30.0
    /// iOS's largest per-kind limit (video): no download is read past it.
    public static let largestLimitBytes = MediaType.Kind.video.iOSLimitBytes
}

/// An attachment type iOS recognises, by file extension or type hint.
public enum RecognisedType: String, Sendable, CaseIterable {
    case jpeg, png, gif, aiff, wav, mp3, m4a, mpeg, mp4, m4v, avi

    /// Extensions iOS types an attachment by (compared without case).
    public static let extensions: [String: RecognisedType] = [
        "jpg": .jpeg, "jpeg": .jpeg, "png": .png, "gif": .gif,
        "aif": .aiff, "aiff": .aiff, "wav": .wav, "mp3": .mp3, "m4a": .m4a,
        "mpg": .mpeg, "mpeg": .mpeg, "mp4": .mp4, "m4v": .m4v, "avi": .avi,
    ]

    /// The type for a file extension, or nil when iOS does not recognise it.
    public init?(fileExtension: String) {
        guard let type = Self.extensions[fileExtension.lowercased()] else { return nil }
        self = type
    }

    /// The type for a hint given as a UTI (`public.jpeg`) or a MIME type (`image/png`).
    public init?(hint: String) {
        let lower = hint.lowercased()
        guard let type = Self.allCases.first(where: { $0.uti == lower || $0.mimeTypes.contains(lower) }) else { return nil }
        self = type
    }

    /// The Uniform Type Identifier iOS gives it.
    public var uti: String {
        switch self {
        case .jpeg: "public.jpeg"
        case .png: "public.png"
        case .gif: "com.compuserve.gif"
        case .aiff: "public.aiff-audio"
        case .wav: "com.microsoft.waveform-audio"
        case .mp3: "public.mp3"
        case .m4a: "com.apple.m4a-audio"
        case .mpeg: "public.mpeg"
        case .mp4: "public.mpeg-4"
        case .m4v: "com.apple.m4v-video"
        case .avi: "public.avi"
        }
    }

    /// MIME types that name it (as a hint) and that libmagic reports for its bytes.
    public var mimeTypes: Set<String> {
        switch self {
        case .jpeg: ["image/jpeg", "image/jpg", "image/pjpeg"]
        case .png: ["image/png"]
        case .gif: ["image/gif"]
        case .aiff: ["audio/aiff", "audio/x-aiff"]
        case .wav: ["audio/wav", "audio/x-wav", "audio/vnd.wave"]
        case .mp3: ["audio/mpeg", "audio/mp3"]
        case .m4a: ["audio/mp4", "audio/x-m4a", "audio/m4a"]
        case .mpeg: ["video/mpeg", "video/mpg"]
        case .mp4: ["video/mp4"]
        case .m4v: ["video/x-m4v", "video/m4v"]
        case .avi: ["video/avi", "video/x-msvideo", "video/msvideo"]
        }
    }

    public var kind: MediaType.Kind {
        switch self {
        case .jpeg, .png, .gif: .image
        case .aiff, .wav, .mp3, .m4a: .audio
        case .mpeg, .mp4, .m4v, .avi: .video
        }
    }

    /// True when bytes libmagic calls `sniffedMime` fit this type. MPEG-4
    /// containers count as one family: libmagic names an .m4v `video/mp4` and
    /// iOS plays either.
    public func agrees(withSniffedMime sniffedMime: String) -> Bool {
        if mimeTypes.contains(sniffedMime) { return true }
        let mpeg4: Set<String> = ["video/mp4", "video/x-m4v", "audio/mp4", "audio/x-m4a"]
        return [.mp4, .m4v, .m4a].contains(self) && mpeg4.contains(sniffedMime)
    }
}

/// What iOS itself decides about an attachment, whatever the SDK: the types it
/// recognises by file extension or type hint, and its per-kind size limits.
/// (App Transport Security and the 30 s extension budget are in `SDKProfile`,
/// where each profile applies them.)
package enum DeviceModel {
    /// The service extension's time budget when the SDK sets none of its own.
    package static let systemDeadlineSeconds = 30.0
    /// iOS's largest per-kind limit (video, binary reading): no download is read
    /// past it (one byte more, to see a file is over), whatever `--max-bytes` says.
    package static let largestLimitBytes = IOSLimit.largestBytes
}

/// An attachment type iOS recognises, by file extension or type hint: the
/// table of iOS 26's `UNNotificationAttachment` (SPEC 12).
package enum RecognisedType: String, Sendable, CaseIterable {
    case jpeg, png, gif, heic
    case aiff, aifc, wav, mp3, m4a, caf, amr, au, ac3, eac3
    case mpeg, mp4, m4v, avi, threeGP = "3gp", threeG2 = "3g2"

    /// Extensions iOS types an attachment by (compared without case).
    package static let extensions: [String: RecognisedType] = [
        "jpg": .jpeg, "jpeg": .jpeg, "png": .png, "gif": .gif, "heic": .heic,
        "aif": .aiff, "aiff": .aiff, "aifc": .aifc, "wav": .wav, "mp3": .mp3, "m4a": .m4a,
        "caf": .caf, "amr": .amr, "au": .au, "ac3": .ac3, "eac3": .eac3,
        "mpg": .mpeg, "mpeg": .mpeg, "mp4": .mp4, "m4v": .m4v, "avi": .avi, "3gp": .threeGP, "3g2": .threeG2,
    ]

    /// The type for a file extension, or nil when iOS does not recognise it.
    package init?(fileExtension: String) {
        guard let type = Self.extensions[fileExtension.lowercased()] else { return nil }
        self = type
    }

    /// The type for a hint given as a UTI (`public.jpeg`) or a MIME type (`image/png`).
    package init?(hint: String) {
        let lower = hint.lowercased()
        guard let type = Self.allCases.first(where: { $0.uti == lower || $0.mimeTypes.contains(lower) }) else { return nil }
        self = type
    }

    /// The Uniform Type Identifier iOS gives it.
    package var uti: String {
        switch self {
        case .jpeg: "public.jpeg"
        case .png: "public.png"
        case .gif: "com.compuserve.gif"
        case .heic: "public.heic"
        case .aiff: "public.aiff-audio"
        case .aifc: "public.aifc-audio"
        case .caf: "com.apple.coreaudio-format"
        case .amr: "org.3gpp.adaptive-multi-rate-audio"
        case .au: "public.ulaw-audio"
        case .ac3: "public.ac3-audio"
        case .eac3: "public.enhanced-ac3-audio"
        case .threeGP: "public.3gpp"
        case .threeG2: "public.3gpp2"
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
    package var mimeTypes: Set<String> {
        switch self {
        case .jpeg: ["image/jpeg", "image/jpg", "image/pjpeg"]
        case .png: ["image/png"]
        case .gif: ["image/gif"]
        case .heic: ["image/heic", "image/heif"]
        case .aiff: ["audio/aiff", "audio/x-aiff"]
        case .aifc: ["audio/x-aifc"]
        case .caf: ["audio/x-caf"]
        case .amr: ["audio/amr"]
        case .au: ["audio/basic"]
        case .ac3: ["audio/ac3", "audio/vnd.dolby.dd-raw"]
        case .eac3: ["audio/eac3"]
        case .threeGP: ["video/3gpp"]
        case .threeG2: ["video/3gpp2"]
        case .wav: ["audio/wav", "audio/x-wav", "audio/vnd.wave"]
        case .mp3: ["audio/mpeg", "audio/mp3"]
        case .m4a: ["audio/mp4", "audio/x-m4a", "audio/m4a"]
        case .mpeg: ["video/mpeg", "video/mpg"]
        case .mp4: ["video/mp4"]
        case .m4v: ["video/x-m4v", "video/m4v"]
        case .avi: ["video/avi", "video/x-msvideo", "video/msvideo"]
        }
    }

    package var kind: MediaType.Kind {
        switch self {
        case .jpeg, .png, .gif, .heic: .image
        case .aiff, .aifc, .wav, .mp3, .m4a, .caf, .amr, .au, .ac3, .eac3: .audio
        case .mpeg, .mp4, .m4v, .avi, .threeGP, .threeG2: .video
        }
    }

    /// True when bytes libmagic calls `sniffedMime` fit this type. MPEG-4
    /// containers count as one family: libmagic names an .m4v `video/mp4` and
    /// iOS plays either.
    package func agrees(withSniffedMime sniffedMime: String) -> Bool {
        if mimeTypes.contains(sniffedMime) { return true }
        let mpeg4: Set<String> = ["video/mp4", "video/x-m4v", "audio/mp4", "audio/x-m4a"]
        return [.mp4, .m4v, .m4a].contains(self) && mpeg4.contains(sniffedMime)
    }
}

/// What the phone's decoders make of a file (SPEC 17), read from the profile as
/// data: iOS attaches without reading the bytes and fails to draw or play them
/// later; Android's display code decodes the picture with BitmapFactory before it
/// shows it, draws a cut file's rows with grey below, and some display codes
/// ignore EXIF orientation (`Platform`'s decoding facts, `SDKProfile.orientationIgnoredBy`).
package struct DecoderRules {
    let decoded: DecodedMedia

    package init(decoded: DecodedMedia) {
        self.decoded = decoded
    }

    /// `verdict`, an entry's under `profile`'s type rule, with what the decoder adds: `undecodable_media`
    /// (an error where the file is attached unread, the failure where it is decoded before showing),
    /// `truncated_media`, `orientation_ignored` and `large_bitmap` (Android's), and `unplayable_video`
    /// and `video_codec_support` (iOS's player's).
    func judge(_ verdict: EntryVerdict, profile: SDKProfile) -> EntryVerdict {
        guard case .attached(let attachment, let facts, let typing, let warnings) = verdict else { return verdict }
        let found = findings(profile: profile, attachedAs: (attachment.kind, attachment.fileExtension))
        // BitmapFactory returns nothing: the notification shows its text alone.
        if profile.platform.decodesBeforeShowing, let undecodable = found.first(where: { $0.code == .undecodableMedia }) {
            return .failed(facts: facts, typing: typing, .undecodableMedia, undecodable.message)
        }
        return found.isEmpty ? verdict : .attached(attachment, facts: facts, typing: typing, warnings: warnings + found)
    }

    /// The decoder's findings for a file attached under `profile` (`sniff` gives Notti's), as the kind
    /// and extension it is attached as, when known.
    package func findings(profile: SDKProfile, attachedAs attached: (kind: MediaType.Kind, fileExtension: String)? = nil) -> [Diagnostic] {
        let platform = profile.platform
        var found: [Diagnostic] = []
        // No decode could be made: nothing of the pixels is known, and "could not check" is never "found nothing".
        if let why = decoded.failed {
            return [.error(.decodeFailed,
                "the \(decoded.kind.rawValue) could not be read as the phone reads it: \(why); this is the machine, not the "
                    + "media, and whether the phone shows it is not known; \(DiagnosticCode.decodeFailed.fix)")]
        }
        // iOS reads an attachment as the type it was given (SPEC 17): a video or a sound attached as a
        // picture (Notti's jpg fallback for an m4a, a hint that says png) goes to the picture decoder.
        if let attached, attached.kind == .image, decoded.kind != .picture, decoded.undecodable == nil {
            found.append(.error(.undecodableMedia,
                "the file is \(decoded.kind == .video ? "a video" : "a sound") attached as \(attached.fileExtension): iOS hands it "
                    + "to the picture decoder, which reads nothing of it, and the phone shows an empty picture; serve it as "
                    + "a type the SDK attaches as \(decoded.kind == .video ? "video (mp4)" : "sound (mp3)"), or link a picture"))
            return found
        }
        if let detail = decoded.undecodable {
            let what = decoded.format.map { "\($0) \(decoded.kind.rawValue)" } ?? decoded.kind.rawValue
            if platform.decodesBeforeShowing {
                found.append(.error(.undecodableMedia,
                    "the \(what) does not decode (\(detail)): BitmapFactory returns nothing and the notification shows its text "
                        + "alone; \(DiagnosticCode.undecodableMedia.fix)"))
            } else {
                let shown = decoded.kind == .picture ? "an empty picture" : "a player that does not play"
                // Bytes of no picture format at all (an error page): the link, not the upload, is what to mend.
                let fix = decoded.format == nil && decoded.kind == .picture
                    ? "check the link: it must serve the picture itself, not a page or another kind of file"
                    : DiagnosticCode.undecodableMedia.fix
                found.append(.error(.undecodableMedia,
                    "the \(what) does not decode (\(detail)): iOS attaches it without reading the bytes, and the phone shows \(shown); "
                        + fix))
            }
        } else if decoded.complete == false {
            found.append(Diagnostic(.warning, .truncatedMedia, truncationMessage(fill: platform.fillBelowCut)))
        }
        if decoded.kind == .picture {
            if let by = profile.orientationIgnoredBy, let finding = orientationFinding(ignoredBy: by) { found.append(finding) }
            if let largest = platform.largestBitmapBytes, let finding = bitmapFinding(largest: largest) { found.append(finding) }
        }
        if decoded.kind == .video && platform.playsVideo { found += videoFindings() }
        return found
    }

    private func truncationMessage(fill: String?) -> String {
        let fix = DiagnosticCode.truncatedMedia.fix
        if decoded.kind == .picture, let rows = decoded.drawnRows, let height = decoded.height, height > 0 {
            let percent = Int((Double(rows) * 100 / Double(height)).rounded(.down))
            let below = fill.map { " (\($0) below it)" } ?? ""
            return "the file ends before its last row: the picture is drawn down to row \(rows) of \(height), \(percent)% of it\(below); \(fix)"
        }
        if let percent = decoded.drawnPercent {
            return "the file ends before its last sample: \(percent)% of the \(decoded.kind.rawValue)'s samples are there; \(fix)"
        }
        return "the file ends before its last row, frame or sample; \(fix)"
    }

    /// `orientation_ignored`: how a display code that ignores EXIF orientation (`by`) shows the picture.
    private func orientationFinding(ignoredBy by: String) -> Diagnostic? {
        guard let orientation = decoded.orientation, orientation != 1 else { return nil }
        let shown = switch orientation {
        case 3: "upside down"
        case 6, 8: "on its side"
        default: "mirrored"
        }
        return Diagnostic(.warning, .orientationIgnored,
            "the picture has EXIF orientation \(orientation): \(by) it with BitmapFactory, which ignores it, so Android shows "
                + "it as stored, \(shown); iPhones show it upright; \(DiagnosticCode.orientationIgnored.fix)")
    }

    /// `large_bitmap`: a picture that decodes to more than the platform's largest drawable bitmap.
    private func bitmapFinding(largest: Int) -> Diagnostic? {
        guard let bytes = decoded.decodedBytes, bytes > largest, let width = decoded.width, let height = decoded.height else { return nil }
        let scale = (Double(largest) / Double(bytes)).squareRoot()
        let fits = "\(Int(Double(width) * scale))×\(Int(Double(height) * scale))"
        let unchecked = decoded.complete == nil ? " (over 100,000,000 pixels: judged from its header, its rows were not checked)" : ""
        return Diagnostic(.warning, .largeBitmap,
            "the picture is \(width)×\(height): decoded at full size it takes \(bytes) bytes, over Android's largest bitmap "
                + "(\(largest) bytes), and phones with less memory drop it\(unchecked); resize it to at most \(fits)")
    }

    /// The codecs iOS plays in a notification's player (AV1 and VP9 only on some devices).
    private static let iOSVideoCodecs: Set<String> = ["h264", "hevc", "mpeg4", "mjpeg", "prores"]

    private func videoFindings() -> [Diagnostic] {
        guard let codec = decoded.videoCodec else { return [] }
        if codec == "hevc" && decoded.videoTag == "hev1" {
            return [.error(.unplayableVideo,
                "HEVC stored as hev1: iOS plays HEVC only tagged hvc1, so the attachment is created and its player does not play; "
                    + "re-mux it with the hvc1 tag (ffmpeg -c copy -tag:v hvc1)")]
        }
        switch codec {
        case "av1":
            return [Diagnostic(.warning, .videoCodecSupport,
                "AV1 video: iPhones with AV1 decoding in hardware (iPhone 15 Pro and later) play it, older ones do not; "
                    + DiagnosticCode.videoCodecSupport.fix)]
        case "vp9":
            return [Diagnostic(.warning, .videoCodecSupport,
                "VP9 video: only some iPhones and iOS versions play VP9 in MP4; " + DiagnosticCode.videoCodecSupport.fix)]
        case _ where Self.iOSVideoCodecs.contains(codec):
            return []
        default:
            return [.error(.unplayableVideo,
                "\(codec) video: iOS has no decoder for it, so the attachment is created and its player does not play; "
                    + DiagnosticCode.unplayableVideo.fix)]
        }
    }
}

/// What the phone's decoders make of a file (SPEC 17), per platform and profile:
/// iOS attaches without reading the bytes and fails to draw or play them later;
/// Android's display code decodes the picture with BitmapFactory, which ignores
/// EXIF orientation and draws a cut file's rows with grey below.
package struct DecoderRules {
    let decoded: DecodedMedia

    package init(decoded: DecodedMedia) {
        self.decoded = decoded
    }

    /// Android's largest drawable bitmap (`RecordingCanvas.MAX_BITMAP_SIZE`): 100 MiB.
    static let largestBitmapBytes = 104_857_600

    /// `verdict`, an entry's under its type rule, with what the decoder adds: `undecodable_media`
    /// (an error on iOS, the failure on Android), `truncated_media`, Android's `orientation_ignored`
    /// and `large_bitmap`, iOS's `unplayable_video` and `video_codec_support`.
    func judge(_ verdict: EntryVerdict, platform: Platform, sdk: SDK) -> EntryVerdict {
        guard case .attached(let attachment, let facts, let warnings) = verdict else { return verdict }
        let found = findings(platform: platform, sdk: sdk)
        // Android's BitmapFactory returns nothing: the notification shows its text alone.
        if platform == .android, let undecodable = found.first(where: { $0.code == .undecodableMedia }) {
            return .failed(facts: facts, .undecodableMedia, undecodable.message)
        }
        return found.isEmpty ? verdict : .attached(attachment, facts: facts, warnings: warnings + found)
    }

    /// The decoder's findings for a file attached on `platform` under `sdk`'s display code
    /// (`sniff` gives the Notti iOS record's).
    package func findings(platform: Platform, sdk: SDK) -> [Diagnostic] {
        var found: [Diagnostic] = []
        if let detail = decoded.undecodable {
            let what = decoded.format.map { "\($0) \(decoded.kind.rawValue)" } ?? decoded.kind.rawValue
            if platform == .android {
                found.append(.error(.undecodableMedia,
                    "the \(what) does not decode (\(detail)): BitmapFactory returns nothing and the notification shows its text "
                        + "alone; \(DiagnosticCode.undecodableMedia.fix)"))
            } else {
                let shown = decoded.kind == .picture ? "an empty picture" : "a player that does not play"
                found.append(.error(.undecodableMedia,
                    "the \(what) does not decode (\(detail)): iOS attaches it without reading the bytes, and the phone shows \(shown); "
                        + DiagnosticCode.undecodableMedia.fix))
            }
        } else if decoded.complete == false {
            found.append(Diagnostic(.warning, .truncatedMedia, truncationMessage(platform: platform)))
        }
        switch platform {
        case .android:
            if decoded.kind == .picture { found += androidFindings(sdk: sdk) }
        case .ios:
            if decoded.kind == .video { found += iOSVideoFindings() }
        }
        return found
    }

    private func truncationMessage(platform: Platform) -> String {
        let fix = DiagnosticCode.truncatedMedia.fix
        if decoded.kind == .picture, let rows = decoded.drawnRows, let height = decoded.height, height > 0 {
            let percent = Int((Double(rows) * 100 / Double(height)).rounded(.down))
            let below = platform == .android ? " (grey below it)" : ""
            return "the file ends before its last row: the picture is drawn down to row \(rows) of \(height), \(percent)% of it\(below); \(fix)"
        }
        if let percent = decoded.drawnPercent {
            return "the file ends before its last sample: \(percent)% of the \(decoded.kind.rawValue)'s samples are there; \(fix)"
        }
        return "the file ends before its last row, frame or sample; \(fix)"
    }

    private func androidFindings(sdk: SDK) -> [Diagnostic] {
        var found: [Diagnostic] = []
        if let orientation = decoded.orientation, orientation != 1, sdk == .fcm || sdk == .onesignal || sdk == .airship {
            let shown = switch orientation {
            case 3: "upside down"
            case 6, 8: "on its side"
            default: "mirrored"
            }
            let phones = sdk == .airship ? "Airship's display code on Android 8.1 and older decodes" : "\(sdk.displayName)'s display code decodes"
            found.append(Diagnostic(.warning, .orientationIgnored,
                "the picture has EXIF orientation \(orientation): \(phones) it with BitmapFactory, which ignores it, so Android shows "
                    + "it as stored, \(shown); iPhones show it upright; \(DiagnosticCode.orientationIgnored.fix)"))
        }
        if let bytes = decoded.decodedBytes, bytes > Self.largestBitmapBytes, let width = decoded.width, let height = decoded.height {
            let scale = (Double(Self.largestBitmapBytes) / Double(bytes)).squareRoot()
            let fits = "\(Int(Double(width) * scale))×\(Int(Double(height) * scale))"
            let unchecked = decoded.complete == nil ? " (over 100,000,000 pixels: judged from its header, its rows were not checked)" : ""
            found.append(Diagnostic(.warning, .largeBitmap,
                "the picture is \(width)×\(height): decoded at full size it takes \(bytes) bytes, over Android's largest bitmap "
                    + "(\(Self.largestBitmapBytes) bytes), and phones with less memory drop it\(unchecked); resize it to at most "
                    + "\(fits)"))
        }
        return found
    }

    /// The codecs iOS plays in a notification's player (AV1 and VP9 only on some devices).
    private static let iOSVideoCodecs: Set<String> = ["h264", "hevc", "mpeg4", "mjpeg", "prores"]

    private func iOSVideoFindings() -> [Diagnostic] {
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

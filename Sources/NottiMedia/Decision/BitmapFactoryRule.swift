/// Android's decoder (SPEC 15): the picture shows when BitmapFactory decodes it.
enum BitmapFactoryRule {
    /// Android: the picture shows when BitmapFactory decodes it (JPEG, PNG, GIF's
    /// first frame, BMP, WebP; HEIF from Android 8.0, AVIF from 14), named by its
    /// sniffed type's usual extension.
    static func verdict(_ download: MediaDownload) -> EntryVerdict {
        let mime = download.sniffedMime
        let facts = download.facts
        let fileExtension: String
        var warnings: [Diagnostic] = []
        switch mime {
        case "image/jpeg": fileExtension = "jpg"
        case "image/png": fileExtension = "png"
        case "image/gif":
            fileExtension = "gif"
            if (download.frames ?? 1) > 1 {
                warnings.append(Diagnostic(
                    .warning, .animationLost,
                    "the GIF is animated, but Android's BitmapFactory decodes its first frame alone: Android shows a still; "
                        + DiagnosticCode.animationLost.fix))
            }
        case "image/bmp", "image/x-ms-bmp": fileExtension = "bmp"
        case "image/webp": fileExtension = "webp"
        case "image/heic", "image/heif":
            fileExtension = "heic"
            warnings.append(Diagnostic(
                .warning, .needsAndroidVersion,
                "\(mime) decodes on Android 8.0 (API 26) or later only: older phones show no picture; \(DiagnosticCode.needsAndroidVersion.fix)"))
        case "image/avif":
            fileExtension = "avif"
            warnings.append(Diagnostic(
                .warning, .needsAndroidVersion,
                "image/avif decodes on Android 14 (API 34) or later only: older phones show no picture; \(DiagnosticCode.needsAndroidVersion.fix)"))
        default:
            return .failed(
                facts: facts, .unsupportedType,
                "the bytes are \(mime), which Android's BitmapFactory does not decode: the notification shows without the picture; "
                    + "send a jpg, png, gif, bmp or webp picture")
        }
        let path = download.attachmentPath(fileExtension: fileExtension)
        let picture = Attachment(
            identifier: "", fileURL: FilePaths.fileURL(path), filePath: path, fileExtension: fileExtension, uti: "", kind: .image,
            mimeType: mime, size: facts.bytes ?? 0, sha256: facts.sha256 ?? "", typeHint: nil, options: nil)
        return .attached(picture, facts: facts, typing: nil, warnings: warnings)
    }

}

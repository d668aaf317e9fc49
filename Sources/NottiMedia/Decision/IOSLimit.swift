/// iOS's per-kind attachment limits, checked by `UNNotificationAttachment`
/// when the extension creates the attachment (`attachmentInvalidFileSize`).
///
/// Apple publishes "audio 5 MB, image 10 MB, video 50 MB" without saying which
/// megabyte it means, so both readings matter (SPEC 7): over the binary one
/// (2^20 bytes) iOS refuses the file, and between the two it may.
package struct IOSLimit: Sendable, Equatable {
    package let kind: MediaType.Kind
    /// The limit read in decimal megabytes: at or under it, iOS takes the file.
    package let decimalBytes: Int
    /// The limit read in binary megabytes: over it, iOS refuses the file.
    package let binaryBytes: Int

    package init(_ kind: MediaType.Kind) {
        self.kind = kind
        let megabytes = switch kind {
        case .audio: 5
        case .image: 10
        case .video: 50
        }
        decimalBytes = megabytes * 1_000_000
        binaryBytes = megabytes * 1_048_576
    }

    /// The largest limit (video's, binary): no download ever needs to read more,
    /// and `--max-bytes` may not ask for more (SPEC 12).
    package static let largestBytes = IOSLimit(.video).binaryBytes

    /// What iOS makes of a file of `bytes` bytes given this kind.
    package enum Verdict: Sendable, Equatable {
        case within
        /// Between the decimal and binary readings: iOS may refuse it (`exceeds_ios_limit`).
        case mayRefuse(Diagnostic)
        /// Over the binary reading: iOS refuses it (`too_large`), with the message.
        case refuses(String)
    }

    /// - Parameter size: how messages state the size; by default "`bytes` bytes".
    package func judge(bytes: Int, size: String? = nil) -> Verdict {
        let size = size ?? "\(bytes) bytes"
        if bytes > binaryBytes {
            return .refuses(
                "\(size) is over iOS's \(binaryBytes)-byte limit for \(kind.rawValue) attachments "
                    + "(\(megabytes) MB read as \(megabytes) MiB): iOS refuses the attachment and shows the push without it; \(fix)")
        }
        if bytes > decimalBytes {
            return .mayRefuse(Diagnostic(
                .warning, DiagnosticCode.exceedsIOSLimit,
                "\(size) is over iOS's \(megabytes) MB limit for \(kind.rawValue) attachments read as \(decimalBytes) bytes "
                    + "(Apple does not say which MB it means): iOS may refuse the attachment; \(fix)"))
        }
        return .within
    }

    private var megabytes: Int { decimalBytes / 1_000_000 }

    private var fix: String {
        switch kind {
        case .image: "resize or recompress it"
        case .audio, .video: "shorten it or lower its bit rate"
        }
    }
}

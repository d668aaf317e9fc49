import Glibc

/// One distinct media URL, downloaded once and sniffed: what every payload
/// naming it is judged from. Immutable, and shared by reference: a campaign
/// judges one download for millions of payloads, under each one's SDK.
///
/// The bytes are in `source`: this run's working file (a file with no name in
/// the attachment folder until an attachment is placed from it) or, after a 304,
/// the file an earlier run placed. Judging never touches the disk; the
/// attachments some record lists are placed from it afterwards (`place`).
package final class MediaDownload: Sendable {
    /// The transfer's facts: final URL, redirects, status, Content-Type, bytes, hash, time.
    package let facts: MediaFacts
    /// Where the bytes are (see above).
    let source: WorkingFile
    /// The attachment folder: every attachment is `<folder>/<sha256>.<ext>`.
    let folder: String
    /// What libmagic says the bytes are.
    package let sniffedMime: String
    /// The file's first bytes, for the magic-number tables some SDKs type files by.
    package let leadingBytes: [UInt8]
    /// For a GIF, its frames (counted to 2): Android shows the first alone.
    let frames: Int?
    /// The final response's Content-Disposition header, as sent.
    var contentDisposition: String? { facts.transfer?.contentDisposition }
    /// Notti's verdict on it: one of its five types or jpg, its warnings, iOS's
    /// limit for that kind. It depends on the download alone, so it is made once
    /// however many payloads name the URL.
    let notti: NottiVerdict
    /// Android's verdict on it (BitmapFactory's formats): the download's alone, so made once, not per record.
    let android: EntryVerdict
    /// What other policies made of it (`MediaResult.judged(under:)`), a few at most.
    private let judgedUnder = Guarded<[(policy: MediaPolicy, result: MediaResult)]>([])
    /// What type rules made of it (`judged(as:)`), a few at most.
    private let judgedByRule = Guarded<[(key: TypeRuleKey, verdict: EntryVerdict)]>([])
    /// The extensions its bytes were already placed under (`sha256.ext`), shared
    /// with the copies `with(facts:)` makes: each name is placed once per run.
    private let placed: PlacedNames
    /// The policy it was downloaded under (the run's fetch policy), which `--cache` keys it by.
    let fetchedUnder: MediaPolicy

    struct NottiVerdict: Sendable {
        let decision: TypeDecision
        /// `facts` with Notti's decision and the sniffed type filled in.
        let facts: MediaFacts
        /// The attachment Notti's rule makes (fixed identifier, no options), when iOS takes it.
        let attachment: Attachment
        let warnings: [Diagnostic]
        /// iOS's refusal of a file this large for the type's kind, if it refuses.
        let refusal: String?
    }

    package init(
        facts: MediaFacts, source: WorkingFile, folder: String, sniffedMime: String, leadingBytes: [UInt8],
        frames: Int? = nil, fetchedUnder: MediaPolicy? = nil, placed: PlacedNames = PlacedNames()
    ) {
        self.frames = frames
        self.facts = facts
        self.fetchedUnder = fetchedUnder ?? facts.policy
        self.source = source
        self.folder = folder
        self.sniffedMime = sniffedMime
        self.leadingBytes = leadingBytes
        self.placed = placed
        let decision = TypeDecision(sniffedMime: sniffedMime, declaredMime: facts.declaredMime, urlExtension: facts.urlExtension)
        var nottiFacts = facts
        nottiFacts.decision = decision
        nottiFacts.sniffedMime = sniffedMime
        var warnings = decision.diagnostics
        var refusal: String?
        switch IOSLimit(decision.type.kind).judge(bytes: facts.bytes ?? 0) {
        case .within: break
        case .mayRefuse(let warning): warnings.append(warning)
        case .refuses(let message): refusal = message
        }
        android = Self.androidVerdict(facts: facts, folder: folder, sniffedMime: sniffedMime, frames: frames)
        let type = decision.type
        let path = Self.attachmentPath(folder: folder, sha256: facts.sha256 ?? "", fileExtension: type.rawValue)
        notti = NottiVerdict(
            decision: decision, facts: nottiFacts,
            attachment: Attachment(
                identifier: Attachment.identifier, fileURL: FilePaths.fileURL(path), filePath: path, fileExtension: type.rawValue,
                uti: type.uti, kind: type.kind, mimeType: sniffedMime, size: facts.bytes ?? 0, sha256: facts.sha256 ?? "",
                typeHint: nil, options: nil),
            warnings: warnings, refusal: refusal)
    }

    /// Android: the picture shows when BitmapFactory decodes it (JPEG, PNG, GIF's
    /// first frame, BMP, WebP; HEIF from Android 8.0, AVIF from 14), named by its
    /// sniffed type's usual extension.
    private static func androidVerdict(facts: MediaFacts, folder: String, sniffedMime mime: String, frames: Int?) -> EntryVerdict {
        var facts = facts
        facts.sniffedMime = mime
        let fileExtension: String
        var warnings: [Diagnostic] = []
        switch mime {
        case "image/jpeg": fileExtension = "jpg"
        case "image/png": fileExtension = "png"
        case "image/gif":
            fileExtension = "gif"
            if (frames ?? 1) > 1 {
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
        let path = attachmentPath(folder: folder, sha256: facts.sha256 ?? "", fileExtension: fileExtension)
        let picture = Attachment(
            identifier: "", fileURL: FilePaths.fileURL(path), filePath: path, fileExtension: fileExtension, uti: "", kind: .image,
            mimeType: mime, size: facts.bytes ?? 0, sha256: facts.sha256 ?? "", typeHint: nil, options: nil)
        return .attached(picture, facts: facts, warnings: warnings)
    }

    /// An SDK's type rule's verdict on this download for entries alike in `key`, made by `make` the first time.
    func judged(as key: TypeRuleKey, _ make: () -> EntryVerdict) -> EntryVerdict {
        judgedByRule.withLock { (known: inout [(key: TypeRuleKey, verdict: EntryVerdict)]) in
            if let verdict = known.first(where: { $0.key == key })?.verdict { return verdict }
            let verdict = make()
            // A few at most: one per SDK and type hint that names the URL.
            if known.count < 16 { known.append((key, verdict)) }
            return verdict
        }
    }

    /// This download as `policy` judges it, made by `make` the first time a policy asks.
    func judged(under policy: MediaPolicy, _ make: () -> MediaResult) -> MediaResult {
        judgedUnder.withLock { (known: inout [(policy: MediaPolicy, result: MediaResult)]) in
            if let result = known.first(where: { $0.policy == policy })?.result { return result }
            let result = make()
            known.append((policy, result))
            return result
        }
    }

    /// The same download with other facts (judged under another policy).
    func with(facts: MediaFacts) -> MediaDownload {
        MediaDownload(
            facts: facts, source: source, folder: folder, sniffedMime: sniffedMime, leadingBytes: leadingBytes,
            frames: frames, fetchedUnder: fetchedUnder, placed: placed)
    }

    /// Whether an attachment of this download was placed in this run.
    var wasPlaced: Bool { !placed.isEmpty }

    /// Where an attachment of these bytes named `fileExtension` lives: a pure function
    /// of the content, so judging can name the file before it exists.
    static func attachmentPath(folder: String, sha256: String, fileExtension: String) -> String {
        "\(folder)/\(sha256).\(fileExtension)"
    }

    /// Makes `attachment`'s file exist: a hard link to the bytes (a copy where
    /// links cannot be made), once per name per run.
    /// - Returns: true the first time this name is placed (the cache records it then).
    /// - Throws: the errno when the file cannot be made, or a non-file holds its name.
    func place(_ attachment: Attachment, ownedPaths: OwnedPaths) throws(Errno) -> Bool {
        // Keyed by extension: the hash is this download's own. Every payload of a campaign
        // comes here, and cutting the file name out of its path per payload was 0.7 µs.
        try placed.once(attachment.fileExtension) { () throws(Errno) in
            try source.place(at: attachment.filePath, ownedPaths: ownedPaths)
        }
    }
}

/// The names a download's attachments were placed under in this run.
package final class PlacedNames: Sendable {
    private let names = Guarded<Set<String>>([])

    package init() {}

    /// Whether any name was placed.
    var isEmpty: Bool { names.withLock { (names: inout Set<String>) in names.isEmpty } }

    /// Runs `make` unless `name` was made already; a failed `make` is tried again next time.
    func once(_ name: String, _ make: () throws(Errno) -> Void) throws(Errno) -> Bool {
        // Held while placing: two payloads placing one name at once would race on link/copy.
        try names.withLock { (names: inout Set<String>) throws(Errno) -> Bool in
            guard !names.contains(name) else { return false }
            try make()
            names.insert(name)
            return true
        }
    }
}

/// What a type rule's verdict on a download depends on besides the download: the SDK,
/// and the entry's type field and identifier.
struct TypeRuleKey: Equatable, Sendable {
    var sdk: SDK
    var typeField: String?
    var identifier: String?
}

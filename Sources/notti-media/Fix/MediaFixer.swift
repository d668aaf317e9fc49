import Glibc
import NottiMedia

/// One URL of `fix` (SPEC 19): the whole file downloaded again, whatever the
/// caps, drawn anew by the decode worker under the strictest record's cap, then
/// decoded and judged under every record that names the URL before it gets its
/// name in DIR. Pictures, `hev1` video (re-muxed) and sounds (MP3); a video that
/// needs re-encoding is listed as not fixed.
struct MediaFixer {
    let downloads: MediaDownloader
    let decoder: DecodeWorker
    let folder: FixFolder
    let maxSide: Int
    let targetBytes: Int
    let timeoutSeconds: Double
    let baseURL: String?

    /// What became of one URL: a manifest line.
    struct Outcome {
        var url: String
        var cured: [DiagnosticCode] = []
        var rendition: Rendition?
        var newURL: String?
        var before: Before
        var changes: [String] = []
        var notFixed: (code: DiagnosticCode, message: String)?
        /// A video's first frame, drawn for Android's records (which show no video) and meant for
        /// `android.notification.image`; the video itself stays the iPhones'.
        var androidStill: Still?

        struct Still {
            var rendition: Rendition
            var changes: [String]
            var newURL: String?
        }

        struct Rendition {
            var file: String
            var bytes: Int
            var type: String
            var width: Int?
            var height: Int?
        }

        struct Before {
            var bytes: Int?
            var type: String?
            var width: Int?
            var height: Int?
        }

        /// The `fixes.jsonl` line, its keys in SPEC 19's order.
        var json: JSONValue {
            var members = [JSONMember("url", .string(url))]
            if let rendition {
                members += [
                    JSONMember("cured", .array(cured.map { .string($0.rawValue) })),
                    JSONMember("file", .string(rendition.file)),
                    JSONMember("bytes", .int(rendition.bytes)),
                    JSONMember("type", .string(rendition.type)),
                    JSONMember("width", rendition.width.map { .int($0) } ?? .null),
                    JSONMember("height", rendition.height.map { .int($0) } ?? .null),
                ]
            }
            members.append(JSONMember("before", .object([
                JSONMember("bytes", before.bytes.map { .int($0) } ?? .null),
                JSONMember("type", before.type.map { .string($0) } ?? .null),
                JSONMember("width", before.width.map { .int($0) } ?? .null),
                JSONMember("height", before.height.map { .int($0) } ?? .null),
            ])))
            if rendition != nil { members.append(JSONMember("changes", .array(changes.map { .string($0) }))) }
            if let newURL { members.append(JSONMember("newUrl", .string(newURL))) }
            if let still = androidStill {
                if rendition == nil { members.insert(JSONMember("cured", .array(cured.map { .string($0.rawValue) })), at: 1) }
                members.append(JSONMember("androidStill", .object([
                    JSONMember("file", .string(still.rendition.file)), JSONMember("bytes", .int(still.rendition.bytes)),
                    JSONMember("type", .string(still.rendition.type)),
                    JSONMember("width", still.rendition.width.map { .int($0) } ?? .null),
                    JSONMember("height", still.rendition.height.map { .int($0) } ?? .null),
                    JSONMember("changes", .array(still.changes.map { .string($0) })),
                ] + (still.newURL.map { [JSONMember("newUrl", .string($0))] } ?? []))))
            }
            if let notFixed {
                members.append(JSONMember("notFixed", .object([
                    JSONMember("code", .string(notFixed.code.rawValue)), JSONMember("message", .string(notFixed.message)),
                ])))
            }
            return .object(members)
        }
    }

    /// What became of `target`: its file's findings cured where a new file cures them, and a finding
    /// about the host (SPEC 19) never stopping that: once something was written, the line carries the
    /// host's first finding as not fixed (unless a finding of the file already is).
    func fix(_ target: FixTargets.Target) -> Outcome {
        var outcome = cure(target)
        if outcome.rendition != nil || outcome.androidStill != nil, outcome.notFixed == nil,
           let host = target.findings.first(where: { $0.code.subject == .host }) {
            outcome.notFixed = (host.code, host.diagnostic.message)
        }
        return outcome
    }

    private func cure(_ target: FixTargets.Target) -> Outcome {
        let facts = target.facts
        var outcome = Outcome(
            url: target.url,
            before: Outcome.Before(
                bytes: facts.bytes, type: facts.sniffedMime.map(Self.typeName), width: facts.dimensions?.width,
                height: facts.dimensions?.height))
        let fileFindings = target.findings.filter { $0.code.subject != .host }
        // What only the origin can mend (a 404, a timeout, a cut file), or a host alone: the first such finding.
        if let origin = fileFindings.first(where: { $0.code.subject != .file }) ?? (fileFindings.isEmpty ? target.findings.first : nil) {
            outcome.notFixed = (origin.code, origin.diagnostic.message)
            return outcome
        }
        let download: MediaDownloader.WholeDownload
        switch downloads.downloadWhole(target.url, timeoutSeconds: timeoutSeconds) {
        case .success(let whole): download = whole
        case .failure(let diagnostic):
            outcome.notFixed = (diagnostic.code, diagnostic.message)
            return outcome
        }
        defer { download.file.release() }
        let bytes = download.bytes
        outcome.before.bytes = bytes
        outcome.before.type = Self.typeName(download.mime)
        guard let kind = DecodedMedia.kind(ofMime: download.mime) else {
            let first = target.findings[0]
            outcome.notFixed = (first.code, "\(download.mime) is no picture, video or sound a phone shows; \(first.diagnostic.message)")
            return outcome
        }
        let decoded = decoder.decode(
            // The check decoded the same bytes: by their hash, the worker's answer is reused.
            opening: { download.file.withPath { open($0, O_RDONLY | O_CLOEXEC) } }, mime: download.mime, sha256: download.sha256,
            within: timeoutSeconds)
        outcome.before.width = decoded?.width ?? outcome.before.width
        outcome.before.height = decoded?.height ?? outcome.before.height
        if let why = decoded?.undecodable {
            outcome.notFixed = (.undecodableMedia, "the \(outcome.before.type ?? "file") does not decode: \(why)")
            return outcome
        }
        // Android shows no video or sound in a notification: its records' verdict on a sound is not a file's
        // to cure (that finding stays, as not fixed); a video's first frame is drawn for them as a still, for
        // `android.notification.image`. What follows is for the iPhones.
        var needs = target.needs
        var findings = fileFindings
        if kind != .picture, needs.contains(where: { $0.platform == .android }) {
            let android = needs.filter { $0.platform == .android }
            needs.removeAll { $0.platform == .android }
            if let refused = findings.first(where: { $0.code == .unsupportedType }) {
                findings.removeAll { $0.code == .unsupportedType }
                var why = ""
                if kind == .video {
                    switch still(of: download, needs: android) {
                    case .success(let still):
                        outcome.androidStill = still
                        outcome.cured = [refused.code]
                    case .failure(let failure): why = "; no still of it could be made: \(failure.message)"
                    }
                }
                if outcome.androidStill == nil {
                    outcome.notFixed = (refused.code, "Android shows no video or sound in a notification, whatever the file: "
                        + refused.diagnostic.message + why)
                }
            }
            guard !findings.isEmpty, !needs.isEmpty else { return outcome }
        }
        // The strictest record's cap (an animation's bound), and under it the target: a still picture's, or
        // iOS's limit for the kind read the strict way (audio 5,000,000 bytes, video 50,000,000).
        let cap = needs.map(\.maxBytes).min() ?? targetBytes
        let limit = switch kind {
        case .picture: min(targetBytes, cap)
        case .audio: min(5_000_000, cap)
        case .video: min(50_000_000, cap)
        }
        switch render({ download.file.withPath { open($0, O_RDONLY | O_CLOEXEC) } }, mime: download.mime, limit: limit, cap: cap, needs: needs) {
        case .failure(let failure):
            outcome.notFixed = (failure.code, failure.message)
        case .success(let (rendition, fixed)):
            outcome.rendition = rendition
            outcome.cured += findings.map(\.code)
            outcome.changes = Self.changes(fixed, before: outcome.before, sourceType: outcome.before.type)
            outcome.newURL = newURL(of: rendition.file)
        }
        return outcome
    }

    struct Failure: Error {
        var code: DiagnosticCode
        var message: String
    }

    /// The worker draws the rendition into a partial file of DIR; it is decoded and judged under
    /// every need, then named by its content.
    private func render(
        _ openSource: () -> Int32, mime: String, limit: Int, cap: Int, needs: [FixTargets.Need]
    ) -> Result<(Outcome.Rendition, DecodeWorker.FixedMedia), Failure> {
        let partial: (path: String, descriptor: Int32)
        switch folder.makePartial() {
        case .success(let made): partial = made
        case .failure(let error): return .failure(Failure(code: .writeError, message: "cannot write in \(folder.path): \(error.message)"))
        }
        var named = false
        defer {
            if !named { OwnedPaths.run.remove(partial.path) }
        }
        let source = openSource()
        guard source >= 0 else { return .failure(Failure(code: .writeError, message: "cannot read the downloaded file")) }
        let written = decoder.fix(
            source: source, mime: mime, maxSide: maxSide, targetBytes: limit, cap: cap, output: partial.descriptor, within: timeoutSeconds)
        close(source)
        let closed = close(partial.descriptor) == 0
        var fixed: DecodeWorker.FixedMedia
        switch written {
        case .success(let picture) where closed: fixed = picture
        case .success: return .failure(Failure(code: .writeError, message: "cannot write in \(folder.path): \(Errno(errno).message)"))
        case .failure(let failure):
            return .failure(Failure(code: .tooLarge, message: "no rendition could be made: \(failure.message)"))
        }
        // Verified as the phones will read it: decoded whole, and judged under each record's rules and cap.
        let renditionMime = ["png": "image/png", "gif": "image/gif", "mp4": "video/mp4", "mp3": "audio/mpeg"][fixed.type] ?? "image/jpeg"
        var info = stat()
        let bytes = stat(partial.path, &info) == 0 ? Int(info.st_size) : 0
        guard let decoded = decoder.decode(fileAt: partial.path, mime: renditionMime, sha256: nil, within: timeoutSeconds),
              decoded.undecodable == nil, decoded.complete == true
        else {
            return .failure(Failure(code: .undecodableMedia, message: "the rendition did not decode whole, so it is not written"))
        }
        guard let sha256 = SHA256.hex(ofFileAt: partial.path) else {
            return .failure(Failure(code: .writeError, message: "cannot read the rendition back"))
        }
        let file = "\(sha256).\(fixed.type)"
        for need in needs {
            // The download's cap, as the transfer applies it; then the one judge, as each record's phone would.
            if bytes > need.maxBytes {
                return .failure(Failure(code: .tooLarge, message: "the rendition's \(bytes) bytes are over \(need.sdk.rawValue)'s "
                    + "\(need.maxBytes)-byte cap on \(need.platform.rawValue)"))
            }
            if let finding = Self.findings(
                ofRendition: partial.path, servedAt: newURL(of: file) ?? "https://renditions.invalid/\(file)", mime: renditionMime,
                bytes: bytes, sha256: sha256, decoded: decoded, type: fixed.type, need: need
            ).first {
                return .failure(Failure(code: finding.code, message: "the rendition would still fail: \(finding.message)"))
            }
        }
        do {
            let name = try folder.name(partial: partial.path, sha256: sha256, fileExtension: fixed.type)
            named = true
            // A picture's size as written; a video's as the decoder reads it back; a sound has none.
            fixed.width = fixed.width ?? decoded.width
            fixed.height = fixed.height ?? decoded.height
            return .success((Outcome.Rendition(file: name, bytes: bytes, type: fixed.type, width: fixed.width, height: fixed.height), fixed))
        } catch {
            return .failure(Failure(code: .writeError, message: "cannot name the rendition in \(folder.path): \(error.message)"))
        }
    }

    /// What the judge finds of the rendition at `path` under `need`'s profile and limits, served at `url`
    /// with its type stated as the rewritten payload states it: every finding but what the platform does to
    /// any file (Android's still of a GIF), the verdict's failure first.
    static func findings(
        ofRendition path: String, servedAt url: String, mime: String, bytes: Int, sha256: String, decoded: DecodedMedia,
        type: String, need: FixTargets.Need
    ) -> [Diagnostic] {
        let profile = SDKProfile.of(need.sdk, on: need.platform) ?? .androidFCM
        let verdict = EntryJudge.judge(
            file: path, servedAt: url, sniffedMime: mime, bytes: bytes, sha256: sha256, decoded: decoded,
            typeField: PayloadRewrite.statedType(ofRendition: type, sdk: need.sdk), profile: profile, policy: need.policy)
        switch verdict {
        case nil: return [.error(.invalidURL, "\(url) is not a URL the tool downloads")]
        case .failed(_, _, let reason, let message)?: return [.error(reason, message)]
        case .attached(_, _, _, let warnings)?: return warnings.filter { $0.code.subject != .platform }
        case .bundleResource(_, let message)?: return [Diagnostic(.warning, .bundleResource, message)]
        }
    }

    /// The video's first frame as a still for Android's records: written by the worker as a JPEG into a
    /// partial file of DIR, then drawn as any picture is, under those records' caps and `--target-bytes`.
    private func still(of download: MediaDownloader.WholeDownload, needs: [FixTargets.Need]) -> Result<Outcome.Still, Failure> {
        let frame: (path: String, descriptor: Int32)
        switch folder.makePartial() {
        case .success(let made): frame = made
        case .failure(let error): return .failure(Failure(code: .writeError, message: "cannot write in \(folder.path): \(error.message)"))
        }
        defer { OwnedPaths.run.remove(frame.path) }
        let source = download.file.withPath { open($0, O_RDONLY | O_CLOEXEC) }
        guard source >= 0 else {
            close(frame.descriptor)
            return .failure(Failure(code: .writeError, message: "cannot read the downloaded file"))
        }
        let written = decoder.poster(source: source, output: frame.descriptor, within: timeoutSeconds)
        close(source)
        guard close(frame.descriptor) == 0 else {
            return .failure(Failure(code: .writeError, message: "cannot write in \(folder.path): \(Errno(errno).message)"))
        }
        if case .failure(let failure) = written { return .failure(Failure(code: .unsupportedType, message: failure.message)) }
        let cap = needs.map(\.maxBytes).min() ?? targetBytes
        switch render({ open(frame.path, O_RDONLY | O_CLOEXEC) }, mime: "image/jpeg", limit: min(targetBytes, cap), cap: cap, needs: needs) {
        case .failure(let failure): return .failure(failure)
        case .success(let (rendition, fixed)):
            var changes = ["the video's first frame as a still for Android, which shows no video in a notification "
                + "(android.notification.image; the iPhones keep the video)"]
            changes += Self.changes(fixed, before: Outcome.Before(type: "jpg"), sourceType: "jpg")
            return .success(Outcome.Still(rendition: rendition, changes: changes, newURL: newURL(of: rendition.file)))
        }
    }

    /// Where a rendition is served once DIR is uploaded to `--base-url`.
    private func newURL(of file: String) -> String? {
        baseURL.map { $0.hasSuffix("/") ? $0 + file : $0 + "/" + file }
    }

    /// What was done, in plain words: "converted WebP → JPEG", "rotated 90° (EXIF 6)",
    /// "resized 4032×3024 → 2048×1536", "JPEG quality 82".
    static func changes(_ fixed: DecodeWorker.FixedMedia, before: Outcome.Before, sourceType: String?) -> [String] {
        if let change = fixed.change { return [change] }
        var changes: [String] = []
        let target = ["png": "PNG", "gif": "GIF"][fixed.type] ?? "JPEG"
        let names = ["jpg": "JPEG", "png": "PNG", "gif": "GIF", "webp": "WebP", "heic": "HEIC", "heif": "HEIF", "avif": "AVIF",
                     "bmp": "BMP", "tiff": "TIFF"]
        if let sourceType, names[sourceType] ?? sourceType.uppercased() != target {
            changes.append("converted \(names[sourceType] ?? sourceType.uppercased()) → \(target)")
        }
        let turns = [2: "mirrored", 3: "rotated 180°", 4: "flipped upside down", 5: "rotated 90° and mirrored", 6: "rotated 90°",
                     7: "rotated 270° and mirrored", 8: "rotated 270°"]
        if let turn = turns[fixed.orientation] { changes.append("\(turn) (EXIF \(fixed.orientation))") }
        // The size as drawn: the source upright, against the rendition.
        let sideways = [5, 6, 7, 8].contains(fixed.orientation)
        if let sourceWidth = fixed.sourceWidth, let sourceHeight = fixed.sourceHeight, let width = fixed.width, let height = fixed.height {
            let before = sideways ? (sourceHeight, sourceWidth) : (sourceWidth, sourceHeight)
            if before != (width, height) { changes.append("resized \(before.0)×\(before.1) → \(width)×\(height)") }
        }
        if let frames = fixed.frames { changes.append("animation kept: \(frames) frames") }
        if let lost = fixed.framesLost {
            changes.append("animation lost: no smaller GIF fits, the first frame is kept (\(lost) frame\(lost == 1 ? "" : "s") dropped)")
        }
        if let quality = fixed.quality { changes.append("JPEG quality \(quality)") }
        return changes
    }

    /// A sniffed MIME type as the manifest names types: jpg, png, gif, webp, heic, avif, bmp, tiff, mp4, mp3, ...
    static func typeName(_ mime: String) -> String {
        if let known = MediaType(sniffedMime: mime) { return known.rawValue }
        let names = ["image/webp": "webp", "image/heic": "heic", "image/heif": "heif", "image/avif": "avif", "image/bmp": "bmp",
                     "image/x-ms-bmp": "bmp", "image/tiff": "tiff", "audio/x-m4a": "m4a", "video/quicktime": "mov"]
        return names[mime] ?? String(mime.split(separator: "/").last ?? Substring(mime))
    }
}

import Glibc
import NottiMedia

/// The pictures a preview card shows (SPEC 17): small renditions of an attached
/// picture as each phone draws it, drawn from the decoded pixels by the decode
/// worker into the page's media folder as `<sha256>-<rendition>.jpg`. The page
/// never holds the downloaded file itself.
///
/// Drawn on the fetch threads, as each record is rendered (`HTMLPreview.drawPictures`),
/// so that a slow picture holds back no record written after it; the writer then
/// finds each card's pictures drawn. One content is drawn by one thread at a time
/// (another asking for it waits for that drawing), and once.
final class PreviewPictures: @unchecked Sendable {
    /// Each phone's drawing of a picture; the worker's render.c says how each is drawn.
    enum Rendition: String, CaseIterable {
        /// The collapsed banner's square, centre-cropped thumbnail.
        case iosThumbnail = "ios-thumbnail"
        /// The long-press view: the whole picture, upright.
        case iosExpanded = "ios-expanded"
        /// BigPictureStyle's centerCrop, upright (ImageDecoder, Android 9 and later).
        case android
        /// The same as BitmapFactory decodes it: the EXIF orientation ignored.
        case androidAsStored = "android-as-stored"
    }

    /// What a card shows for its attachment.
    enum Drawn {
        /// The renditions' file names in the media folder.
        case pictures([Rendition: String])
        /// Why the page has no picture of it (the phone's decoder cannot read it, say).
        case notDrawn(String)
    }

    /// How long one picture's renditions may take, as a Notti download's deadline.
    private static let seconds = 20.0

    private let folder: String
    private let decoder: DecodeWorker
    /// Renditions an earlier page stored: named by content, they hold the same drawing.
    private let earlier: Set<String>
    /// Guards what follows, and is signalled when a drawing ends.
    private let condition = Condition()
    /// The renditions this page shows, by file name.
    private var drawnNames: Set<String> = []
    /// Contents the worker could not draw, and why.
    private var failed: [String: String] = [:]
    /// Contents a thread is drawing now.
    private var drawing: Set<String> = []
    /// The first rendition that could not be written in the folder (a full disk, say): the page fails.
    private var firstWriteFailure: String?

    init(folder: String, decoder: DecodeWorker, earlier: Set<String>) {
        self.folder = folder
        self.decoder = decoder
        self.earlier = earlier
    }

    /// `<64 hex digits>-<rendition>.jpg`, as renditions are named.
    static func isRenditionName(_ name: String) -> Bool {
        guard name.hasSuffix(".jpg"), name.utf8.count > 65, Array(name.utf8)[64] == UInt8(ascii: "-") else { return false }
        let rendition = name.dropFirst(65).dropLast(4)
        return ContentHashName.isHash(name.prefix(64)) && Rendition(rawValue: String(rendition)) != nil
    }

    /// The renditions this page shows, by file name (read once the run is over).
    var referenced: Set<String> { condition.withLock { drawnNames } }
    /// The first rendition that could not be written in the folder (read once the run is over).
    var writeFailure: String? { condition.withLock { firstWriteFailure } }

    /// The renditions of `attachment` (a picture the phone attached), drawn once per content.
    func draw(_ attachment: Attachment, decoded: DecodedMedia?, as renditions: [Rendition]) -> Drawn {
        guard let decoded else { return .notDrawn("not drawn: the file was not decoded") }
        if let why = decoded.undecodable { return .notDrawn("nothing to draw: the phone's decoder cannot read it (\(why))") }
        guard decoded.complete != nil else { return .notDrawn("not drawn: more than 100,000,000 pixels (judged from its header)") }
        let content = attachment.sha256
        let names = Dictionary(uniqueKeysWithValues: renditions.map { ($0, "\(content)-\($0.rawValue).jpg") })
        condition.lock()
        while drawing.contains(content) { condition.wait() }
        if let why = failed[content] {
            condition.unlock()
            return .notDrawn("not drawn: \(why)")
        }
        let missing = renditions.filter { !drawnNames.contains(names[$0]!) && !earlier.contains(names[$0]!) }
        guard !missing.isEmpty else {
            drawnNames.formUnion(names.values)
            condition.unlock()
            return .pictures(names)
        }
        drawing.insert(content)
        condition.unlock()
        // The worker draws outside the lock: other contents are drawn meanwhile.
        let why = render(attachment, decoded: decoded, missing.map { ($0, names[$0]!) })
        condition.lock()
        drawing.remove(content)
        if let why { failed[content] = why } else { drawnNames.formUnion(names.values) }
        condition.broadcast()
        condition.unlock()
        return why.map { .notDrawn("not drawn: \($0)") } ?? .pictures(names)
    }

    private func noteWriteFailure(_ failure: String) {
        condition.withLock { if firstWriteFailure == nil { firstWriteFailure = failure } }
    }

    /// Creates the renditions' files and has the worker draw into them; removes them when it cannot.
    /// - Returns: nil when drawn, else why not.
    private func render(_ attachment: Attachment, decoded: DecodedMedia, _ renditions: [(Rendition, String)]) -> String? {
        let source = open(attachment.filePath, O_RDONLY | O_CLOEXEC)
        guard source >= 0 else { return "the downloaded file is gone (\(Errno(errno).message))" }
        defer { close(source) }
        var created: [(path: String, descriptor: Int32)] = []
        func discard() {
            for file in created {
                close(file.descriptor)
                OwnedPaths.run.remove(file.path)
            }
        }
        for (_, name) in renditions {
            let path = "\(folder)/\(name)"
            switch OwnedPaths.run.createFile(path, mode: 0o666) {
            case .success(let descriptor): created.append((path, descriptor))
            case .failure(let error):
                discard()
                noteWriteFailure("cannot write \(path): \(error.message)")
                return "the page's media folder could not hold it"
            }
        }
        let why = decoder.render(
            source: source, mime: attachment.mimeType, drawnRows: decoded.complete == false ? decoded.drawnRows : nil,
            renditions: renditions.map(\.0.rawValue), outputs: created.map(\.descriptor), within: Self.seconds)
        if let why {
            discard()
            return why
        }
        for file in created {
            let closed = close(file.descriptor) == 0
            OwnedPaths.run.release(file.path)
            if !closed { noteWriteFailure("cannot write \(file.path): \(Errno(errno).message)") }
        }
        return nil
    }
}

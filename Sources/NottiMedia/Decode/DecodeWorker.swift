import Glibc
internal import CDecodeDoor
import Synchronization

/// The decode workers (`notti-media-decode`, SPEC 17), seen from the tool: a pool for
/// pictures (the format libraries; libvips when a file needs it), one for each core at
/// most (opened as distinct contents arrive), and one for video and audio (its own MP4
/// and MP3 readers, then FFmpeg), each started on the first file that may need it, fed
/// one file at a time over a SOCK_SEQPACKET socket (the sniffed type, carrying the
/// file's descriptor), and
/// kept while files arrive: one unused for half a second is stopped, its answers
/// kept, and started again by the next file that needs it (`stopIdleWorkers`).
/// libvips and FFmpeg load sixty to a hundred shared libraries: in the workers,
/// `--version`, a payload without media and everything before the first decode
/// start as fast as without them. Two workers load their libraries side by side,
/// and neither holds the other's in memory: one worker opening both took their
/// two start-ups in turn before a campaign's first video was read, and the
/// memory of both. And decoders are large C code reading hostile bytes: each
/// worker has its own memory limit, and one that crashes, is killed or does not
/// answer by the record's deadline costs that file alone (`undecodable_media`,
/// "the decoder stopped") and is started again for the next.
///
/// One file at a time per worker (the workers of a pipeline share them, in
/// turn); each content is decoded once per run.
package final class DecodeWorker: Sendable {
    /// The picture workers, a pool sized to the machine (each started on its first file); empty when there is
    /// no worker executable (a library user without it): nothing is decoded.
    private let pictureWorkers: [WorkerProcess]
    private let streams: WorkerProcess?
    /// Off (`--no-decode`): nothing is decoded, and a missing worker is not news.
    private let off: Bool
    /// Hands renders, and decodes without a content hash, to the picture workers in turn.
    private let turn = Atomic<Int>(0)

    /// - Parameters:
    ///   - executable: the worker to run; nil: `notti-media-decode` beside the running executable
    ///     (`NOTTI_MEDIA_DECODER` names another).
    ///   - pictureWorkers: how many picture workers may run at once (the tool: the cores, at most `--jobs`).
    ///     A picture worker holds about 4 MB (the format libraries; libvips only once a file needs it), so
    ///     each core decodes; the stream worker stays one (FFmpeg's libraries, when a file needs them, hold 27 MB).
    ///   - cancellation: the run's: a request in flight is abandoned when it is cancelled (the worker stopped).
    package init(executable: String? = nil, pictureWorkers count: Int = 1, cancellation: Cancellation? = nil) {
        let executable = executable ?? Self.locate()
        let unusable = Unusable()
        pictureWorkers = executable.map { executable in
            (0..<max(1, count)).map { _ in
                WorkerProcess(executable: executable, kind: .pictures, cancellation: cancellation, unusable: unusable)
            }
        } ?? []
        streams = executable.map { WorkerProcess(executable: $0, kind: .streams, cancellation: cancellation, unusable: unusable) }
        off = false
        self.unusable = unusable
        self.cancellation = cancellation
    }

    /// Set when the workers cannot be used at all (SPEC 17): a run stops at its first decode then, exit 2. Kept
    /// by the command past the workers' own end (`unusableReason` reads it).
    package let unusable: Unusable
    private let cancellation: Cancellation?

    /// Why no decode can be made on this machine (a worker that cannot start, speaks another door, or whose
    /// filter cannot be installed), once a decode found it; the command then ends with exit 2, naming it.
    package var unusableReason: String? { unusable.reason }

    /// No worker (`--no-decode`: the user knows files are not decoded): every decode answers nil, silently.
    package init(off: Void) {
        pictureWorkers = []
        streams = nil
        self.off = true
        unusable = Unusable()
        cancellation = nil
    }

    /// The first picture worker (the one `prepare` starts), nil without a worker.
    private var pictures: WorkerProcess? { pictureWorkers.first }

    /// The picture worker each content read so far belongs to (its answer is in that worker's memo), and how
    /// many contents were dealt. Bounded as each worker's answers are (a forgotten content is dealt again, and
    /// decoded again); the count is not the memo's, which stops growing at its bound (read as the count, every
    /// content after the 4,096th went to one worker).
    private let dealing = Guarded((owners: BoundedMemo<Int>(capacity: WorkerProcess.answersKept), dealt: 0))

    /// How many distinct contents open each picture worker after the first. A campaign naming a few pictures
    /// keeps one worker (each decode takes a millisecond or two: a second would hold its 4.4 MiB and cost its
    /// start for nothing), and a batch or a folder of many opens the pool within its first few files.
    private static let contentsPerWorker = 8

    /// How many picture workers are open after `contents` distinct contents.
    private func openWorkers(after contents: Int) -> Int {
        min(pictureWorkers.count, 1 + contents / Self.contentsPerWorker)
    }

    /// The worker that reads files sniffed as `mime`: for a picture, the one its content (`sha256`) belongs to,
    /// so that the same content always meets the same worker (decoded once, by its memo), new contents dealt
    /// in turn to the open workers; without a content, the next open one in turn, or of every picture worker
    /// when `anyPictureWorker` (`fix`'s encodes, one per core).
    private func worker(for mime: String, sha256: String? = nil, anyPictureWorker: Bool = false) -> WorkerProcess? {
        guard mime.hasPrefix("image/") else { return streams }
        guard pictureWorkers.count > 1 else { return pictures }
        if let sha256 {
            return pictureWorkers[dealing.withLock { dealing in
                if let owner = dealing.owners.value(for: sha256) { return owner }
                let owner = dealing.dealt % openWorkers(after: dealing.dealt)
                dealing.owners.keep(owner, for: sha256)
                dealing.dealt &+= 1
                return owner
            }]
        }
        let open = anyPictureWorker ? pictureWorkers.count : openWorkers(after: dealing.withLock { $0.dealt })
        return pictureWorkers[turn.wrappingAdd(1, ordering: .relaxed).oldValue % open]
    }

    /// For the tests' memory probe: each picture worker's running process, and how many contents the tool
    /// remembers (the owners' memo, and each picture worker's answers).
    package var probe: (pictureWorkers: [pid_t], owners: Int, answers: [Int]) {
        let workers = pictureWorkers.map(\.probe)
        return (workers.compactMap(\.pid), dealing.withLock { $0.owners.count }, workers.map(\.answers))
    }

    /// Whether the process has said that there is no worker.
    private static let saidMissing = Guarded(false)

    /// A broken install decodes nothing: said once on stderr, on the first file that needed decoding, so
    /// that no null `media.decoded` looks like a decoder's verdict.
    private static func sayMissingOnce() {
        guard saidMissing.withLock({ (said: inout Bool) in defer { said = true }; return !said }) else { return }
        let line = "notti-media: warning: the decode worker notti-media-decode is not installed beside notti-media "
            + "(or in ../lib/notti-media): files are not decoded, media.decoded is null\n"
        _ = Array(line.utf8).withUnsafeBytes { writeAll(STDERR_FILENO, $0) }
    }

    /// `$NOTTI_MEDIA_DECODER`, else `notti-media-decode` in the running executable's folder (a build),
    /// else in `../lib/notti-media/` from it (the package: /usr/lib/notti-media).
    package static func locate() -> String? {
        if let named = getenv("NOTTI_MEDIA_DECODER").map({ String(cString: $0) }), !named.isEmpty {
            return access(named, X_OK) == 0 ? named : nil
        }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        let executable = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let slash = executable.lastIndex(of: "/") else { return nil }
        let folder = String(executable[..<slash])
        return [folder + "/notti-media-decode", folder + "/../lib/notti-media/notti-media-decode"].first { access($0, X_OK) == 0 }
    }

    /// Starts the first picture worker now, if it is not running, so that its start overlaps the download
    /// whose file it will read; most media are pictures. The others start on the files that reach them.
    /// The stream worker starts on the first video or audio file, beside it. Never waits.
    package func prepare() {
        pictures?.prepare()
    }

    /// Starts now the workers that read files sniffed as `mimes` (`sniff` knows the types of the files it
    /// will read), taking types from the sequence only until every worker is started.
    package func prepare(forMimes mimes: some Sequence<String>) {
        var started: [WorkerProcess] = []
        for mime in mimes where DecodedMedia.kind(ofMime: mime) != nil {
            guard let worker = worker(for: mime) else { return }
            guard !started.contains(where: { $0 === worker }) else { continue }
            worker.prepare()
            started.append(worker)
            if started.count == 2 { return }  // both: pictures, and video and audio
        }
    }

    /// What the phone's decoder makes of the file at `path` (sniffed as `mime`), or nil when its type is not
    /// one phones decode as media, or there is no worker. The same content (`sha256`) is decoded once.
    package func decode(fileAt path: String, mime: String, sha256: String?, within seconds: Double) -> DecodedMedia? {
        decode(opening: { open(path, O_RDONLY | O_CLOEXEC) }, mime: mime, sha256: sha256, within: seconds)
    }

    /// As `decode(fileAt:)`, for a file `open` opens (returning a descriptor, or -1): called only when the
    /// type is one phones decode, and before the wait for the worker, so that whatever the caller holds
    /// to name the file (a working file's lock) is held for the open alone, not for other files' decodes.
    package func decode(opening open: () -> Int32, mime: String, sha256: String?, within seconds: Double) -> DecodedMedia? {
        // Bytes libmagic names no type of (a CAF: application/octet-stream) are offered to the stream decoder,
        // which finds a sound by its own signatures: a CAF attached as caf is read as the sound iOS plays (SPEC 17).
        // Bytes of any other type no phone decodes: what a picture decoder makes of them is known without reading them.
        let probed = mime == Self.unnamedMime
        guard probed || DecodedMedia.kind(ofMime: mime) != nil else { return pictures == nil ? nil : .unreadable(mime: mime) }
        guard let worker = probed ? streams : worker(for: mime, sha256: sha256) else {
            if !off { Self.sayMissingOnce() }
            return nil
        }
        stopIdleWorkers(besides: worker)
        let descriptor = open()
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        let decoded = worker.decode(descriptor, mime: mime, sha256: sha256, milliseconds: max(1, Int(seconds * 1000)))
        // The first decode that finds the workers unusable stops the run (SPEC 17: exit 2, naming why).
        if unusable.reason != nil { cancellation?.cancel() }
        if probed {
            guard let decoded, decoded.kind != .picture, decoded.undecodable == nil, decoded.failed == nil else {
                return .unreadable(mime: mime)
            }
        }
        return decoded
    }

    /// libmagic's type for bytes it names nothing of.
    private static let unnamedMime = "application/octet-stream"

    /// How long a worker may sit unused before it is stopped: long beside its start (8 ms, and its decoder's
    /// libraries again: at most 2% more work for one restarted every time), short beside a campaign.
    private static let idleLimit: Duration = .milliseconds(500)

    /// Stops the workers (other than `busy`) that no request has used for `idleLimit`. A campaign that names a few
    /// contents under a URL per recipient reads each content once and then only finds its answer, kept by its
    /// worker: from then on it holds no worker (scripts/bench personalised: the tool and its workers 48 MB at
    /// most). Called as each file asks for a decode: a run that decodes nothing more keeps its workers.
    private func stopIdleWorkers(besides busy: WorkerProcess) {
        for worker in pictureWorkers where worker !== busy { worker.stopIfIdle(for: Self.idleLimit) }
        if let streams, streams !== busy { streams.stopIfIdle(for: Self.idleLimit) }
    }

    /// Draws the picture read from `source` (sniffed as `mime`) as each of `renditions`, the i-th written as
    /// a JPEG to `outputs[i]` (the preview's pictures, SPEC 17). `drawnRows`: the rows a cut file draws (the
    /// rest is drawn grey); nil when it draws them all.
    /// - Returns: nil when they are drawn, else why not.
    package func render(
        source: Int32, mime: String, drawnRows: Int?, renditions: [String], outputs: [Int32], within seconds: Double
    ) -> String? {
        guard let pictures = worker(for: "image/jpeg") else {
            if !off { Self.sayMissingOnce() }
            return "the decode worker is not installed"
        }
        let request = "render\n\(mime)\n\(drawnRows.map(String.init) ?? "-")\n\(renditions.joined(separator: " "))"
        switch pictures.request(request, descriptors: [source] + outputs, milliseconds: max(1, Int(seconds * 1000))) {
        case .success(let json):
            return json[DOOR_STATUS_KEY]?.stringValue == DoorStatus.name(DOOR_RENDERED) ? nil : json[DOOR_DETAIL_KEY]?.stringValue ?? "the decoder could not draw it"
        case .failure(let stopped):
            return "the decoder stopped: \(stopped.why)"
        }
    }

    /// What the worker wrote for `fix` (SPEC 19): media that passes on every phone.
    package struct FixedMedia: Sendable {
        /// `jpg`, `png`, `gif` (an animation kept), `mp4` (re-muxed), `mp3`.
        package var type: String
        /// A picture's size as written (a video's and a sound's are read back by the caller).
        package var width: Int?
        package var height: Int?
        /// The JPEG quality it was written at.
        package var quality: Int?
        /// A picture's EXIF orientation, applied to the pixels.
        package var orientation = 1
        package var sourceWidth: Int?
        package var sourceHeight: Int?
        /// An animated GIF kept animated: its frames.
        package var frames: Int?
        /// An animation written as its first frame: how many frames were dropped.
        package var framesLost: Int?
        /// A video's or a sound's change, in words ("re-muxed hev1 → hvc1 ...").
        package var change: String?
    }

    /// Writes to `output` the file read from `source` (sniffed as `mime`) as one that passes on every
    /// phone: a picture as baseline JPEG (PNG with transparency), sRGB, upright, at most `maxSide` on its
    /// long side and `targetBytes` long, an animated GIF as a smaller one within `cap` where one fits;
    /// `hev1` HEVC re-muxed as `hvc1`; a sound as MP3 within `targetBytes`.
    /// - Returns: what it wrote, or why it could not.
    package func fix(
        source: Int32, mime: String, maxSide: Int, targetBytes: Int, cap: Int, output: Int32, within seconds: Double
    ) -> Result<FixedMedia, DecodeFailure> {
        // The picture workers in turn, so that each core encodes while the others download (SPEC 17: `fix`'s
        // encodes in parallel). Each encode runs in a child the worker forks, whose pages go with it: the tool and
        // its workers stay within the 96 MB `fix` allows with one encode per core (scripts/bench fix).
        guard let worker = worker(for: mime, anyPictureWorker: true) else {
            if !off { Self.sayMissingOnce() }
            return .failure(DecodeFailure(message: "the decode worker is not installed"))
        }
        switch worker.request("fix\n\(mime)\n\(maxSide)\n\(targetBytes)\n\(cap)", descriptors: [source, output],
                              milliseconds: max(1, Int(seconds * 1000))) {
        case .success(let json):
            guard json[DOOR_STATUS_KEY]?.stringValue == DoorStatus.name(DOOR_FIXED), let type = json[door: DOOR_TYPE]?.stringValue else {
                return .failure(DecodeFailure(message: json[DOOR_DETAIL_KEY]?.stringValue ?? "the decoder could not write it"))
            }
            var fixed = FixedMedia(type: type)
            fixed.width = json[door: DOOR_WIDTH]?.intValue
            fixed.height = json[door: DOOR_HEIGHT]?.intValue
            fixed.quality = json[door: DOOR_QUALITY]?.intValue
            fixed.orientation = json[door: DOOR_ORIENTATION]?.intValue ?? 1
            fixed.sourceWidth = json[door: DOOR_SOURCE_WIDTH]?.intValue
            fixed.sourceHeight = json[door: DOOR_SOURCE_HEIGHT]?.intValue
            fixed.frames = json[door: DOOR_FRAMES]?.intValue
            fixed.framesLost = json[door: DOOR_FRAMES_LOST]?.intValue
            fixed.change = json[door: DOOR_CHANGE]?.stringValue
            return .success(fixed)
        case .failure(let stopped):
            return .failure(DecodeFailure(message: "the decoder stopped: \(stopped.why)"))
        }
    }

    /// Writes to `output` the first frame of the video read from `source`, as a full-quality JPEG:
    /// `fix`'s still for Android, which shows no video in a notification (drawn again as any picture).
    /// - Returns: the frame's size, or why it could not.
    package func poster(source: Int32, output: Int32, within seconds: Double) -> Result<FixedMedia, DecodeFailure> {
        guard let worker = worker(for: "video/mp4") else {
            if !off { Self.sayMissingOnce() }
            return .failure(DecodeFailure(message: "the decode worker is not installed"))
        }
        switch worker.request("poster", descriptors: [source, output], milliseconds: max(1, Int(seconds * 1000))) {
        case .success(let json):
            guard json[DOOR_STATUS_KEY]?.stringValue == DoorStatus.name(DOOR_FIXED) else {
                return .failure(DecodeFailure(message: json[DOOR_DETAIL_KEY]?.stringValue ?? "the decoder could not write its first frame"))
            }
            var still = FixedMedia(type: "jpg")
            still.width = json[door: DOOR_WIDTH]?.intValue
            still.height = json[door: DOOR_HEIGHT]?.intValue
            return .success(still)
        case .failure(let stopped):
            return .failure(DecodeFailure(message: "the decoder stopped: \(stopped.why)"))
        }
    }

    /// Why the worker could not do what it was asked.
    package struct DecodeFailure: Error {
        package var message: String
    }
}

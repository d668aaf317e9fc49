import Glibc
internal import CDescriptorShim

/// The decode worker (`notti-media-decode`, SPEC 17), seen from the tool: started
/// on the first file that needs decoding, fed one file at a time over a
/// SOCK_SEQPACKET socket (the sniffed type, carrying the file's descriptor), and
/// kept for the run. libvips and libavformat load about a hundred shared
/// libraries: in the worker, `--version`, a payload without media and everything
/// before the first decode start as fast as without them. And decoders are large
/// C code reading hostile bytes: the worker has its own memory limit, and one
/// that crashes, is killed or does not answer by the record's deadline costs that
/// file alone (`undecodable_media`, "the decoder stopped") and is started again
/// for the next.
///
/// One file at a time (the workers of a pipeline share one decoder, in turn);
/// each content is decoded once per run.
package final class DecodeWorker: @unchecked Sendable {
    /// The worker's executable; nil when there is none (a library user without it): nothing is decoded.
    private let executable: String?
    private let lock = Lock()
    // Guarded by `lock`: the running worker, and each content's answer.
    private var running: (pid: pid_t, socket: Int32)?
    private var answers: [String: DecodedMedia?] = [:]

    /// The address space the worker may take: a 100,000,000-pixel HEIF decodes in about 400 MB.
    static let memoryMiB = 1536

    /// - Parameter executable: the worker to run; nil: `notti-media-decode` beside the running executable
    ///   (`NOTTI_MEDIA_DECODER` names another).
    package init(executable: String? = nil) {
        self.executable = executable ?? Self.locate()
    }

    deinit {
        if let running { Self.stop(running) }
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
    static func locate() -> String? {
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

    /// Starts the worker now, if it is not running, so that its start (loading libvips's and FFmpeg's
    /// libraries, about 40 ms) overlaps the download whose file it will read. Never waits: a worker
    /// someone is using is running.
    package func prepare() {
        guard executable != nil, lock.tryLock() else { return }
        defer { lock.unlock() }
        if running == nil { running = start() }
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
        guard DecodedMedia.kind(ofMime: mime) != nil else { return nil }
        guard executable != nil else {
            Self.sayMissingOnce()
            return nil
        }
        let descriptor = open()
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        lock.lock()
        defer { lock.unlock() }
        if let sha256, let known = answers[sha256] { return known }
        let answer: DecodedMedia?
        switch ask(Array(mime.utf8), descriptors: [descriptor], milliseconds: max(1, Int(seconds * 1000))) {
        case .success(let json): answer = DecodedMedia(answer: json, mime: mime)
        // A worker that never started read nothing: the file is not decoded (as without one), not lost.
        case .failure(let stopped): answer = stopped.started ? DecodedMedia.stopped(stopped.why, mime: mime) : nil
        }
        if let sha256 { answers[sha256] = answer }
        return answer
    }

    /// Draws the picture read from `source` (sniffed as `mime`) as each of `renditions`, the i-th written as
    /// a JPEG to `outputs[i]` (the preview's pictures, SPEC 17). `drawnRows`: the rows a cut file draws (the
    /// rest is drawn grey); nil when it draws them all.
    /// - Returns: nil when they are drawn, else why not.
    package func render(
        source: Int32, mime: String, drawnRows: Int?, renditions: [String], outputs: [Int32], within seconds: Double
    ) -> String? {
        guard executable != nil else {
            Self.sayMissingOnce()
            return "the decode worker is not installed"
        }
        let request = "render\n\(mime)\n\(drawnRows.map(String.init) ?? "-")\n\(renditions.joined(separator: " "))"
        lock.lock()
        defer { lock.unlock() }
        switch ask(Array(request.utf8), descriptors: [source] + outputs, milliseconds: max(1, Int(seconds * 1000))) {
        case .success(let json):
            return json["status"]?.stringValue == "rendered" ? nil : json["detail"]?.stringValue ?? "the decoder could not draw it"
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
        guard executable != nil else {
            Self.sayMissingOnce()
            return .failure(DecodeFailure(message: "the decode worker is not installed"))
        }
        lock.lock()
        defer { lock.unlock() }
        switch ask(Array("fix\n\(mime)\n\(maxSide)\n\(targetBytes)\n\(cap)".utf8), descriptors: [source, output],
                   milliseconds: max(1, Int(seconds * 1000))) {
        case .success(let json):
            guard json["status"]?.stringValue == "fixed", let type = json["type"]?.stringValue else {
                return .failure(DecodeFailure(message: json["detail"]?.stringValue ?? "the decoder could not write it"))
            }
            var fixed = FixedMedia(type: type)
            fixed.width = json["width"]?.intValue
            fixed.height = json["height"]?.intValue
            fixed.quality = json["quality"]?.intValue
            fixed.orientation = json["orientation"]?.intValue ?? 1
            fixed.sourceWidth = json["sourceWidth"]?.intValue
            fixed.sourceHeight = json["sourceHeight"]?.intValue
            fixed.frames = json["frames"]?.intValue
            fixed.framesLost = json["framesLost"]?.intValue
            fixed.change = json["change"]?.stringValue
            return .success(fixed)
        case .failure(let stopped):
            return .failure(DecodeFailure(message: "the decoder stopped: \(stopped.why)"))
        }
    }

    /// Why the worker could not do what it was asked.
    package struct DecodeFailure: Error {
        package var message: String
    }

    /// Why the worker gave no answer: it was stopped (and the next request starts another), or none started.
    private struct Stopped: Error {
        let why: String
        var started = true
    }

    /// One request and its answer, starting the worker if it is not running. Called under `lock`.
    private func ask(_ request: [UInt8], descriptors: [Int32], milliseconds: Int) -> Result<JSONValue, Stopped> {
        func send(to worker: (pid: pid_t, socket: Int32)) -> Bool {
            request.withUnsafeBytes { bytes in
                descriptors.withUnsafeBufferPointer {
                    CDescriptorShim_send(worker.socket, bytes.baseAddress, bytes.count, $0.baseAddress, Int32($0.count))
                }
            } == request.count
        }
        guard var worker = running ?? start() else { return .failure(Stopped(why: "it could not be started", started: false)) }
        running = worker
        if !send(to: worker) {
            // A worker that ended while idle (killed between files) read nothing of this one: it costs
            // no file. Another takes the request; only if that one cannot either is this file lost.
            Self.stop(worker)
            running = nil
            guard let fresh = start() else { return .failure(Stopped(why: "it could not be started", started: false)) }
            worker = fresh
            running = worker
            guard send(to: worker) else { return stopped(worker, why: "it was gone (\(Errno(errno).message))") }
        }
        var ready = pollfd(fd: worker.socket, events: Int16(POLLIN), revents: 0)
        let deadline = MonotonicInstant.now + .milliseconds(milliseconds)
        while true {
            let left = deadline - MonotonicInstant.now
            guard left > .zero else {
                return stopped(worker, why: "it did not answer within \(NumberText.decimal(Double(milliseconds) / 1000)) s")
            }
            let polled = poll(&ready, 1, Int32(max(1, min(Int(Int32.max), Int(left / .milliseconds(1))))))
            if polled > 0 { break }
            if polled < 0 && errno != EINTR { return stopped(worker, why: Errno(errno).message) }
        }
        var buffer = [UInt8](repeating: 0, count: 16_384)
        let received = buffer.withUnsafeMutableBytes { recv(worker.socket, $0.baseAddress, $0.count, 0) }
        guard received > 0 else { return stopped(worker, why: "it ended") }
        guard let answer = try? JSONParser.parse(Array(buffer[..<received])) else {
            return stopped(worker, why: "its answer was not JSON")
        }
        return .success(answer)
    }

    /// The worker is gone or stuck: stop it for good (the next request starts another) and say why.
    private func stopped(_ worker: (pid: pid_t, socket: Int32), why: String) -> Result<JSONValue, Stopped> {
        let status = Self.stop(worker)
        running = nil
        let signal = status.map { ($0 & 0x7f) != 0 && ($0 & 0x7f) != 0x7f ? " (signal \($0 & 0x7f))" : "" } ?? ""
        return .failure(Stopped(why: why + signal))
    }

    /// Closes the socket (a live worker then exits on its own), kills what is left and reaps it.
    /// - Returns: the wait status, when the worker ended.
    @discardableResult
    private static func stop(_ worker: (pid: pid_t, socket: Int32)) -> Int32? {
        close(worker.socket)
        var status: Int32 = 0
        if waitpid(worker.pid, &status, WNOHANG) == worker.pid { return status }
        kill(worker.pid, SIGKILL)
        return waitpid(worker.pid, &status, 0) == worker.pid ? status : nil
    }

    /// Starts the worker with one end of a new socket pair as its descriptor 3, its other
    /// standard descriptors on /dev/null, no signal blocked (the tool blocks four in every thread).
    private func start() -> (pid: pid_t, socket: Int32)? {
        guard let executable else { return nil }
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else { return nil }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pair[1], 3)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGTERM, SIGHUP, SIGPIPE] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let arguments = [executable, "--memory-mib", String(Self.memoryMiB)]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let failed = posix_spawn(&pid, executable, &actions, &attributes, &argv, environ)
        close(pair[1])
        guard failed == 0 else {
            close(pair[0])
            return nil
        }
        return (pid, pair[0])
    }
}

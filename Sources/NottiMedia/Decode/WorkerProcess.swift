import Glibc
internal import CSystemShim

/// One decode worker process (`notti-media-decode --kind pictures|streams`) and its socket: started
/// on its first request (or by `prepare`), one request at a time, stopped when it crashes, ends, misses
/// a deadline or sits unused (`stopIfIdle`); the next request starts another. `DecodeWorker` keeps them.
final class WorkerProcess: @unchecked Sendable {
    /// The media a worker is started for (named on its command line, for `ps`): it loads a decoder's libraries on
    /// the first request that needs them.
    enum Kind: String {
        /// Pictures (the format libraries, libvips for the rest), and the preview's and `fix`'s renditions of them.
        case pictures
        /// Video and audio: the worker's own MP4 and MP3 readers, then FFmpeg.
        case streams
    }

    private let executable: String
    let kind: Kind
    /// Held for a whole request: the worker reads one file at a time.
    private let lock = Lock()
    // Guarded by `lock`: the running worker, when it last answered or started, whether one ever started, and
    // each content's answer.
    private var running: (pid: pid_t, socket: Int32)?
    private var lastUsed = MonotonicInstant.now
    private var started = false
    private var answers: [String: DecodedMedia?] = [:]

    /// The address space a worker may take: a 100,000,000-pixel HEIF decodes in about 400 MB.
    static let memoryMiB = 1536

    /// The run's: a request in flight when it is cancelled (Ctrl-C during `fix`'s encode of a large photo) is
    /// abandoned at once, the worker stopped, so the run ends through its own clean-up, not its grace period's.
    private let cancellation: Cancellation?

    init(executable: String, kind: Kind, cancellation: Cancellation? = nil) {
        self.executable = executable
        self.kind = kind
        self.cancellation = cancellation
    }

    deinit {
        if let running { Self.stop(running) }
    }

    /// Starts the worker now, if it never ran, so that its start overlaps the download whose file it will
    /// read. One stopped for being idle (`stopIfIdle`) starts again on a request only: the files that may
    /// need it have mostly been read. Never waits: a worker someone is using is running.
    func prepare() {
        guard lock.tryLock() else { return }
        defer { lock.unlock() }
        if running == nil && !started { running = start() }
    }

    /// Stops the worker when no request has used it for `idle` (never one that is in use): its memory goes back to
    /// the machine and its answers are kept, so that a campaign whose few contents were all read holds no worker
    /// to its end; the next request that needs one starts another. Never waits.
    func stopIfIdle(for idle: Duration) {
        guard lock.tryLock() else { return }
        defer { lock.unlock() }
        guard let worker = running, MonotonicInstant.now - lastUsed >= idle else { return }
        Self.stop(worker)
        running = nil
    }

    /// What the worker makes of the file open on `descriptor` (sniffed as `mime`): the same content
    /// (`sha256`) is decoded once per run.
    func decode(_ descriptor: Int32, mime: String, sha256: String?, milliseconds: Int) -> DecodedMedia? {
        lock.lock()
        defer { lock.unlock() }
        if let sha256, let known = answers[sha256] { return known }
        let answer: DecodedMedia?
        switch ask(Array(mime.utf8), descriptors: [descriptor], milliseconds: milliseconds) {
        case .success(let json): answer = DecodedMedia(answer: json, mime: mime)
        // A worker that never started read nothing: the file is not decoded (as without one), not lost.
        case .failure(let stopped): answer = stopped.started ? DecodedMedia.stopped(stopped.why, mime: mime) : nil
        }
        if let sha256 { answers[sha256] = answer }
        return answer
    }

    /// One request (`render`, `fix`) and its answer.
    func request(_ text: String, descriptors: [Int32], milliseconds: Int) -> Result<JSONValue, Stopped> {
        lock.lock()
        defer { lock.unlock() }
        return ask(Array(text.utf8), descriptors: descriptors, milliseconds: milliseconds)
    }

    /// Why the worker gave no answer: it was stopped (and the next request starts another), or none started.
    struct Stopped: Error {
        let why: String
        var started = true
    }

    /// One request and its answer, starting the worker if it is not running. Called under `lock`.
    private func ask(_ request: [UInt8], descriptors: [Int32], milliseconds: Int) -> Result<JSONValue, Stopped> {
        defer { lastUsed = MonotonicInstant.now }
        func send(to worker: (pid: pid_t, socket: Int32)) -> Bool {
            request.withUnsafeBytes { bytes in
                descriptors.withUnsafeBufferPointer {
                    CSystemShim_send(worker.socket, bytes.baseAddress, bytes.count, $0.baseAddress, Int32($0.count))
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
            let wait = cancellation == nil ? left : min(left, .milliseconds(100))
            let polled = poll(&ready, 1, Int32(max(1, min(Int(Int32.max), Int(wait / .milliseconds(1))))))
            if polled > 0 { break }
            if polled < 0 && errno != EINTR { return stopped(worker, why: Errno(errno).message) }
            if cancellation?.isCancelled == true { return stopped(worker, why: "the run was interrupted") }
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
        started = true
        lastUsed = MonotonicInstant.now
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
        let arguments = [executable, "--memory-mib", String(Self.memoryMiB), "--kind", kind.rawValue]
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

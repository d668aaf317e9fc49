import Glibc
internal import CSystemShim
internal import CDecodeDoor

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
    /// Whether the running worker's greeting (door.h) was read; why the last start failed.
    private var greeted = false
    private var startError: Int32 = 0
    private var answers = BoundedMemo<DecodedMedia?>(capacity: WorkerProcess.answersKept)
    /// The run's: set once when the worker cannot be used at all.
    private let unusable: Unusable

    /// The most answers a worker keeps (SPEC 13: memory for what is in flight): the oldest is forgotten first,
    /// and a forgotten content decodes again. An answer is a few hundred bytes.
    static let answersKept = 4096

    /// The address space a worker may take: a 100,000,000-pixel HEIF decodes in about 400 MB.
    static let memoryMiB = 1536

    /// The run's: a request in flight when it is cancelled (Ctrl-C during `fix`'s encode of a large photo) is
    /// abandoned at once, the worker stopped, so the run ends through its own clean-up, not its grace period's.
    private let cancellation: Cancellation?

    init(executable: String, kind: Kind, cancellation: Cancellation? = nil, unusable: Unusable = Unusable()) {
        self.executable = executable
        self.kind = kind
        self.cancellation = cancellation
        self.unusable = unusable
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

    /// What the memory probe of the tests reads: the running worker's process, and how many answers are kept.
    var probe: (pid: pid_t?, answers: Int) {
        lock.lock()
        defer { lock.unlock() }
        return (running?.pid, answers.count)
    }

    /// What the worker makes of the file open on `descriptor` (sniffed as `mime`): the same content
    /// (`sha256`) is decoded once per run.
    func decode(_ descriptor: Int32, mime: String, sha256: String?, milliseconds: Int) -> DecodedMedia? {
        lock.lock()
        defer { lock.unlock() }
        if let sha256, let known = answers.value(for: sha256) { return known }
        let answer: DecodedMedia?
        switch ask(Array(mime.utf8), descriptors: [descriptor], milliseconds: milliseconds) {
        case .success(let json):
            answer = DecodedMedia(answer: json, mime: mime)
            if json[DOOR_STATUS_KEY]?.stringValue == DoorStatus.name(DOOR_SANDBOX_UNAVAILABLE) {
                unusable.record(answer?.failed ?? "the decoders' system-call filter cannot be installed")
            }
        case .failure(let stopped):
            // A decode cut short by the run's own end is no verdict at all (SPEC 17): nothing kept.
            if stopped.interrupted { return nil }
            // A worker that could not be started, or speaks another door, stops the run (exit 2).
            if let fatal = stopped.fatal {
                unusable.record(fatal)
                return DecodedMedia.kind(ofMime: mime).map { .failed(fatal, kind: $0) }
            }
            answer = DecodedMedia.stopped(stopped.why, mime: mime)
        }
        // A failed decode is asked again next time (the machine may have room then); a verdict is kept.
        if let sha256, answer?.failed == nil { answers.keep(answer, for: sha256) }
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
        /// The run's end (a signal) cut the request short.
        var interrupted = false
        /// Why no worker can be used at all (none could start, or it speaks another door): the run stops.
        var fatal: String?
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
        guard var worker = running ?? start() else { return .failure(notStarted()) }
        running = worker
        if let refused = greet(worker, within: milliseconds) { return .failure(refused) }
        if !send(to: worker) {
            // A worker that ended while idle (killed between files) read nothing of this one: it costs
            // no file. Another takes the request; only if that one cannot either is this file lost.
            Self.stop(worker)
            running = nil
            guard let fresh = start() else { return .failure(notStarted()) }
            worker = fresh
            running = worker
            if let refused = greet(worker, within: milliseconds) { return .failure(refused) }
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
            if cancellation?.isCancelled == true {
                _ = stopped(worker, why: "the run was interrupted")
                return .failure(Stopped(why: "the run was interrupted", interrupted: true))
            }
        }
        guard let answer = receive(from: worker) else { return stopped(worker, why: "it ended, or its answer was not JSON") }
        return .success(answer)
    }

    /// One message from the worker, parsed; nil when it ended or sent what is not JSON.
    private func receive(from worker: (pid: pid_t, socket: Int32)) -> JSONValue? {
        var buffer = [UInt8](repeating: 0, count: 16_384)
        let received = buffer.withUnsafeMutableBytes { recv(worker.socket, $0.baseAddress, $0.count, 0) }
        guard received > 0 else { return nil }
        return try? JSONParser.parse(Array(buffer[..<received]))
    }

    /// Why no worker could be started, as the run's stop says it.
    private func notStarted() -> Stopped {
        let why = "the decode worker \(executable) could not be started (\(Errno(startError).message)); "
            + "files cannot be read as the phone reads them"
        return Stopped(why: why, fatal: why)
    }

    /// The door's first message (door.h), read from a worker just started, before its first request, within the
    /// request's deadline: nil when it speaks this tool's version. A worker that speaks another (a stale install
    /// beside a new tool) is no worker for this tool: the run stops. One that ends or says nothing in time is a
    /// worker that stopped, as at any request: that file alone is lost.
    private func greet(_ worker: (pid: pid_t, socket: Int32), within milliseconds: Int) -> Stopped? {
        guard !greeted else { return nil }
        var ready = pollfd(fd: worker.socket, events: Int16(POLLIN), revents: 0)
        let deadline = MonotonicInstant.now + .milliseconds(milliseconds)
        var polled: Int32 = 0
        repeat {
            let left = max(1, Int((deadline - MonotonicInstant.now) / .milliseconds(1)))
            polled = poll(&ready, 1, Int32(clamping: left))
        } while polled < 0 && errno == EINTR && MonotonicInstant.now < deadline
        guard polled > 0 else {
            guard case .failure(let stopped) = stopped(worker, why: "it did not answer within \(NumberText.decimal(Double(milliseconds) / 1000)) s")
            else { return nil }
            return stopped
        }
        guard let hello = receive(from: worker) else {
            guard case .failure(let stopped) = stopped(worker, why: "it ended before it said which door it speaks") else { return nil }
            return stopped
        }
        let version = hello[DOOR_VERSION_KEY]?.intValue
        guard version == Int(DOOR_VERSION) else {
            Self.stop(worker)
            running = nil
            let why = "the decode worker \(executable) speaks door version \(version.map(String.init) ?? "none"), this notti-media "
                + "speaks \(DOOR_VERSION): the two come from different installs; reinstall notti-media"
            return Stopped(why: why, fatal: why)
        }
        greeted = true
        return nil
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
        greeted = false
        lastUsed = MonotonicInstant.now
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            startError = errno
            return nil
        }
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
            startError = failed
            close(pair[0])
            return nil
        }
        return (pid, pair[0])
    }
}

/// Why the run's decode workers cannot be used at all, once one found it (SPEC 17: a worker that cannot be
/// started, speaks another door, or cannot install its filter stops the run at its first decode, exit 2).
package final class Unusable: Sendable {
    private let why = Guarded<String?>(nil)

    package init() {}

    func record(_ reason: String) {
        why.withLock { if $0 == nil { $0 = reason } }
    }

    /// The first reason found, or nil while the workers serve.
    package var reason: String? { why.withLock { $0 } }
}

/// A memo of at most `capacity` values by key, forgetting the oldest first (SPEC 13: what a run keeps is bounded
/// by what is in flight, not by how many contents it met).
struct BoundedMemo<Value> {
    private var values: [String: Value] = [:]
    private var order: [String] = []
    private var oldest = 0
    let capacity: Int

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    func value(for key: String) -> Value? { values[key] }

    var count: Int { values.count }

    mutating func keep(_ value: Value, for key: String) {
        if values.updateValue(value, forKey: key) != nil { return }
        if order.count < capacity {
            order.append(key)
            return
        }
        // A ring of the keys in the order they came: the slot of the oldest takes the newest.
        values[order[oldest]] = nil
        order[oldest] = key
        oldest = (oldest + 1) % capacity
    }
}

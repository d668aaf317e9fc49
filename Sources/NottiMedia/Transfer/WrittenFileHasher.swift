import Glibc
import Synchronization
internal import CSystemShim

/// The SHA-256 of a body as libcurl's write callback writes it to its file: the first
/// `helperThreshold` bytes are hashed in the callback; past them, a thread of its own reads
/// back (from the page cache) and hashes what the callback reports written, beside the transfer.
///
/// Why a thread: SHA-256 runs at about 1.4 GB/s here (SHA extensions), so a 5 MiB body's hash is
/// 3.7 ms on the thread that receives, decrypts and writes it, which is the transfer's bottleneck
/// (the loopback server used 7 ms of CPU of a 30 ms `process`). With the hash there, one 5 MiB
/// `process` took 30-33 ms against 23-29 ms without any hash (perf stat, 30 runs each); beside it,
/// the hash costs the transfer a lock per callback and the tail hashed after the last byte.
/// Smaller bodies (most pushes' pictures) keep the plain inline hash: no thread to start, and a
/// batch whose transfers already fill every core gains nothing from one.
final class WrittenFileHasher {
    /// Bytes hashed inline before the rest goes to the helper thread.
    static let helperThreshold = 256 << 10
    /// How far the written bytes run ahead of the helper before it is woken: a wake per 256 KiB,
    /// not per 16 KiB callback.
    fileprivate static let wakeAfter = 256 << 10

    private let progress: HashProgress
    private var helper: JoinableThread?
    /// Whether the helper was started (or could not be: the hash then stays inline).
    private var handedOver = false

    /// - Parameter descriptor: the file the bytes are written to, open for reading; it must stay open until
    ///   `finish` returns or the hasher is released.
    init(descriptor: Int32) {
        progress = HashProgress(descriptor: descriptor)
    }

    deinit {
        // A transfer that failed: the helper stops, its hash unwanted.
        end(discarding: true)
    }

    /// `bytes` were just written to the file, which now holds `total` bytes. Called by the writer alone.
    func wrote(_ bytes: UnsafeRawBufferPointer, total: Int) {
        guard helper == nil else { return progress.wrote(total: total) }
        progress.hashInline(bytes, total: total)
        if total >= Self.helperThreshold && !handedOver {
            handedOver = true
            // A core spare for each helper, or the hash stays inline: a batch's transfers (8 at a time on 2 cores)
            // already fill every core, and there helpers only cost (2.4% of the batch row, 2.6 MiB more RSS).
            guard Self.helpers.reserve() else { return }
            // Off the writer's core: woken by the writer, the helper was otherwise placed beside it (perf sched:
            // both on one core, the other idle), and the transfer gained nothing.
            let writerCore = CSystemShim_current_core()
            helper = JoinableThread.startIfPossible { [progress] in
                _ = CSystemShim_leave_core(writerCore)
                progress.hashInBackground()
            }
            // No thread to be had: the hash stays inline.
            if helper == nil { Self.helpers.release() }
        }
    }

    /// The SHA-256 of every byte written, as 64 lowercase hex digits; the errno when the file could not
    /// be read back. Call once, when the body is complete.
    func finish() -> Result<String, Errno> {
        end(discarding: false)
        return progress.finish()
    }

    /// Lets the helper hash what is left (or stop, `discarding` it) and joins it.
    private func end(discarding: Bool) {
        guard let running = helper else { return }
        progress.end(discarding: discarding)
        running.join()
        helper = nil
        Self.helpers.release()
    }

    /// The helpers running, at most one fewer than the cores.
    private static let helpers = HelperSlots(count: ProcessFacts.processorCount - 1)
}

/// A count of slots taken without waiting: `reserve` fails when all are taken.
private final class HelperSlots: Sendable {
    private let taken = Atomic<Int>(0)
    private let count: Int

    init(count: Int) { self.count = count }

    func reserve() -> Bool {
        var now = taken.load(ordering: .relaxed)
        while now < count {
            let (exchanged, original) = taken.compareExchange(expected: now, desired: now + 1, ordering: .relaxed)
            if exchanged { return true }
            now = original
        }
        return false
    }

    func release() {
        taken.subtract(1, ordering: .relaxed)
    }
}

/// What the writer and the helper share: the hash, owned by the writer until the helper starts, then by the
/// helper until it is joined; and, under `condition`, how far the file is written.
private final class HashProgress: @unchecked Sendable {
    private let descriptor: Int32
    private let hash = SHA256()
    /// The bytes hashed: the writer's count, then the helper's.
    private var hashed = 0
    private let condition = Condition()
    // Guarded by `condition` once the helper runs.
    private var written = 0
    private var ending = false
    private var discarding = false
    /// Where the sleeping helper's hashing stopped; nil while it hashes.
    private var sleepingAt: Int?
    /// The errno of a read-back that failed.
    private var readFailure: Int32?

    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Before the helper starts: the writer hashes.
    func hashInline(_ bytes: UnsafeRawBufferPointer, total: Int) {
        hash.update(bytes)
        hashed = total
        written = total
    }

    func wrote(total: Int) {
        condition.lock()
        written = total
        if let at = sleepingAt, total - at >= WrittenFileHasher.wakeAfter { condition.signal() }
        condition.unlock()
    }

    func end(discarding: Bool) {
        condition.withLock {
            ending = true
            self.discarding = discarding
            condition.signal()
        }
    }

    /// After the helper was joined (or never started).
    func finish() -> Result<String, Errno> {
        if let readFailure { return .failure(Errno(readFailure)) }
        return .success(hash.finalizeHex())
    }

    /// The helper: hashes what is written, a read at a time, sleeping while it has caught up.
    func hashInBackground() {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        condition.lock()
        while true {
            while written == hashed && !ending {
                sleepingAt = hashed
                condition.wait()
            }
            sleepingAt = nil
            let end = written
            if end == hashed || discarding { break }
            condition.unlock()
            let failure = hash.update(readingFrom: descriptor, at: &hashed, upTo: end, through: &buffer)
            condition.lock()
            if let failure {
                readFailure = failure
                break
            }
        }
        condition.unlock()
    }
}

import Glibc

/// The SHA-256 of a file that is still being written, computed on a helper
/// thread while the download goes on.
///
/// Why a thread: hashing in libcurl's write callback put the whole hash (about
/// 0.5 ms per MiB here, with SHA extensions) on the transfer's critical path.
/// The helper reads back what the callback has already written (`pread`, from
/// the page cache), so the transfer thread only says how far the file has
/// grown. What that saves depends on a free core: in `scripts/bench single`,
/// whose server shares this machine's two cores, 0.5 ms of a 14 ms `process`
/// (the helper catches up once the server's part is sent).
///
/// One hasher serves one file. The writer calls `didWrite`, then `finish` for
/// the digest or `abandon`; either joins the helper, so the descriptor may be
/// closed afterwards. The helper wakes once a batch has accumulated, not for
/// each of libcurl's 16 KiB writes.
final class GrowingFileHasher: @unchecked Sendable {
    /// How much the writer lets pile up before it wakes a waiting helper.
    static let batchBytes = 256 << 10
    /// The helper's read buffer: its whole memory cost.
    static let readBytes = 64 << 10

    private let fileDescriptor: Int32
    private let condition = Condition()
    // Guarded by `condition`.
    private var written = 0
    private var hashedUpTo = 0
    private var ended = false
    private var abandoned = false
    private var helperWaits = false
    /// Why reading the file back failed, if it did.
    private var readError: Int32?
    private let hasher = SHA256()
    private var thread: JoinableThread?
    /// No helper could be started: `finish` hashes everything on the caller's thread.
    private var helperless = false

    /// Starts hashing the file open (readable) as `fileDescriptor`, from offset 0.
    /// Where no thread can be made (or `helper` is false), `finish` reads the
    /// whole file back itself.
    init(fileDescriptor: Int32, helper: Bool = true) {
        self.fileDescriptor = fileDescriptor
        thread = helper ? JoinableThread.startIfPossible { self.hashAsItGrows() } : nil
        helperless = thread == nil
    }

    /// The writer has appended `count` more bytes.
    func didWrite(_ count: Int) {
        condition.lock()
        written += count
        if helperWaits && written - hashedUpTo >= Self.batchBytes { condition.signal() }
        condition.unlock()
    }

    /// Waits for the helper to hash every written byte.
    /// - Returns: the digest as 64 lowercase hex digits, or the errno of a failed read-back.
    func finish() -> Result<String, Errno> {
        stopHelper { ended = true }
        if helperless {
            helperless = false
            let buffer = UnsafeMutableRawPointer.allocate(byteCount: Self.readBytes, alignment: 64)
            defer { buffer.deallocate() }
            readError = hash(from: 0, to: written, buffer: buffer)
        }
        if let readError { return .failure(Errno(readError)) }
        return .success(hasher.finalizeHex())
    }

    /// Stops the helper without a digest (the download failed).
    func abandon() {
        stopHelper { abandoned = true }
    }

    private func stopHelper(_ change: () -> Void) {
        guard let thread else { return }
        condition.lock()
        change()
        condition.signal()
        condition.unlock()
        thread.join()
        self.thread = nil
    }

    private func hashAsItGrows() {
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: Self.readBytes, alignment: 64)
        defer { buffer.deallocate() }
        var position = 0
        condition.lock()
        defer { condition.unlock() }
        while true {
            while !abandoned && !ended && written - position < Self.batchBytes {
                helperWaits = true
                condition.wait()
            }
            helperWaits = false
            let end = written
            guard !abandoned, end > position else { return }
            condition.unlock()
            let error = hash(from: position, to: end, buffer: buffer)
            condition.lock()
            if let error {
                readError = error
                return
            }
            position = end
            hashedUpTo = end
        }
    }

    /// Reads `[start, end)` back and hashes it. - Returns: an errno when a read failed.
    private func hash(from start: Int, to end: Int, buffer: UnsafeMutableRawPointer) -> Int32? {
        var position = start
        while position < end {
            let count = pread(fileDescriptor, buffer, min(Self.readBytes, end - position), off_t(position))
            if count < 0 {
                if errno == EINTR { continue }
                return errno
            }
            // The writer said these bytes are there: a short file is an I/O fault.
            guard count > 0 else { return EIO }
            hasher.update(UnsafeRawBufferPointer(start: buffer, count: count))
            position += count
        }
        return nil
    }
}

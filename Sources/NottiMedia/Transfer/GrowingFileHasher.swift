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
    /// The read buffer's size: the hasher's whole memory cost.
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
    /// Used by the helper, then by `finish` once the helper is joined.
    private let buffer = UnsafeMutableRawPointer.allocate(byteCount: readBytes, alignment: 64)
    private var thread: JoinableThread?

    /// Starts hashing the file open (readable) as `fileDescriptor`, from offset 0.
    /// Where no thread can be made (or `helper` is false), `finish` reads the
    /// whole file back itself.
    init(fileDescriptor: Int32, helper: Bool = true) {
        self.fileDescriptor = fileDescriptor
        thread = helper ? JoinableThread.startIfPossible { self.hashAsItGrows() } : nil
    }

    deinit {
        buffer.deallocate()
    }

    /// The writer has appended `count` more bytes.
    func didWrite(_ count: Int) {
        condition.lock()
        written += count
        if helperWaits && written - hashedUpTo >= Self.batchBytes { condition.signal() }
        condition.unlock()
    }

    /// Waits for the helper to hash every written byte, and hashes what it did
    /// not (everything, where there was no helper).
    /// - Returns: the digest as 64 lowercase hex digits, or the errno of a failed read-back.
    func finish() -> Result<String, Errno> {
        stopHelper { ended = true }
        if readError == nil && hashedUpTo < written {
            readError = hash(from: hashedUpTo, to: written)
            hashedUpTo = written
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
        condition.lock()
        defer { condition.unlock() }
        while true {
            while !abandoned && !ended && written - hashedUpTo < Self.batchBytes {
                helperWaits = true
                condition.wait()
            }
            helperWaits = false
            let (start, end) = (hashedUpTo, written)
            guard !abandoned, end > start else { return }
            condition.unlock()
            let error = hash(from: start, to: end)
            condition.lock()
            if let error {
                readError = error
                return
            }
            hashedUpTo = end
        }
    }

    /// Reads `[start, end)` back and hashes it. - Returns: an errno when a read failed.
    private func hash(from start: Int, to end: Int) -> Int32? {
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

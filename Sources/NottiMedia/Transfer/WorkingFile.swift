import Glibc
import Synchronization

/// A download's bytes while the run judges them: a file with no name in the
/// attachment folder (Linux's `O_TMPFILE`), reached through its descriptor, until
/// the first attachment judged from it gives it a name (`linkat`). So a run ended
/// by SIGKILL or a power cut leaves no working file behind, and a download that
/// fails or is never attached frees its space when its descriptor closes.
///
/// Where the folder's file system cannot make unnamed files, the bytes are in a
/// named `.part` file this run created exclusively and removes (the old way).
///
/// Its lock is a pthread mutex (`Lock`), which ThreadSanitizer understands.
package final class WorkingFile: @unchecked Sendable {
    private struct State {
        /// Open while the bytes may still be needed and have no name of their own.
        var descriptor: Int32?
        /// The attachment the bytes were first placed as, once they were.
        var placedPath: String?
    }

    private let lock = Lock()
    // Guarded by `lock`.
    private var state: State
    /// The `.part` file holding the bytes when unnamed files cannot be made (removed at release).
    private let fallbackPath: String?
    private let ownedPaths: OwnedPaths?

    /// The descriptor the download writes through (valid until `release`).
    package let descriptor: Int32

    private init(descriptor: Int32, fallbackPath: String?, placedPath: String?, ownedPaths: OwnedPaths?) {
        self.descriptor = descriptor
        self.fallbackPath = fallbackPath
        self.ownedPaths = ownedPaths
        state = State(descriptor: descriptor >= 0 ? descriptor : nil, placedPath: placedPath)
    }

    /// Bytes that already have a name of their own, not made by this run (an earlier run's attachment, `--cache`).
    package convenience init(placedAt path: String) {
        self.init(descriptor: -1, fallbackPath: nil, placedPath: path, ownedPaths: nil)
    }

    /// A new, empty working file in `folder`, open for writing and reading.
    /// - Returns: the file, or the errno when neither an unnamed nor a named file could be made.
    package static func create(in folder: String, ownedPaths: OwnedPaths) -> Result<WorkingFile, Errno> {
        // The attachment's mode when it is placed: as any file the user makes (0666 less the umask).
        let unnamed = open(folder, Self.oTMPFILE | O_RDWR | O_CLOEXEC, 0o666)
        if unnamed >= 0 { return .success(WorkingFile(descriptor: unnamed, fallbackPath: nil, placedPath: nil, ownedPaths: nil)) }
        let failure = errno
        // Only a file system without unnamed files falls back; any other failure is the answer.
        guard failure == EOPNOTSUPP || failure == EISDIR || failure == EINVAL else { return .failure(Errno(failure)) }
        let path = "\(folder)/.notti-media-\(getpid())-\(fallbackCounter.add(1, ordering: .relaxed).newValue).part"
        return ownedPaths.createFile(path, mode: 0o666).map {
            WorkingFile(descriptor: $0, fallbackPath: path, placedPath: nil, ownedPaths: ownedPaths)
        }
    }

    private static let fallbackCounter = Atomic<Int>(0)

    /// Linux's `O_TMPFILE`, a macro Swift does not import: `__O_TMPFILE` (asm-generic's
    /// 020000000, x86-64's and arm64's) with `O_DIRECTORY`, as glibc defines it.
    private static let oTMPFILE: Int32 = 0o20000000 | O_DIRECTORY

    /// Runs `body` with a path the bytes can be read at: the placed attachment, the
    /// open descriptor's `/proc/self/fd/N`, or the fallback `.part` file. Held for the
    /// call: a descriptor's path names another file once another thread places these
    /// bytes and closes it.
    package func withPath<T, E: Error>(_ body: (String) throws(E) -> T) throws(E) -> T {
        lock.lock()
        defer { lock.unlock() }
        if let placed = state.placedPath { return try body(placed) }
        if let fallbackPath { return try body(fallbackPath) }
        return try body(state.descriptor.map { "/proc/self/fd/\($0)" } ?? "")
    }

    /// Makes the bytes exist at `target` (a regular file already there is kept: names
    /// are content hashes), by a link where it can, a copy where it cannot. The first
    /// name the bytes get is theirs from then on: the descriptor closes.
    /// - Throws: the errno when the file cannot be made, or a non-file holds its name.
    package func place(at target: String, ownedPaths: OwnedPaths) throws(Errno) {
        lock.lock()
        defer { lock.unlock() }
        if let placed = state.placedPath {
            try FilePaths.linkOrCopy(from: placed, to: target, ownedPaths: ownedPaths)
            return
        }
        let source = fallbackPath ?? state.descriptor.map { "/proc/self/fd/\($0)" } ?? ""
        try FilePaths.linkOrCopy(from: source, to: target, ownedPaths: ownedPaths)
        state.placedPath = target
        if fallbackPath == nil, let descriptor = state.descriptor {
            close(descriptor)
            state.descriptor = nil
        }
    }

    /// The name the bytes were first placed as (or already had), if any.
    package var placedPath: String? { lock.withLock { state.placedPath } }

    /// The run is done with the bytes: an unnamed file's space is freed, a fallback `.part` removed.
    package func release() {
        lock.withLock {
            if let descriptor = state.descriptor {
                close(descriptor)
                state.descriptor = nil
            }
        }
        if let fallbackPath { ownedPaths?.remove(fallbackPath) }
    }

    deinit {
        if let descriptor = state.descriptor { close(descriptor) }
    }
}

/// The working files of one run, by content: a campaign of personalised URLs of
/// one picture keeps one copy of it, not one per URL (SPEC 9: disk bounded by the
/// distinct content, not by the URLs). Shared by every fetch worker of the run.
package final class WorkingFiles: @unchecked Sendable {
    private let lock = Lock()
    // Guarded by `lock`.
    private var byContent: [String: WorkingFile] = [:]

    package init() {}

    /// The run's working file for content `sha256`: `file`, or one of the same content
    /// kept earlier, in which case `file` is released at once.
    package func adopt(_ file: WorkingFile, sha256: String) -> WorkingFile {
        let kept = lock.withLock {
            if let existing = byContent[sha256] { return existing }
            byContent[sha256] = file
            return file
        }
        if kept !== file { file.release() }
        return kept
    }

    /// The end of the run: every working file's space is freed (placed ones keep their names).
    package func releaseAll() {
        let files = lock.withLock {
            defer { byContent.removeAll() }
            return Array(byContent.values)
        }
        for file in files { file.release() }
    }
}

import Glibc

/// Every file and folder this run created and may still have to remove.
///
/// The tool removes nothing else: files are created exclusively (`O_EXCL`,
/// `mkstemps`), folders with `mkdtemp`, each is tracked here from the moment
/// it exists, and removal is `unlink` for a tracked file and `rmdir` for a
/// tracked folder, which only ever removes an empty folder. A run that ends
/// early (a second signal, a watchdog) calls `removeAll` from any thread.
///
/// The lock is a pthread mutex (`Lock`), which ThreadSanitizer understands.
package final class OwnedPaths: @unchecked Sendable {
    /// The process's one registry: the signal thread must reach what every worker made.
    package static let run = OwnedPaths()

    private struct State {
        var files: Set<String> = []
        /// In creation order; removed innermost (newest) first.
        var folders: [String] = []
        /// Set by `removeAll`: nothing new is created after it.
        var closed = false
    }

    private let lock = Lock()
    // Guarded by `lock`.
    private var state = State()

    private func withLock<T>(_ body: (inout State) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&state)
    }

    package init() {}

    /// Creates `path` exclusively, tracked until `release` or `remove`, open
    /// for reading too (a download's hasher reads back what was written).
    /// - Returns: the open descriptor, or the errno (`EEXIST` when anything is already there).
    package func createFile(_ path: String, mode: mode_t = 0o644) -> Result<Int32, Errno> {
        withLock { state in
            guard !state.closed else { return .failure(Errno(ECANCELED)) }
            let descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode)
            guard descriptor >= 0 else { return .failure(Errno(errno)) }
            state.files.insert(path)
            return .success(descriptor)
        }
    }

    /// Creates a file with a new unique name, `folder/prefixXXXXXX`suffix, tracked.
    /// - Returns: the path and its open descriptor, or the errno.
    package func createUniqueFile(in folder: String, prefix: String, suffix: String = "") -> Result<(path: String, descriptor: Int32), Errno> {
        withLock { state in
            guard !state.closed else { return .failure(Errno(ECANCELED)) }
            var template = Array("\(folder)/\(prefix)XXXXXX\(suffix)".utf8CString)
            let descriptor = mkstemps(&template, Int32(suffix.utf8.count))
            guard descriptor >= 0 else { return .failure(Errno(errno)) }
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
            let path = Self.decode(template)
            state.files.insert(path)
            return .success((path, descriptor))
        }
    }

    /// Makes a new private folder (`mkdtemp`, mode 0700) in `parent`, tracked.
    /// - Returns: its path, or the errno; nothing is created on failure.
    package func makeTemporaryFolder(in parent: String, prefix: String) -> Result<String, Errno> {
        withLock { state in
            guard !state.closed else { return .failure(Errno(ECANCELED)) }
            var template = Array("\(parent)/\(prefix)XXXXXX".utf8CString)
            guard mkdtemp(&template) != nil else { return .failure(Errno(errno)) }
            let path = Self.decode(template)
            state.folders.append(path)
            return .success(path)
        }
    }

    /// `path` is kept (renamed into place) or already gone: stop tracking it.
    package func release(_ path: String) {
        _ = withLock { $0.files.remove(path) }
    }

    /// Unlinks a tracked file; a path this registry did not create is left alone.
    package func remove(_ path: String) {
        withLock { state in
            guard state.files.remove(path) != nil else { return }
            unlink(path)
        }
    }

    /// Unlinks every tracked file directly in `folder` (a scratch folder's spools and sort runs,
    /// whoever still holds them), so the folder can go.
    package func removeFiles(in folder: String) {
        withLock { state in
            let inside = state.files.filter { FilePaths.parent($0) == folder }
            for path in inside {
                state.files.remove(path)
                unlink(path)
            }
        }
    }

    /// Removes a tracked folder with `rmdir`: only when it is empty, so nothing
    /// that is not ours can go with it. Its tracked files should be removed first.
    package func removeFolder(_ path: String) {
        withLock { state in
            guard let index = state.folders.lastIndex(of: path) else { return }
            state.folders.remove(at: index)
            rmdir(path)
        }
    }

    /// Removes every tracked file, then every tracked folder, newest first, and
    /// refuses to create anything after: the last act of a run that ends now.
    package func removeAll() {
        withLock { state in
            state.closed = true
            for path in state.files { unlink(path) }
            state.files.removeAll()
            for path in state.folders.reversed() { rmdir(path) }
            state.folders.removeAll()
        }
    }

    private static func decode(_ template: [CChar]) -> String {
        String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// What is still tracked, for tests.
    var tracked: (files: Set<String>, folders: [String]) {
        withLock { ($0.files, $0.folders) }
    }
}

/// An `errno` value with its message.
package struct Errno: Error, Sendable, Equatable {
    package var code: Int32

    package init(_ code: Int32) { self.code = code }

    /// `strerror`'s text, e.g. "No space left on device".
    package var message: String { String(cString: strerror(code)) }
}

import Glibc
import NottiMedia

/// `fix --rewrite DIR2` (SPEC 19): every payload file of the operands written
/// again under DIR2 with its fixed media URLs replaced (`PayloadRewrite`): a file
/// operand as `DIR2/<its name>`, a folder operand as `DIR2/<its name>/<path
/// inside>` (walked as `check` walks it), a JSON Lines file line by line. Each
/// file is written whole to a partial file beside it and renamed into place;
/// the originals are never touched.
struct PayloadRewriter {
    let root: String
    let operands: [String]
    let rewrite: PayloadRewrite

    /// Refuses, before any download, a DIR2 that is not a folder, or one that is (or is inside) an operand:
    /// the rewritten payloads would land on, or among, the originals.
    static func checkTarget(_ root: String, operands: [String]) throws(UsageError) {
        var info = stat()
        if lstat(root, &info) == 0, info.st_mode & S_IFMT != S_IFDIR {
            throw UsageError("--rewrite: \(root) is not a folder")
        }
        if let operand = FileTarget.overlappingOperand(root, operands, orHolds: true) {
            throw UsageError("--rewrite: \(root) overlaps the payloads in \(operand); name a folder of its own, outside them")
        }
    }

    /// Writes every payload again under the root.
    /// - Returns: how many payloads (files, or lines of JSON Lines) now name a new URL.
    @discardableResult
    func run() throws(LocalError) -> Int {
        var changed = 0
        let root = FilePaths.standardized(self.root)
        if let error = FilePaths.makeFolders(root, mode: 0o777) {
            throw LocalError("--rewrite: cannot create \(root): \(error.message)")
        }
        for operand in operands {
            var info = stat()
            guard stat(operand, &info) == 0 else { continue }
            let name = FilePaths.lastComponent(FilePaths.standardized(operand))
            if info.st_mode & S_IFMT == S_IFDIR {
                changed += try walk(operand, into: "\(root)/\(name)")
            } else {
                changed += try write(operand, to: "\(root)/\(name)")
            }
        }
        return changed
    }

    /// As `check` walks a folder: sorted, hidden entries skipped, links to folders not followed.
    private func walk(_ folder: String, into target: String) throws(LocalError) -> Int {
        var changed = 0
        let names: [String]
        do {
            names = try FilePaths.contents(ofFolder: folder)
        } catch {
            throw LocalError("--rewrite: cannot list \(folder): \(error.message)")
        }
        for name in names.sorted() where !name.hasPrefix(".") {
            let path = "\(folder)/\(name)"
            var info = stat()
            guard lstat(path, &info) == 0 else { continue }
            let type = info.st_mode & S_IFMT
            let lower = name.lowercased()
            if type == S_IFDIR {
                changed += try walk(path, into: "\(target)/\(name)")
            } else if type == S_IFREG || type == S_IFLNK,
                      [".json", ".apns", ".jsonl", ".ndjson"].contains(where: { lower.hasSuffix($0) }) {
                changed += try write(path, to: "\(target)/\(name)")
            }
        }
        return changed
    }

    /// One payload file, rewritten (each line of a JSON Lines file on its own, streamed: a campaign's file
    /// is not held whole).
    /// - Returns: how many of its payloads changed.
    private func write(_ source: String, to target: String) throws(LocalError) -> Int {
        var changed = 0
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw LocalError("--rewrite: cannot read \(source): \(Errno(errno).message)") }
        defer { close(input) }
        let folder = FilePaths.parent(target)
        if let error = FilePaths.makeFolders(folder, mode: 0o777) {
            throw LocalError("--rewrite: cannot create \(folder): \(error.message)")
        }
        var info = stat()
        if lstat(target, &info) == 0, info.st_mode & S_IFMT != S_IFREG {
            throw LocalError("--rewrite: \(target) is there and is not a regular file; move it away")
        }
        let partial = "\(folder)/.notti-media-rewrite-\(getpid()).partial"
        let output: Int32
        switch OwnedPaths.run.createFile(partial, mode: 0o666) {
        case .success(let made): output = made
        case .failure(let error): throw LocalError("--rewrite: cannot write \(target): \(error.message)")
        }
        var failure: Int32?
        func emit(_ bytes: ArraySlice<UInt8>) {
            guard failure == nil else { return }
            failure = bytes.withUnsafeBytes { writeAll(output, $0) }
        }
        let lines = PayloadSources.isJSONLines(source)
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var readFailure: Int32?
        while true {
            let count = chunk.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count < 0 { readFailure = errno }
            guard count > 0 else { break }
            pending += chunk[..<count]
            guard lines else { continue }
            // Every whole line so far, rewritten; the rest waits for its newline.
            var start = 0
            while let end = pending[start...].firstIndex(of: 0x0A) {
                let rewritten = rewrite.rewrite(pending[start..<end])
                if rewritten != nil { changed += 1 }
                emit(rewritten.map { $0[...] } ?? pending[start..<end])
                emit([0x0A])
                start = end + 1
            }
            pending.removeFirst(start)
        }
        if !pending.isEmpty || !lines {
            let rewritten = rewrite.rewrite(pending[...])
            if rewritten != nil { changed += 1 }
            emit(rewritten.map { $0[...] } ?? pending[...])
        }
        let closed = close(output) == 0
        guard readFailure == nil, failure == nil, closed, rename(partial, target) == 0 else {
            let why = readFailure.map { "cannot read \(source): \(Errno($0).message)" } ?? Errno(failure ?? errno).message
            OwnedPaths.run.remove(partial)
            throw LocalError("--rewrite: cannot write \(target): \(why)")
        }
        OwnedPaths.run.release(partial)
        return changed
    }
}

import Glibc
import NottiMedia

/// `check`'s private temporary folder, made with `mkdtemp` in `$TMPDIR` (else
/// `/tmp`) before any download, so a temporary folder that cannot be made
/// stops the run at once (exit 2) instead of halfway through. It holds the
/// spools of `--format junit` and `--html`; `remove` takes away exactly the
/// files this run made in it and then the folder, with `rmdir`, which cannot
/// remove anything else.
final class ScratchFolder {
    let path: String

    /// - Throws: `LocalError` when the folder cannot be made (nothing is created then).
    init(environment: [String: String]) throws(LocalError) {
        let parent = environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        switch OwnedPaths.run.makeTemporaryFolder(in: parent, prefix: "notti-media-check-") {
        case .success(let made): path = made
        case .failure(let error):
            throw LocalError("cannot create a temporary folder in \(parent): \(error.message) (set TMPDIR to a folder you can write)")
        }
    }

    /// A new spool file in this folder.
    func makeSpool(_ purpose: String) throws(LocalError) -> Spool {
        try Spool(in: path, purpose: purpose)
    }

    /// Standard input, copied to a new file here (`sniff -`), at most one byte past
    /// the global read bound: enough to judge anything a download could be.
    /// - Returns: the file, its size, and whether the copy stopped at that bound
    ///   (`cut`: the stream's own size is not known, and its end is not the file's).
    func copyStandardInput() throws(LocalError) -> (path: String, bytes: Int, cut: Bool) {
        let (path, output) = switch OwnedPaths.run.createUniqueFile(in: self.path, prefix: "stdin-") {
        case .success(let made): made
        case .failure(let error): throw LocalError("cannot make a temporary file in \(self.path): \(error.message)")
        }
        defer { close(output) }
        var block = [UInt8](repeating: 0, count: 64 * 1024)
        var total = 0
        let limit = DeviceModel.largestLimitBytes + 1
        while total < limit {
            guard waitUntilReadable(STDIN_FILENO, unless: { Signals.cancellation.isCancelled }) else {
                throw LocalError("interrupted while reading standard input")
            }
            let count = block.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, min($0.count, limit - total)) }
            if count < 0 {
                if errno == EINTR { continue }
                throw LocalError(ReadFailure.message("-", errno))
            }
            if count == 0 { break }
            if let failure = block.withUnsafeBytes({ writeAll(output, UnsafeRawBufferPointer(rebasing: $0[..<count])) }) {
                throw LocalError("cannot write the temporary file \(path): \(Errno(failure).message)")
            }
            total += count
        }
        return (path, total, total == limit)
    }

    /// Removes the copies, spools and sort runs made here, then the folder.
    func remove() {
        OwnedPaths.run.removeFiles(in: path)
        OwnedPaths.run.removeFolder(path)
    }
}

/// A temporary file written now and read back once at the end (JUnit's
/// testcases, the preview's cards), created exclusively and tracked so every
/// way a run ends removes it. Write failures are kept, not ignored.
final class Spool {
    let path: String
    private let stream: UnsafeMutablePointer<FILE>
    private(set) var failure: Errno?
    let purpose: String

    /// - Throws: `LocalError` when the file cannot be created.
    init(in folder: String, purpose: String) throws(LocalError) {
        self.purpose = purpose
        switch OwnedPaths.run.createUniqueFile(in: folder, prefix: "spool-") {
        case .failure(let error):
            throw LocalError("cannot create a temporary file for \(purpose) in \(folder): \(error.message)")
        case .success(let (path, descriptor)):
            guard let stream = fdopen(descriptor, "w+") else {
                let error = Errno(errno)
                close(descriptor)
                OwnedPaths.run.remove(path)
                throw LocalError("cannot open a temporary file for \(purpose): \(error.message)")
            }
            self.path = path
            self.stream = stream
        }
    }

    deinit {
        fclose(stream)
        OwnedPaths.run.remove(path)
    }

    /// Bytes written so far: where the next line starts (`readBack(upTo:)` stops at such a place).
    private(set) var bytesWritten = 0

    /// Appends `text` and a newline.
    func writeLine(_ text: String) {
        guard failure == nil else { return }
        if fputs(text, stream) == EOF || fputc(0x0A, stream) == EOF { failure = Errno(errno) }
        bytesWritten += text.utf8.count + 1
    }

    /// Calls `body` with everything written so far (or its first `limit` bytes), a block at a time.
    /// - Throws: `LocalError` when writing or reading the spool failed.
    func readBack(upTo limit: Int? = nil, _ body: (UnsafeRawBufferPointer) -> Void) throws(LocalError) {
        if failure == nil && fflush(stream) != 0 { failure = Errno(errno) }
        if let failure { throw LocalError("cannot write the temporary file for \(purpose) (\(path)): \(failure.message)") }
        rewind(stream)
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var left = limit ?? Int.max
        while left > 0 {
            let count = fread(&buffer, 1, min(buffer.count, left), stream)
            if count == 0 { break }
            left -= count
            buffer.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
        }
        if ferror(stream) != 0 { throw LocalError("cannot read back the temporary file for \(purpose) (\(path))") }
    }
}

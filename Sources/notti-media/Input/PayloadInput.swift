import Glibc
import NottiMedia

/// Reading a payload's bytes from a file or standard input, bounded in size.
enum PayloadInput {
    enum ReadError: Error {
        /// The file cannot be read; `message` says which and why.
        case unreadable(String)
        /// SIGINT or another signal stopped the wait for input.
        case interrupted

        var message: String {
            switch self {
            case .unreadable(let message): message
            case .interrupted: "interrupted while reading the payload"
            }
        }
    }

    /// Reads at most one byte more than `Payload.maxReadBytes` (enough for
    /// `Payload` to refuse an oversized input); a wait on standard input ends
    /// within a fifth of a second of `cancellation`.
    static func read(_ path: String, cancellation: Cancellation, limit: Int = Payload.maxReadBytes + 1) throws(ReadError) -> [UInt8] {
        let descriptor: Int32
        if path == "-" {
            descriptor = STDIN_FILENO
        } else {
            descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw .unreadable(ReadFailure.message(path, errno)) }
            var info = stat()
            if fstat(descriptor, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR {
                close(descriptor)
                throw .unreadable(ReadFailure.folder(path))
            }
        }
        defer { if path != "-" { close(descriptor) } }
        var bytes: [UInt8] = []
        var block = [UInt8](repeating: 0, count: 64 * 1024)
        while bytes.count < limit {
            guard waitUntilReadable(descriptor, unless: { cancellation.isCancelled }) else { throw .interrupted }
            let count = block.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, min($0.count, limit - bytes.count)) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .unreadable(ReadFailure.message(path, errno))
            }
            if count == 0 { break }
            bytes.append(contentsOf: block[..<count])
        }
        return bytes
    }

    /// A `.json.gz` file's text, decompressed as it streams, up to `limit` bytes.
    static func readGzip(_ path: String, limit: Int) throws(ReadError) -> [UInt8] {
        let gzip: GzipFile
        do {
            gzip = try GzipFile(path: path)
        } catch {
            throw .unreadable(error.message)
        }
        switch gzip.readAll(limit: limit) {
        case .success(let bytes): return bytes
        case .failure(let damage): throw .unreadable(damage.message)
        }
    }

    /// The most a file of one JSON array of payloads is read to (an export of a campaign's
    /// payloads or an Expo batch): each element is bounded as a payload is, the file by this.
    static let maxArrayFileBytes = 64 << 20

    /// True when the text's first byte past a byte-order mark and white space is `[`: one JSON
    /// array of payloads (SPEC 20).
    static func startsWithArray(_ bytes: some Collection<UInt8>) -> Bool {
        var rest = bytes[...]
        if rest.starts(with: [0xEF, 0xBB, 0xBF]) { rest = rest.dropFirst(3) }
        return rest.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) } == UInt8(ascii: "[")
    }

    /// Whether the file at `path` holds a JSON array, from its first 4 KB (another shard's file
    /// is read this far only: whether it is one position or many). Only a regular file is looked
    /// into: a FIFO or a device is one position, never opened for another shard.
    static func fileStartsWithArray(_ path: String) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return false }
        if GzipFile.isGzip(path) {
            guard let gzip = try? GzipFile(path: path), case .success(let head) = gzip.readAll(limit: 4096) else { return false }
            return startsWithArray(head)
        }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var head = [UInt8](repeating: 0, count: 4096)
        let count = head.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
        return count > 0 && startsWithArray(head[..<count])
    }
}

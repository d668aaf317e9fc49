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
    static func read(_ path: String, cancellation: Cancellation) throws(ReadError) -> [UInt8] {
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
        let limit = Payload.maxReadBytes + 1
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
}

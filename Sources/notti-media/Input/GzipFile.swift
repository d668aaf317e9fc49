import CZlib
import Glibc

/// A gzip-compressed operand (`.jsonl.gz`, `.json.gz`: how campaign exports are
/// often kept), read through zlib as it streams: only a block of it is ever
/// decompressed in memory. zlib is the one libcurl already loads.
final class GzipFile {
    private let file: gzFile
    let path: String

    /// Why reading stopped: the stream is not gzip, or is cut or damaged.
    struct Damage: Error {
        var message: String
    }

    /// - Throws: `LocalError` with the system's reason when the file cannot be opened.
    init(path: String) throws(LocalError) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw LocalError(ReadFailure.message(path, errno)) }
        guard let file = gzdopen(descriptor, "rb") else {
            close(descriptor)
            throw LocalError("cannot read \(path): out of memory for its gzip stream")
        }
        self.file = file
        self.path = path
    }

    deinit {
        gzclose(file)
    }

    /// Decompresses into `buffer`, up to its size. - Returns: the bytes read (0 at the end).
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Result<Int, Damage> {
        let count = gzread(file, buffer.baseAddress, UInt32(buffer.count))
        // zlib reads a file that is not gzip as it is (its "transparent" mode): a .gz name promises gzip.
        if count > 0 && gzdirect(file) != 0 { return .failure(damage("it is not gzip")) }
        var code: Int32 = 0
        let words = gzerror(file, &code).map { String(cString: $0) } ?? "unknown error"
        // A cut stream is no error to gzread, which returns what it has and then 0: gzerror says so.
        if count > 0 || (count == 0 && code == Z_OK) { return .success(Int(count)) }
        return .failure(damage(code == Z_ERRNO ? String(cString: strerror(errno)) : code == Z_BUF_ERROR ? "it is cut short" : words))
    }

    private func damage(_ why: String) -> Damage {
        Damage(message: "cannot read \(path) as gzip: \(why); check that it was compressed with gzip and copied whole (gzip -t \(path))")
    }

    /// The whole decompressed text, up to `limit` bytes (one more tells that it is over).
    func readAll(limit: Int) -> Result<[UInt8], Damage> {
        var bytes: [UInt8] = []
        var block = [UInt8](repeating: 0, count: 64 * 1024)
        while bytes.count < limit {
            let wanted = min(block.count, limit - bytes.count)
            switch block.withUnsafeMutableBytes({ read(into: UnsafeMutableRawBufferPointer(rebasing: $0[..<wanted])) }) {
            case .failure(let damage): return .failure(damage)
            case .success(0): return .success(bytes)
            case .success(let count): bytes.append(contentsOf: block[..<count])
            }
        }
        return .success(bytes)
    }

    /// True for a name this reads as gzip.
    static func isGzip(_ path: String) -> Bool {
        path.lowercased().hasSuffix(".gz")
    }
}

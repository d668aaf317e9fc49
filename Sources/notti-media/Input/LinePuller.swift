import Glibc

/// Reads a file one line at a time, on demand (the `merge` of several shards
/// pulls from each in turn), holding only the current block and line.
final class LinePuller {
    let path: String
    private let descriptor: Int32
    private var block = [UInt8](repeating: 0, count: 64 * 1024)
    private var start = 0
    private var end = 0
    private var finished = false

    /// - Throws: `LocalError` when the file cannot be opened.
    init(path: String) throws(LocalError) {
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw LocalError(ReadFailure.message(path, errno)) }
        self.path = path
    }

    deinit {
        close(descriptor)
    }

    /// The next non-blank line without its newline; nil at the end.
    /// - Throws: `LocalError` when reading fails.
    func next() throws(LocalError) -> [UInt8]? {
        var line: [UInt8] = []
        while true {
            if start < end {
                if let newline = block[start..<end].firstIndex(of: 0x0A) {
                    line.append(contentsOf: block[start..<newline])
                    start = newline + 1
                    if line.isEmpty { continue }
                    return line
                }
                line.append(contentsOf: block[start..<end])
                start = end
            }
            if finished { return line.isEmpty ? nil : line }
            let count = block.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw LocalError(ReadFailure.message(path, errno))
            }
            if count == 0 { finished = true }
            start = 0
            end = count
        }
    }

    /// The file's last non-blank line, read from its end (a summary may be long).
    static func lastLine(of path: String) throws(LocalError) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw LocalError(ReadFailure.message(path, errno)) }
        defer { close(descriptor) }
        var size = Int(lseek(descriptor, 0, SEEK_END))
        var tail: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while size > 0 {
            let count = min(chunk.count, size)
            size -= count
            let got = chunk.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, count, off_t(size)) }
            guard got == count else { throw LocalError(ReadFailure.message(path, errno)) }
            tail.insert(contentsOf: chunk[..<count], at: 0)
            while tail.last == 0x0A || tail.last == 0x0D { tail.removeLast() }
            if let newline = tail.lastIndex(of: 0x0A) { return Array(tail[(newline + 1)...]) }
        }
        return tail.isEmpty ? nil : tail
    }
}

import CZlib
import Glibc
import NottiMedia

/// Reads JSON Lines from a file descriptor (or a gzip stream, `.jsonl.gz`) in 64 KiB blocks, one payload a line.
///
/// Memory stays flat whatever the input's length: only the current block and
/// line are held. A line longer than `Payload.maxReadBytes` is not buffered:
/// it is reported as unreadable and skipped up to its newline.
struct LineReader {
    enum Line {
        case text([UInt8])
        case tooLong
        /// Reading failed with this errno; nothing after it is read.
        case failed(Int32)
        /// The gzip stream is damaged (zlib's words); nothing after it is read.
        case damaged(String)
    }

    let fileDescriptor: Int32
    /// Set for a `.jsonl.gz` file: its lines are read through zlib (`fileDescriptor` is unused then).
    var gzip: GzipFile?
    /// Checked while waiting for input, so SIGINT stops an idle `check -`.
    let isCancelled: () -> Bool
    /// Told of each block's size as it is read (the progress line's bytes read).
    var counted: ((Int) -> Void)?
    static let blockSize = 64 * 1024

    /// Calls `body` with each non-blank line and its 1-based number until it
    /// returns false; `willRead` runs before every read that may block.
    func forEachLine(willRead: () -> Void, _ body: (Int, Line) -> Bool) {
        var block = [UInt8](repeating: 0, count: Self.blockSize)
        var line: [UInt8] = []
        var lineNumber = 1
        var skippingLongLine = false
        func emit() -> Bool {
            defer {
                line.removeAll(keepingCapacity: true)
                lineNumber += 1
            }
            if skippingLongLine {
                skippingLongLine = false
                return body(lineNumber, .tooLong)
            }
            if line.last == 0x0D { line.removeLast() }
            guard line.contains(where: { $0 != 0x20 && $0 != 0x09 }) else { return true }
            return body(lineNumber, .text(line))
        }
        while true {
            willRead()
            let count: Int
            if let gzip {
                if isCancelled() { return }
                switch block.withUnsafeMutableBytes({ gzip.read(into: $0) }) {
                case .success(let read): count = read
                case .failure(let damage):
                    _ = body(lineNumber, .damaged(damage.message))
                    return
                }
            } else {
                guard waitUntilReadable(fileDescriptor, unless: isCancelled) else { return }
                count = block.withUnsafeMutableBytes { read(fileDescriptor, $0.baseAddress, Self.blockSize) }
                if count < 0 {
                    if errno == EINTR { continue }
                    _ = body(lineNumber, .failed(errno))
                    return
                }
            }
            if count == 0 { break }
            counted?(count)
            var start = 0
            while start < count {
                // memchr over the block, and lines copied from its buffer: slices of
                // `block` retained and released it for every line of a campaign.
                let newline: Int? = block.withUnsafeBytes { buffer -> Int? in
                    guard let base = buffer.baseAddress, let found = memchr(base + start, 0x0A, count - start) else { return nil }
                    return UnsafeRawPointer(found) - base
                }
                let end = newline ?? count
                if !skippingLongLine {
                    if line.count + (end - start) > Payload.maxReadBytes {
                        skippingLongLine = true
                        line.removeAll(keepingCapacity: false)
                    } else {
                        block.withUnsafeBytes { buffer in line.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[start..<end])) }
                    }
                }
                guard newline != nil else { break }
                if !emit() { return }
                start = end + 1
            }
        }
        if skippingLongLine || !line.isEmpty { _ = emit() }
    }
}

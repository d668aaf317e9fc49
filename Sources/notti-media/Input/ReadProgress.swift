import Glibc
import NottiMedia
import Synchronization

/// How far the reader is through the input, for the progress line's total and time left (a
/// person watching a long check): the bytes read so far, and the input's size when it is known
/// (every operand a regular file or a folder of them; not standard input, not gzip, whose read
/// bytes are not the file's). Written by the reading thread, read by the writer's.
final class ReadProgress: Sendable {
    /// The input's size in bytes; nil when it is not known.
    let total: Int?
    private let read = Atomic<Int>(0)

    init(operands: [String]) {
        var total = 0
        var known = true
        func add(_ path: String) {
            if GzipFile.isGzip(path) { known = false; return }
            var info = stat()
            guard stat(path, &info) == 0 else { return }
            if info.st_mode & S_IFMT == S_IFREG { total += Int(info.st_size); return }
            guard info.st_mode & S_IFMT == S_IFDIR, let names = try? FilePaths.contents(ofFolder: path) else { return }
            // As the walk reads them: hidden entries skipped, payload files and JSON Lines counted.
            for name in names where !name.hasPrefix(".") {
                let child = path.hasSuffix("/") ? path + name : path + "/" + name
                var entry = stat()
                guard lstat(child, &entry) == 0 else { continue }
                if entry.st_mode & S_IFMT == S_IFDIR || PayloadSources.isInput(name) { add(child) }
            }
        }
        for operand in operands {
            if operand == "-" { known = false } else { add(operand) }
        }
        self.total = known && total > 0 ? total : nil
    }

    func add(_ bytes: Int) {
        read.add(bytes, ordering: .relaxed)
    }

    var bytesRead: Int { read.load(ordering: .relaxed) }
}

import Glibc

/// Lines sorted by their bytes, held in memory up to `runBytes` and beyond that in
/// sorted runs on disk, merged when read: what lets a summary list a million URLs
/// in a few MB (SPEC 13). A small input never touches the disk, and the order is the
/// same either way (bytes, then nothing: equal lines are equal).
///
/// Run files are made in `folder` through `OwnedPaths` (so every way a run ends
/// removes them) and removed when read or when the sorter goes. A run that cannot be
/// written (a full disk) keeps its lines in memory instead: the output stays whole,
/// only the bound is lost. Used from one thread.
package final class LineSorter {
    private let folder: String?
    private let runBytes: Int
    private var lines: [[UInt8]] = []
    private var bufferedBytes = 0
    /// Sorted runs on disk, oldest first.
    private var runs: [String] = []
    /// Set when a run could not be written: everything stays in memory from then on.
    private var spillFailed = false
    /// At most this many runs are open at once when merging: more are first merged into one.
    private static let mergeWidth = 64

    /// - Parameters:
    ///   - folder: where runs go; nil keeps every line in memory.
    ///   - runBytes: the most line bytes held in memory before a run is written.
    package init(folder: String?, runBytes: Int = 1 << 20) {
        self.folder = folder
        self.runBytes = max(1, runBytes)
    }

    deinit {
        runs.forEach { OwnedPaths.run.remove($0) }
    }

    /// Lines added so far written to disk, in runs (for tests).
    package var runCount: Int { runs.count }

    /// Adds one line; it must not contain a newline.
    package func add(_ line: [UInt8]) {
        bufferedBytes += line.count + 16
        lines.append(line)
        if bufferedBytes >= runBytes { spill() }
    }

    /// Every line added, in byte order, kept to be read as often as needed: in memory when
    /// no run was written, else in one file (the runs merged into one). The sorter is empty after.
    package func sorted() -> SortedLines {
        if let folder, !runs.isEmpty {
            spill()
            if runs.count > 1 { compactRuns(in: folder) }
            if lines.isEmpty && runs.count == 1 {
                defer { runs = [] }
                return SortedLines(file: runs[0])
            }
        }
        // No run, or one could not be written: memory it is (every run is still there to read).
        var kept: [[UInt8]] = []
        drain { kept.append($0) }
        return SortedLines(lines: kept)
    }

    /// Calls `body` with every line added, in byte order; the sorter is empty after.
    package func drain(_ body: ([UInt8]) -> Void) {
        lines.sort(by: Self.precedes)
        if runs.isEmpty {
            lines.forEach(body)
        } else {
            var sources: [LineSource] = [ArraySource(lines)]
            sources += runs.compactMap { FileSource(path: $0) }
            Self.merge(sources, body)
        }
        lines = []
        bufferedBytes = 0
        runs.forEach { OwnedPaths.run.remove($0) }
        runs = []
    }

    private func spill() {
        guard let folder, !spillFailed, !lines.isEmpty else { return }
        lines.sort(by: Self.precedes)
        guard let path = write(lines, in: folder) else {
            spillFailed = true
            return
        }
        runs.append(path)
        lines = []
        bufferedBytes = 0
        if runs.count >= Self.mergeWidth { compactRuns(in: folder) }
    }

    /// Merges every run into one, so a merge never holds more than `mergeWidth` files open.
    /// When the merged run cannot be written, the runs stay as they are (and nothing more spills).
    private func compactRuns(in folder: String) {
        let sources = runs.compactMap { FileSource(path: $0) }
        guard let path = Self.writeRun(in: folder, { line in Self.merge(sources, line) }) else {
            spillFailed = true
            return
        }
        runs.forEach { OwnedPaths.run.remove($0) }
        runs = [path]
    }

    private func write(_ sorted: [[UInt8]], in folder: String) -> String? {
        Self.writeRun(in: folder) { line in sorted.forEach(line) }
    }

    /// A new run file in `folder` holding the lines `produce` gives, a newline after each;
    /// nil (and no file) when it cannot be written whole.
    private static func writeRun(in folder: String, _ produce: (([UInt8]) -> Void) -> Void) -> String? {
        guard case .success(let made) = OwnedPaths.run.createUniqueFile(in: folder, prefix: "sort-") else { return nil }
        guard let stream = fdopen(made.descriptor, "w") else {
            close(made.descriptor)
            OwnedPaths.run.remove(made.path)
            return nil
        }
        var failed = false
        produce { line in
            if !failed && (fwrite(line, 1, line.count, stream) != line.count || fputc(0x0A, stream) == EOF) { failed = true }
        }
        if fclose(stream) != 0 { failed = true }
        if failed {
            OwnedPaths.run.remove(made.path)
            return nil
        }
        return made.path
    }

    static func precedes(_ left: [UInt8], _ right: [UInt8]) -> Bool {
        let common = min(left.count, right.count)
        guard common > 0 else { return left.count < right.count }
        let order = left.withUnsafeBytes { l in right.withUnsafeBytes { r in memcmp(l.baseAddress!, r.baseAddress!, common) } }
        return order != 0 ? order < 0 : left.count < right.count
    }

    /// A k-way merge of sorted sources (a binary heap of their next lines).
    private static func merge(_ sources: [LineSource], _ body: ([UInt8]) -> Void) {
        var heap: [(line: [UInt8], source: Int)] = []
        func less(_ a: Int, _ b: Int) -> Bool {
            precedes(heap[a].line, heap[b].line) || (heap[a].line == heap[b].line && heap[a].source < heap[b].source)
        }
        func siftDown(_ start: Int) {
            var parent = start
            while true {
                let left = 2 * parent + 1
                guard left < heap.count else { return }
                var child = left
                if left + 1 < heap.count && less(left + 1, left) { child = left + 1 }
                guard less(child, parent) else { return }
                heap.swapAt(child, parent)
                parent = child
            }
        }
        for (index, source) in sources.enumerated() {
            if let line = source.next() { heap.append((line, index)) }
        }
        for index in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(index) }
        while let top = heap.first {
            body(top.line)
            if let line = sources[top.source].next() {
                heap[0] = (line, top.source)
            } else {
                heap[0] = heap[heap.count - 1]
                heap.removeLast()
            }
            if !heap.isEmpty { siftDown(0) }
        }
    }
}

/// A sorter's result: its lines in order, read as often as needed.
package final class SortedLines {
    private let lines: [[UInt8]]
    private let file: String?

    init(lines: [[UInt8]]) {
        self.lines = lines
        file = nil
    }

    init(file: String) {
        lines = []
        self.file = file
    }

    deinit {
        if let file { OwnedPaths.run.remove(file) }
    }

    /// Calls `body` with each line, in order.
    package func forEach(_ body: ([UInt8]) -> Void) {
        guard let file else { return lines.forEach(body) }
        guard let source = FileSource(path: file) else { return }
        while let line = source.next() { body(line) }
    }
}

/// Where a merge reads its next line from.
private class LineSource {
    func next() -> [UInt8]? { nil }
}

private final class ArraySource: LineSource {
    private let lines: [[UInt8]]
    private var position = 0

    init(_ lines: [[UInt8]]) { self.lines = lines }

    override func next() -> [UInt8]? {
        guard position < lines.count else { return nil }
        defer { position += 1 }
        return lines[position]
    }
}

/// A run file read a line at a time (`getline`).
private final class FileSource: LineSource {
    private let stream: UnsafeMutablePointer<FILE>
    private var buffer: UnsafeMutablePointer<CChar>?
    private var capacity = 0

    init?(path: String) {
        guard let stream = fopen(path, "re") else { return nil }
        self.stream = stream
    }

    deinit {
        free(buffer)
        fclose(stream)
    }

    override func next() -> [UInt8]? {
        let count = getline(&buffer, &capacity, stream)
        guard count > 0, let buffer else { return nil }
        let length = buffer[count - 1] == 0x0A ? count - 1 : count
        return buffer.withMemoryRebound(to: UInt8.self, capacity: length) { Array(UnsafeBufferPointer(start: $0, count: length)) }
    }
}

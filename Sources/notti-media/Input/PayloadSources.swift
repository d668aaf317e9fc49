import Glibc
import NottiMedia

/// The payloads named on `check`'s command line, produced lazily in a stable
/// order: files as given, folders walked for `*.json`, `*.apns`, `*.jsonl` and
/// `*.ndjson`, and `*.json.gz`, `*.jsonl.gz`, `*.ndjson.gz` (sorted by path, hidden entries skipped),
/// `.jsonl` / `.ndjson` files (and `.jsonl.gz`, `.ndjson.gz`) and `-` one payload a line.
///
/// Every payload has a position (0-based, in that order, over the whole input);
/// with a shard, only the positions that are `index - 1` modulo `count` are
/// produced. A file of one JSON array holds a position per element, so another
/// shard's regular file is read as far as its first bytes (whether it is an array);
/// nothing else of it is read, and a FIFO or device of another shard's is never opened.
struct PayloadSources {
    let paths: [String]
    let cancellation: Cancellation
    let shard: (index: Int, count: Int)?
    /// Told of each operand (or folder, or part of one) that cannot be read, as
    /// `ReadFailure` says it: it is not a payload and is not counted as one.
    var unreadable: (String) -> Void = { _ in }
    /// Counts the bytes read, for the progress line (a terminal's).
    var progress: ReadProgress?

    /// Checks that every path exists before anything runs.
    /// - Throws: `UsageError` naming the first path that does not.
    init(paths: [String], cancellation: Cancellation, shard: (index: Int, count: Int)? = nil) throws(UsageError) {
        for path in paths where path != "-" {
            var info = stat()
            guard stat(path, &info) == 0 else { throw UsageError("no such file or folder: \(path)") }
        }
        if paths.filter({ $0 == "-" }).count > 1 { throw UsageError("standard input (-) can be read only once") }
        self.paths = paths
        self.cancellation = cancellation
        self.shard = shard
    }

    static func isJSONLines(_ path: String) -> Bool {
        let lower = path.lowercased()
        return lower.hasSuffix(".jsonl") || lower.hasSuffix(".ndjson") || lower.hasSuffix(".jsonl.gz") || lower.hasSuffix(".ndjson.gz")
    }

    /// Calls `body` with each of this shard's payloads until it returns false;
    /// `willBlock` runs before reads that may block, so batched work can be
    /// handed on first.
    /// - Returns: how many payloads the whole input holds (all shards), so far.
    @discardableResult
    func forEach(willBlock: () -> Void, _ body: (CheckInput) -> Bool) -> Int {
        // The walk keeps both closures for its duration only.
        withoutActuallyEscaping(willBlock) { willBlock in
            withoutActuallyEscaping(body) { body in
                var walk = Walk(shard: shard, willBlock: willBlock, body: body)
                for path in paths {
                    if !visit(path, &walk) { break }
                }
                return walk.position
            }
        }
    }

    /// The state of one pass: the next position, and what to call.
    private struct Walk {
        let shard: (index: Int, count: Int)?
        let willBlock: () -> Void
        let body: (CheckInput) -> Bool
        var position = 0

        /// True when the next position belongs to this shard.
        var owns: Bool { shard.map { position % $0.count == $0.index - 1 } ?? true }

        /// Hands `make()`'s input on when the position is this shard's (without
        /// making it otherwise), and moves to the next position.
        /// Moves past a position without a payload (an unreadable file of this shard's).
        mutating func skip() { position += 1 }

        mutating func next(_ make: () -> CheckInput) -> Bool {
            defer { position += 1 }
            guard owns else { return true }
            var input = make()
            input.index = position
            return body(input)
        }
    }

    private func visit(_ path: String, _ walk: inout Walk) -> Bool {
        if path == "-" { return lines(of: STDIN_FILENO, named: "-", &walk) }
        var info = stat()
        if stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR { return self.walk(path, &walk) }
        if Self.isJSONLines(path) && GzipFile.isGzip(path) {
            let gzip: GzipFile
            do {
                gzip = try GzipFile(path: path)
            } catch {
                unreadable(error.message)
                return true
            }
            return lines(of: -1, gzip: gzip, named: path, &walk)
        }
        if Self.isJSONLines(path) {
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else {
                unreadable(ReadFailure.message(path, errno))
                return true
            }
            defer { close(descriptor) }
            return lines(of: descriptor, named: path, &walk)
        }
        return single(path, &walk)
    }

    /// One payload file. Another shard's file is counted, never opened; one of
    /// this shard's that cannot be read is reported, and keeps its position.
    /// A file of one JSON array is an input per element (SPEC 20): another shard's file is read as far
    /// as its first byte, which says whether it is one position or many.
    private func single(_ path: String, _ walk: inout Walk) -> Bool {
        // Another shard's file is looked into only when it is not this shard's, and only its first bytes.
        guard walk.owns || PayloadInput.fileStartsWithArray(path) else {
            return walk.next { CheckInput(source: path, body: .unreadable("")) }
        }
        var bytes: [UInt8]
        do {
            bytes = try read(path, limit: Payload.maxReadBytes + 1)
            // One payload is bounded by its own limit; a file of an array of them, cut there, by the array's.
            if bytes.count > Payload.maxReadBytes && PayloadInput.startsWithArray(bytes) {
                bytes = try read(path, limit: PayloadInput.maxArrayFileBytes + 1)
            }
        } catch {
            if case .interrupted = error { return false }
            unreadable(error.message)
            walk.skip()
            return true
        }
        progress?.add(bytes.count)
        let array = PayloadInput.startsWithArray(bytes)
        if array, let going = elements(of: bytes, named: path, line: nil, &walk) { return going }
        if let hint = Self.jsonLinesHint(path, bytes) { return walk.next { CheckInput(source: path, body: .unreadable(hint)) } }
        // Over its bound, a payload is refused by `Payload` itself; an array (not valid JSON here) by the array's bound.
        return walk.next {
            CheckInput(source: path, body: array && bytes.count > PayloadInput.maxArrayFileBytes
                ? .unreadable("larger than \(PayloadInput.maxArrayFileBytes) bytes: too large a file of payloads") : .bytes(bytes))
        }
    }

    /// A payload file's text, up to `limit` bytes: through zlib for a `.gz` name.
    private func read(_ path: String, limit: Int) throws(PayloadInput.ReadError) -> [UInt8] {
        GzipFile.isGzip(path)
            ? try PayloadInput.readGzip(path, limit: limit) : try PayloadInput.read(path, cancellation: cancellation, limit: limit)
    }

    /// For a `.txt` file that is not one JSON value but whose first line is one: JSON Lines under
    /// another name (exports often are), said so with the fix, rather than a syntax error at line 2.
    private static func jsonLinesHint(_ path: String, _ bytes: [UInt8]) -> String? {
        guard path.lowercased().hasSuffix(".txt"), let newline = bytes.firstIndex(of: 0x0A),
              (try? JSONParser.parse(bytes)) == nil, (try? JSONParser.parse(Array(bytes[..<newline]))) != nil else { return nil }
        return "this looks like JSON Lines (one payload a line), but only .jsonl and .ndjson files are read a line at a time: "
            + "rename it \(path.dropLast(4)).jsonl"
    }

    /// Each element of `bytes`, a JSON array, as an input, its bytes parsed later as any payload's: in a file,
    /// `NAME[N]` (N from 0), its findings at their positions in the file (SPEC 10: a one-line array's elements
    /// have columns of their own); in a JSON Lines line, `NAME:LINE`, as the line's own findings.
    /// - Returns: nil when `bytes` is not a valid JSON array (then it is one input, and its
    ///   error is reported as a payload's), else whether to go on.
    private func elements(of bytes: [UInt8], named name: String, line: Int?, _ walk: inout Walk) -> Bool? {
        guard let ranges = try? JSONParser.arrayElementRanges(bytes) else { return nil }
        // Where each element starts: its line, and its column in characters (as the parser counts them).
        var position = MediaKeyPositions.Position(line: 1, column: 1)
        var counted = 0
        for (element, range) in ranges.enumerated() {
            for byte in bytes[counted..<range.lowerBound] {
                if byte == 0x0A {
                    position = MediaKeyPositions.Position(line: position.line + 1, column: 1)
                } else if byte & 0xC0 != 0x80 {
                    position.column += 1
                }
            }
            counted = range.lowerBound
            let origin = position
            let going = walk.next {
                let body: CheckInput.Body = range.count > Payload.maxReadBytes
                    ? .unreadable("larger than \(Payload.maxReadBytes) bytes: not a push payload") : .bytes(Array(bytes[range]))
                if let line { return CheckInput(source: Self.lineSource(name, line), body: body, lineNumber: line) }
                var input = CheckInput(source: "\(name)[\(element)]", body: body)
                input.origin = origin
                return input
            }
            if !going { return false }
        }
        return true
    }

    private func lines(of descriptor: Int32, gzip: GzipFile? = nil, named name: String, _ walk: inout Walk) -> Bool {
        var going = true
        var reader = LineReader(fileDescriptor: descriptor, gzip: gzip, isCancelled: { cancellation.isCancelled })
        reader.counted = progress.map { progress in { progress.add($0) } }
        reader.forEachLine(willRead: walk.willBlock) { number, line in
            // The rest of this operand is lost, not bad JSON: say so, and go on with the next.
            if case .failed(let code) = line {
                unreadable(ReadFailure.message(name, code))
                return false
            }
            if case .damaged(let message) = line {
                unreadable(message)
                return false
            }
            // A line of one JSON array: an input per element, each named by the line.
            if case .text(let bytes) = line, PayloadInput.startsWithArray(bytes),
               let continued = elements(of: bytes, named: name, line: number, &walk) {
                going = continued
                return going
            }
            let source = Self.lineSource(name, number)
            going = walk.next {
                switch line {
                case .text(let bytes): CheckInput(source: source, body: .bytes(bytes), lineNumber: number)
                case .tooLong:
                    CheckInput(source: source, body: .unreadable("larger than \(Payload.maxReadBytes) bytes: not a push payload"), lineNumber: number)
                case .failed, .damaged: preconditionFailure("handled above")
                }
            }
            return going
        }
        return going
    }

    /// `NAME:NUMBER`, a line's source, written at its length at once, the number's digits straight
    /// into it: interpolated, it was two appends that grew the text, over a third of the reader's
    /// work on every line of a campaign; with the number made a string first, still a fifth.
    private static func lineSource(_ name: String, _ number: Int) -> String {
        var name = name
        var digitCount = 1
        var rest = number / 10
        while rest > 0 {
            digitCount += 1
            rest /= 10
        }
        return name.withUTF8 { nameBytes in
            String(unsafeUninitializedCapacity: nameBytes.count + 1 + digitCount) { buffer in
                var end = buffer.initialize(fromContentsOf: nameBytes)
                buffer[end] = UInt8(ascii: ":")
                end += 1 + digitCount
                var value = number
                for position in stride(from: end - 1, to: end - 1 - digitCount, by: -1) {
                    buffer[position] = UInt8(ascii: "0") + UInt8(value % 10)
                    value /= 10
                }
                return end
            }
        }
    }

    /// Depth first, entries sorted by name; links to folders are not followed,
    /// hidden entries (`.git`, editors' `.#x.json`) are skipped.
    private func walk(_ folder: String, _ walk: inout Walk) -> Bool {
        walk.willBlock()
        let names: [String]
        do {
            names = try FilePaths.contents(ofFolder: folder)
        } catch {
            unreadable("cannot list the folder \(folder): \(error.message); make it readable and searchable by this user (chmod), "
                + "or run as a user who can list it")
            return true
        }
        for name in names.sorted() where !name.hasPrefix(".") {
            let path = folder.hasSuffix("/") ? folder + name : folder + "/" + name
            var info = stat()
            guard lstat(path, &info) == 0 else { continue }
            let type = info.st_mode & S_IFMT
            if type == S_IFDIR {
                if !self.walk(path, &walk) { return false }
            } else if type == S_IFREG || type == S_IFLNK {
                if Self.isJSONLines(name) {
                    if !visit(path, &walk) { return false }
                } else if Self.isPayloadFile(name), !single(path, &walk) {
                    return false
                }
            }
        }
        return true
    }

    /// A name a folder walk reads: a payload file or JSON Lines.
    static func isInput(_ name: String) -> Bool { isJSONLines(name) || isPayloadFile(name) }

    private static func isPayloadFile(_ name: String) -> Bool {
        let lower = name.lowercased()
        return lower.hasSuffix(".json") || lower.hasSuffix(".apns") || lower.hasSuffix(".json.gz")
    }
}

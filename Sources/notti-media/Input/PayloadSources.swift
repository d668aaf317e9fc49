import FoundationEssentials
import Glibc
import NottiMedia

/// The payloads named on `check`'s command line, produced lazily in a stable
/// order: files as given, folders walked for `*.json`, `*.apns`, `*.jsonl` and
/// `*.ndjson` (sorted by path, hidden entries skipped), `.jsonl` / `.ndjson`
/// files and `-` one payload a line.
struct PayloadSources {
    let paths: [String]
    let cancellation: Cancellation

    /// Checks that every path exists before anything runs.
    /// - Throws: `UsageError` naming the first path that does not.
    init(paths: [String], cancellation: Cancellation) throws(UsageError) {
        for path in paths where path != "-" {
            guard FileManager.default.fileExists(atPath: path) else {
                throw UsageError("no such file or folder: \(path)")
            }
        }
        if paths.filter({ $0 == "-" }).count > 1 { throw UsageError("standard input (-) can be read only once") }
        self.paths = paths
        self.cancellation = cancellation
    }

    static func isJSONLines(_ path: String) -> Bool {
        let lower = path.lowercased()
        return lower.hasSuffix(".jsonl") || lower.hasSuffix(".ndjson")
    }

    /// Calls `body` with each payload until it returns false; `willBlock` runs
    /// before reads that may block, so batched work can be handed on first.
    func forEach(willBlock: () -> Void, _ body: (CheckInput) -> Bool) {
        for path in paths {
            if !visit(path, willBlock: willBlock, body) { return }
        }
    }

    private func visit(_ path: String, willBlock: () -> Void, _ body: (CheckInput) -> Bool) -> Bool {
        if path == "-" { return lines(of: STDIN_FILENO, named: "-", willBlock: willBlock, body) }
        var info = stat()
        if stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR { return walk(path, willBlock: willBlock, body) }
        if Self.isJSONLines(path) {
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else {
                return body(CheckInput(source: path, body: .unreadable("cannot read: \(String(cString: strerror(errno)))")))
            }
            defer { close(descriptor) }
            return lines(of: descriptor, named: path, willBlock: willBlock, body)
        }
        return body(single(path))
    }

    private func single(_ path: String) -> CheckInput {
        do {
            return CheckInput(source: path, body: .bytes(try PayloadInput.read(path, cancellation: cancellation)))
        } catch {
            return CheckInput(source: path, body: .unreadable(error.message))
        }
    }

    private func lines(of descriptor: Int32, named name: String, willBlock: () -> Void, _ body: (CheckInput) -> Bool) -> Bool {
        var going = true
        LineReader(fileDescriptor: descriptor, isCancelled: { cancellation.isCancelled }).forEachLine(willRead: willBlock) { number, line in
            let source = "\(name):\(number)"
            switch line {
            case .text(let bytes): going = body(CheckInput(source: source, body: .bytes(bytes), isLine: true))
            case .tooLong:
                going = body(CheckInput(
                    source: source, body: .unreadable("larger than \(Payload.maxReadBytes) bytes: not a push payload"), isLine: true))
            case .failed(let why): going = body(CheckInput(source: source, body: .unreadable("cannot read: \(why)"), isLine: true))
            }
            return going
        }
        return going
    }

    /// Depth first, entries sorted by name; links to folders are not followed,
    /// hidden entries (`.git`, editors' `.#x.json`) are skipped.
    private func walk(_ folder: String, willBlock: () -> Void, _ body: (CheckInput) -> Bool) -> Bool {
        willBlock()
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else {
            return body(CheckInput(source: folder, body: .unreadable("cannot list the folder")))
        }
        for name in names.sorted() where !name.hasPrefix(".") {
            let path = folder.hasSuffix("/") ? folder + name : folder + "/" + name
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else { continue }
            let type = attributes[.type] as? FileAttributeType
            if type == .typeDirectory {
                if !walk(path, willBlock: willBlock, body) { return false }
            } else if type == .typeRegular || type == .typeSymbolicLink {
                if Self.isJSONLines(name) {
                    if !visit(path, willBlock: willBlock, body) { return false }
                } else if isPayloadFile(name) {
                    if !body(single(path)) { return false }
                }
            }
        }
        return true
    }

    private func isPayloadFile(_ name: String) -> Bool {
        let lower = name.lowercased()
        return lower.hasSuffix(".json") || lower.hasSuffix(".apns")
    }
}

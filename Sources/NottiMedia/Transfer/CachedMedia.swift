import Glibc

/// A verdict as `--cache` keeps it (SPEC 14), one row per URL and policy, in one of three kinds:
/// - a download some attachment was placed from: its transfer facts (`TransferFacts.json`),
///   what the bytes are, and the name of that content-addressed file;
/// - a download no record attached: the same, with its bytes kept in the cache (`content`),
///   since nothing in `--out` names them;
/// - a download that failed with the server's validators (`too_large`, `http_error`,
///   `empty_media`): its facts, reason and message.
/// So a 304 gives back exactly what the full download gave, failing verdicts included.
extension MediaDownload {
    /// The row, naming `placedPath`, the attachment file that holds the bytes after the run,
    /// or, with none, saying the bytes are kept in the cache.
    /// Null (nothing kept) when no decode could be made of it: the next run decodes it again (SPEC 17).
    func cacheRecord(placedPath: String?) -> JSONValue {
        guard facts.decoded?.failed == nil, let transfer = facts.transfer, case .object(var members) = transfer.json else { return .null }
        members += [
            JSONMember("bytes", .optional(facts.bytes)),
            JSONMember("sha256", .optional(facts.sha256)),
            JSONMember("sniffedMime", .string(sniffedMime)),
            JSONMember("dimensions", facts.dimensions?.json ?? .null),
            JSONMember("decoded", facts.decoded?.answer ?? .null),
            JSONMember("leadingBytes", .array(leadingBytes.map { .int(Int($0)) })),
        ]
        if let placedPath {
            members += [
                JSONMember("file", .string(FilePaths.lastComponent(placedPath))),
                JSONMember("folder", .string(FilePaths.parent(placedPath))),
            ]
        } else {
            members.append(JSONMember("content", .bool(true)))
        }
        return .object(members)
    }

    /// The row of a download that failed, for `--cache`.
    static func cacheRecord(failed facts: MediaFacts, _ reason: DiagnosticCode, _ message: String) -> JSONValue {
        guard let transfer = facts.transfer, case .object(var members) = transfer.json else { return .null }
        members += [JSONMember("failed", .string(reason.rawValue)), JSONMember("message", .string(message))]
        return .object(members)
    }

    /// The failure a row kept, as this run reports it on a 304; nil when the row is no failure.
    static func cachedFailure(_ record: JSONValue, url: MediaURL, policy: MediaPolicy) -> MediaResult? {
        guard let reason = record["failed"]?.stringValue.flatMap(DiagnosticCode.init(rawValue:)),
              let message = record["message"]?.stringValue, let transfer = TransferFacts(json: record)
        else { return nil }
        var facts = MediaFacts(checked: url, policy: policy)
        facts.transfer = transfer
        facts.cacheState = "revalidated"
        return .failed(facts, reason, message)
    }

    /// Whether the row keeps its bytes in the cache rather than in a placed file.
    static func keepsContent(_ record: JSONValue) -> Bool { record["content"] == .bool(true) }

    /// The download `record` stored, for `url` under `policy`, judged into this
    /// run's attachment `folder`; its bytes are in `source` when given (kept in the
    /// cache and written out for this run), else the file the record names (in this
    /// folder or another run's), which placing links or copies from.
    /// - Returns: nil when the record is not whole or the file is gone.
    convenience init?(cacheRecord record: JSONValue, url: MediaURL, policy: MediaPolicy, folder: String, source: WorkingFile? = nil) {
        guard let sha256 = record["sha256"]?.stringValue,
              let bytes = record["bytes"]?.intValue, let sniffed = record["sniffedMime"]?.stringValue,
              let transfer = TransferFacts(json: record)
        else { return nil }
        let bytesAt: WorkingFile
        if let source {
            bytesAt = source
        } else {
            guard case .string(let file)? = record["file"], !file.contains("/") else { return nil }
            let storedFolder = record["folder"]?.stringValue ?? folder
            guard let path = [folder, storedFolder].lazy.map({ "\($0)/\(file)" }).first(where: { Self.isReadableFile($0) }) else { return nil }
            bytesAt = WorkingFile(placedAt: path)
        }
        var facts = MediaFacts(checked: url, policy: policy)
        facts.transfer = transfer
        facts.bytes = bytes
        facts.sha256 = sha256
        facts.sniffedMime = sniffed
        if let width = record["dimensions"]?["width"]?.intValue, let height = record["dimensions"]?["height"]?.intValue {
            facts.dimensions = Dimensions(width: width, height: height)
        }
        facts.decoded = record["decoded"].flatMap { DecodedMedia(answer: $0, mime: sniffed) }
        facts.cacheState = "revalidated"
        var leading: [UInt8] = []
        if case .array(let values)? = record["leadingBytes"] { leading = values.compactMap { $0.intValue.map { UInt8(truncatingIfNeeded: $0) } } }
        self.init(
            facts: facts, source: bytesAt, folder: folder, sniffedMime: sniffed, leadingBytes: leading)
    }

    /// A regular file (not a link, a folder or a device) that can be read.
    fileprivate static func isReadableFile(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFREG && access(path, R_OK) == 0
    }
}

extension MediaResult {
    /// A stored verdict with the connection a revalidation just made (`TransferFacts.takeConnection`).
    func takingConnection(of fresh: TransferFacts) -> MediaResult {
        var facts = self.facts
        guard facts.transfer != nil else { return self }
        facts.transfer?.takeConnection(of: fresh)
        switch self {
        case .fetched(let media, let memo): return .fetched(media.with(facts: facts), memo.forSameBytes())
        case .failed(_, let reason, let message, _): return .failed(facts, reason, message)
        }
    }
}

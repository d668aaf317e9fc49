import Glibc

/// A download as `--cache` keeps it: its transfer facts (`TransferFacts.json`),
/// what the bytes are, and the name of a content-addressed file placed from it,
/// so a 304 gives back exactly what the full download gave.
extension MediaDownload {
    /// The row, naming `placedPath`, the attachment file that holds the bytes after the run.
    func cacheRecord(placedPath: String) -> JSONValue {
        guard let transfer = facts.transfer, case .object(var members) = transfer.json else { return .null }
        members += [
            JSONMember("bytes", .optional(facts.bytes)),
            JSONMember("sha256", .optional(facts.sha256)),
            JSONMember("sniffedMime", .string(sniffedMime)),
            JSONMember("dimensions", facts.dimensions?.json ?? .null),
            JSONMember("leadingBytes", .array(leadingBytes.map { .int(Int($0)) })),
            JSONMember("file", .string(FilePaths.lastComponent(placedPath))),
            JSONMember("folder", .string(FilePaths.parent(placedPath))),
        ]
        return .object(members)
    }

    /// The download `record` stored, for `url` under `policy`, judged into this
    /// run's attachment `folder`; its bytes are the file the record names
    /// (in this folder or another run's), which placing links or copies from.
    /// - Returns: nil when the record is not whole or the file is gone.
    convenience init?(cacheRecord record: JSONValue, url: MediaURL, policy: MediaPolicy, folder: String) {
        guard case .string(let file)? = record["file"], !file.contains("/"), let sha256 = record["sha256"]?.stringValue,
              let bytes = record["bytes"]?.intValue, let sniffed = record["sniffedMime"]?.stringValue,
              let transfer = TransferFacts(json: record)
        else { return nil }
        let storedFolder = record["folder"]?.stringValue ?? folder
        guard let path = [folder, storedFolder].lazy.map({ "\($0)/\(file)" }).first(where: { Self.isReadableFile($0) }) else { return nil }
        var facts = MediaFacts(url: url.string, policy: policy)
        facts.urlExtension = url.pathExtension
        facts.host = url.host
        facts.transfer = transfer
        facts.bytes = bytes
        facts.sha256 = sha256
        if let width = record["dimensions"]?["width"]?.intValue, let height = record["dimensions"]?["height"]?.intValue {
            facts.dimensions = Dimensions(width: width, height: height)
        }
        facts.cacheState = "revalidated"
        var leading: [UInt8] = []
        if case .array(let values)? = record["leadingBytes"] { leading = values.compactMap { $0.intValue.map { UInt8(truncatingIfNeeded: $0) } } }
        self.init(
            facts: facts, source: WorkingFile(placedAt: path), folder: folder, sniffedMime: sniffed, leadingBytes: leading)
    }

    /// A regular file (not a link, a folder or a device) that can be read.
    fileprivate static func isReadableFile(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFREG && access(path, R_OK) == 0
    }
}

extension MediaPolicy {
    /// What of the policy a stored verdict depends on: a cache entry serves only the same limits.
    var cacheKey: String { "\(maxBytes)|\(announcedMaxBytes.map(String.init) ?? "")|\(NumberText.decimal(timeoutSeconds))|\(maxRedirects)|\(allowHTTP)" }
}

import Glibc

/// A download as `--cache` keeps it: every fact its verdicts are made from, and
/// the name of a content-addressed file placed from it, so a 304 gives back
/// exactly what the full download gave.
extension MediaDownload {
    /// The record, naming `placedPath`, the attachment file that holds the bytes after the run.
    func cacheRecord(placedPath: String) -> JSONValue {
        let facts = self.facts
        let http = facts.http
        return .object([
            JSONMember("finalUrl", .optional(facts.finalURL)),
            JSONMember("redirects", .optional(facts.redirects)),
            JSONMember("httpStatus", .optional(facts.httpStatus)),
            JSONMember("declaredMime", .optional(facts.declaredMime)),
            JSONMember("bytes", .optional(facts.bytes)),
            JSONMember("sha256", .optional(facts.sha256)),
            JSONMember("elapsedMs", .optional(facts.elapsedMilliseconds)),
            JSONMember("timings", facts.timings?.json ?? .null),
            JSONMember("cacheControl", .optional(http?.cacheControl)),
            JSONMember("etag", .optional(http?.etag)),
            JSONMember("lastModified", .optional(http?.lastModified)),
            JSONMember("age", .optional(http?.age)),
            JSONMember("expires", .optional(http?.expires)),
            JSONMember("setsCookie", .bool(http?.setsCookie ?? false)),
            JSONMember("vary", .optional(http?.vary)),
            JSONMember("announcedBytes", .optional(facts.announcedBytes)),
            JSONMember("file", .string(FilePaths.lastComponent(placedPath))),
            JSONMember("folder", .string(FilePaths.parent(placedPath))),
            JSONMember("sniffedMime", .string(sniffedMime)),
            JSONMember("leadingBytes", .array(leadingBytes.map { .int(Int($0)) })),
            JSONMember("contentDisposition", .optional(contentDisposition)),
        ])
    }

    /// The download `record` stored, for `url` under `policy`, judged into this
    /// run's attachment `folder`; its bytes are the file the record names
    /// (in this folder or another run's), which placing links or copies from.
    /// - Returns: nil when the record is not whole or the file is gone.
    convenience init?(cacheRecord record: JSONValue, url: MediaURL, policy: MediaPolicy, folder: String) {
        guard case .string(let file)? = record["file"], !file.contains("/"), let sha256 = record["sha256"]?.stringValue,
              let bytes = record["bytes"]?.intValue, let sniffed = record["sniffedMime"]?.stringValue
        else { return nil }
        let storedFolder = record["folder"]?.stringValue ?? folder
        guard let path = [folder, storedFolder].lazy.map({ "\($0)/\(file)" }).first(where: { Self.isReadableFile($0) }) else { return nil }
        var facts = MediaFacts(url: url.string, policy: policy)
        facts.urlExtension = url.pathExtension
        facts.host = url.host
        facts.finalURL = record["finalUrl"]?.stringValue
        facts.redirects = record["redirects"]?.intValue
        facts.httpStatus = record["httpStatus"]?.intValue
        facts.declaredMime = record["declaredMime"]?.stringValue
        facts.bytes = bytes
        facts.sha256 = sha256
        facts.elapsedMilliseconds = record["elapsedMs"]?.intValue
        if let timings = record["timings"], timings != .null {
            var measured = FetchTimings()
            measured.dnsMs = timings["dnsMs"]?.intValue ?? 0
            measured.connectMs = timings["connectMs"]?.intValue ?? 0
            measured.tlsMs = timings["tlsMs"]?.intValue ?? 0
            measured.firstByteMs = timings["firstByteMs"]?.intValue ?? 0
            measured.totalMs = timings["totalMs"]?.intValue ?? 0
            facts.timings = measured
        }
        facts.http = HTTPFacts(
            cacheControl: record["cacheControl"]?.stringValue, etag: record["etag"]?.stringValue,
            lastModified: record["lastModified"]?.stringValue, age: record["age"]?.stringValue,
            expires: record["expires"]?.stringValue, setsCookie: record["setsCookie"] == .bool(true), vary: record["vary"]?.stringValue)
        facts.announcedBytes = record["announcedBytes"]?.intValue
        facts.cacheState = "revalidated"
        var leading: [UInt8] = []
        if case .array(let values)? = record["leadingBytes"] { leading = values.compactMap { $0.intValue.map { UInt8(truncatingIfNeeded: $0) } } }
        self.init(
            facts: facts, sourcePath: path, folder: folder, sniffedMime: sniffed, leadingBytes: leading,
            contentDisposition: record["contentDisposition"]?.stringValue)
    }
}

extension MediaDownload {
    /// A regular file (not a link, a folder or a device) that can be read.
    fileprivate static func isReadableFile(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFREG && access(path, R_OK) == 0
    }
}

extension MediaPolicy {
    /// What of the policy a stored verdict depends on: a cache entry serves only the same limits.
    var cacheKey: String { "\(maxBytes)|\(NumberText.decimal(timeoutSeconds))|\(maxRedirects)|\(allowHTTP)" }
}

import Glibc
import Synchronization

/// A Notification Service Extension's media path, headless: pick the SDK's
/// profile, read its media entries, check each URL, download under the
/// profile's policy, sniff, decide the type under the device model, and hand
/// back the content with the attachments, or unchanged when anything fails.
///
/// The path is split where the downloads are (`plan`, `fetchMedia`, `report`),
/// so `check` can fetch each distinct URL once for many payloads; `handle`
/// runs the three in a row for one payload.
///
/// One instance owns one libcurl handle: use it from one thread at a time (one
/// per worker). libmagic handles come from a pool the workers share.
public final class ServiceExtension {
    public let options: FetchOptions
    public let selection: SDKSelection
    /// Absolute path of the folder attachments are stored in, by content hash.
    public let outputDirectory: String
    private let fetcher: MediaFetcher
    private let sniffers: SnifferPool
    /// Where partial downloads are tracked until they are stored or removed.
    private let ownedPaths: OwnedPaths
    /// `--cache`: stored verdicts to revalidate instead of downloading again.
    private let cache: RevalidationCache?

    /// Partial downloads get unique names across threads of one process.
    private static let partialCounter = Atomic<Int>(0)

    /// - Parameters:
    ///   - options: what the user set for every download (limits, trust, http).
    ///   - selection: whose extension to reproduce, or `auto`.
    ///   - outputDirectory: where attachments go; created when missing.
    ///   - ownedPaths: the registry partial downloads are tracked in (the run's, by default).
    ///   - sniffers: libmagic handles shared with other instances; nil: a pool of one of its own.
    /// - Throws: `ServiceExtensionError` when the folder, libcurl or libmagic is unusable.
    public init(
        options: FetchOptions = FetchOptions(), selection: SDKSelection = .fixed(.notti), outputDirectory: String,
        ownedPaths: OwnedPaths = .run, sniffers: SnifferPool? = nil, cache: RevalidationCache? = nil
    ) throws(ServiceExtensionError) {
        self.cache = cache
        let absolute = FilePaths.standardized(outputDirectory)
        // makeFolders fails with ENOTDIR when the path is there but not a folder.
        if let error = FilePaths.makeFolders(absolute, mode: 0o777) {
            throw ServiceExtensionError(message: "cannot create the output folder \(absolute): \(error.message)")
        }
        guard access(absolute, W_OK) == 0 else {
            throw ServiceExtensionError(message: "the output folder \(absolute) is not writable")
        }
        if let sniffers {
            self.sniffers = sniffers
        } else {
            do {
                self.sniffers = try SnifferPool(size: 1)
            } catch {
                throw ServiceExtensionError(message: error.message)
            }
        }
        do {
            self.fetcher = try MediaFetcher(
                trust: MediaPolicy.Trust(extraCAFile: options.extraCAFile, connectTo: options.connectTo), ownedPaths: ownedPaths)
        } catch {
            throw ServiceExtensionError(message: error.message)
        }
        self.options = options
        self.selection = selection
        self.outputDirectory = absolute
        self.ownedPaths = ownedPaths
    }

    /// Runs the extension's path for one payload.
    /// - Returns: the report, or nil when `cancellation` stopped it (nothing is left on disk).
    public func handle(_ payload: Payload, source: String, strict: Bool = false, cancellation: Cancellation? = nil) -> Report? {
        let plan = PayloadPlan(payload, selection: selection, options: options)
        var results = MediaResults()
        let fetchPolicy = selection.fetchPolicy(options)
        for url in plan.fetches {
            guard let result = fetchMedia(url, policy: fetchPolicy, cancellation: cancellation) else { return nil }
            results[url.string] = result
        }
        return plan.report(source: source, results: results, strict: strict)
    }

    /// Downloads, sniffs and stores one media URL under `policy`; the file is
    /// named `<sha256>.<type>`, the type being Notti's (sniffed, jpg otherwise).
    /// - Returns: the result, or nil when `cancellation` stopped it (nothing is left on disk).
    public func fetchMedia(_ url: MediaURL, policy: MediaPolicy, cancellation: Cancellation? = nil) -> MediaResult? {
        var facts = MediaFacts(url: url.string, policy: policy)
        facts.urlExtension = url.pathExtension
        facts.host = url.host
        // With --cache, a stored copy whose file is still here is revalidated, always, never trusted blindly.
        let stored = cache?.lookup(url: url.string, policy: policy.cacheKey).flatMap { entry in
            FetchedMedia(cacheRecord: entry.record, url: url, policy: policy, folder: outputDirectory).map { ($0, entry) }
        } ?? storedElsewhere(url, policy)
        let validators = stored.flatMap { $0.1.etag != nil || $0.1.lastModified != nil ? ($0.1.etag, $0.1.lastModified) : nil }
        let download = fetcher.fetch(url, policy: policy, to: newPartialPath(), cancellation: cancellation, validators: validators)
        if case .notModified = download.outcome, let (media, _) = stored {
            return .fetched(media)
        }
        facts.finalURL = download.finalURL
        facts.redirects = download.redirects
        facts.httpStatus = download.httpStatus
        facts.declaredMime = download.declaredMime
        facts.elapsedMilliseconds = download.elapsedMilliseconds
        facts.announcedBytes = download.announcedBytes
        facts.httpHop = download.httpHop
        facts.refusedHop = download.refusedHop
        facts.tooLargeAnnounced = download.tooLargeAnnounced
        facts.timings = download.timings
        facts.http = download.http
        let file: DownloadedFile
        switch download.outcome {
        case .interrupted: return nil
        case .failed(let reason, let message): return .failed(facts, reason, message)
        case .notModified: return .failed(facts, .httpError, "the server answered HTTP 304 to a request that was not conditional")
        case .file(let downloaded): file = downloaded
        }
        if cancellation?.isCancelled == true {
            ownedPaths.remove(file.path)
            return nil
        }
        let sniffedMime: String
        let leadingBytes: [UInt8]
        do {
            sniffedMime = try sniffers.withSniffer { sniffer throws(SnifferError) in try sniffer.mimeType(ofFileAt: file.path, size: file.bytes) }
            leadingBytes = try Self.leadingBytes(ofFileAt: file.path)
        } catch {
            ownedPaths.remove(file.path)
            return .failed(facts, .writeError, "cannot read the downloaded file: \(error.message); \(Reason.writeError.fix)")
        }
        let storedPath = "\(outputDirectory)/\(file.sha256).\((MediaType(sniffedMime: sniffedMime) ?? .jpg).rawValue)"
        // Stored: the file is the user's now, and no cleanup may touch it.
        if let error = ownedPaths.keep(file.path, as: storedPath) {
            ownedPaths.remove(file.path)
            return .failed(facts, .writeError, "cannot store the attachment at \(storedPath): \(error.message); \(Reason.writeError.fix)")
        }
        facts.bytes = file.bytes
        facts.sha256 = file.sha256
        let decision = TypeDecision(sniffedMime: sniffedMime, declaredMime: download.declaredMime, urlExtension: url.pathExtension)
        if cache != nil { facts.cacheState = "fetched" }
        let media = FetchedMedia(
            facts: facts, storedPath: storedPath, sniffedMime: sniffedMime, leadingBytes: leadingBytes,
            contentDisposition: download.contentDisposition, storedURL: FilePaths.fileURL(storedPath),
            nottiDecision: decision,
            nottiWarnings: decision.diagnostics + [Lints.iOSLimitDiagnostic(type: decision.type, bytes: file.bytes)].compactMap { $0 })
        if let cache, download.http?.etag != nil || download.http?.lastModified != nil {
            cache.store(
                url: url.string, policy: policy.cacheKey, etag: download.http?.etag, lastModified: download.http?.lastModified,
                record: media.cacheRecord)
        }
        return .fetched(media)
    }

    /// The first 16 bytes, for the magic-number tables some SDKs type files by.
    private static func leadingBytes(ofFileAt path: String) throws(SnifferError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw SnifferError(message: Errno(errno).message) }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 16)
        let count = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard count >= 0 else { throw SnifferError(message: Errno(errno).message) }
        return Array(bytes.prefix(count))
    }

    /// A stored copy whose file lives in another run's attachment folder: linked
    /// (or copied) into this run's first, so a 304 can reuse it here.
    private func storedElsewhere(_ url: MediaURL, _ policy: MediaPolicy) -> (FetchedMedia, RevalidationCache.Entry)? {
        guard let entry = cache?.lookup(url: url.string, policy: policy.cacheKey),
              case .string(let file)? = entry.record["file"], !file.contains("/"),
              case .string(let folder)? = entry.record["folder"], folder != outputDirectory,
              access("\(folder)/\(file)", R_OK) == 0
        else { return nil }
        let target = "\(outputDirectory)/\(file)"
        if access(target, F_OK) != 0 && link("\(folder)/\(file)", target) != 0 {
            guard (try? FilePaths.copyFile(from: "\(folder)/\(file)", to: target)) != nil else { return nil }
        }
        return FetchedMedia(cacheRecord: entry.record, url: url, policy: policy, folder: outputDirectory).map { ($0, entry) }
    }

    private func newPartialPath() -> String {
        let sequence = Self.partialCounter.add(1, ordering: .relaxed).newValue
        return "\(outputDirectory)/.notti-media-\(getpid())-\(sequence).part"
    }
}

public struct ServiceExtensionError: Error, Sendable {
    public var message: String
}

import Glibc

/// The download half of one payload's path: brings a media URL under a policy
/// and returns its facts (the bytes in a working file, the HTTP and TLS facts,
/// libmagic's type, the decoder's facts) and no verdict of its own: what each
/// record makes of them is the judge's (`Decision/`). Used by `ServiceExtension`
/// (one payload), by `CheckPipeline`'s fetch workers and by `fix`.
///
/// With `--cache` it also revalidates a stored verdict (a 304 gives it back) and
/// keeps what this run learnt. One instance owns one libcurl handle: use it from
/// one thread at a time. libmagic handles, working files, forward-secrecy probes
/// and the decode worker are the run's, shared by every instance.
package final class MediaDownloader {
    package let options: FetchOptions
    /// Absolute path of the folder the working files (and, when placed, attachments) are in.
    package let outputDirectory: String
    /// libcurl's handle, made on the first download: a payload without media sets up no TLS.
    private var madeFetcher: MediaFetcher?
    private let trust: MediaPolicy.Trust
    private let probes: ForwardSecrecyProbes
    private let sniffers: SnifferPool
    /// Where partial downloads are tracked until they are stored or removed.
    package let ownedPaths: OwnedPaths
    /// `--cache`: stored verdicts to revalidate instead of downloading again.
    package let cache: RevalidationCache?
    /// Every cap a record may be judged under: each download notes when its body crossed them.
    private let capsInPlay: [Int]
    /// The run's downloads, by content, until `releaseWorkingFiles` (shared by a pipeline's workers).
    private let workingFiles: WorkingFiles
    /// Reads each downloaded file as the phone's decoders do (SPEC 17).
    private let decoder: DecodeWorker
    /// The decode worker was asked to start beside this instance's first download.
    private var preparedDecoder = false
    /// With `--cache`, this instance's fresh downloads, until `rememberUnplacedDownloads`.
    private var fetched: [(download: MediaDownload, memo: DownloadMemo)] = []

    /// - Parameters:
    ///   - outputDirectory: an absolute folder that exists and is writable (`checkedFolder`).
    ///   - ownedPaths: the registry partial downloads are tracked in (`.run`: the process's).
    ///   - sniffers: libmagic handles, shared with the run's other instances.
    ///   - cache: `--cache`'s stored verdicts, to revalidate.
    ///   - workingFiles: the run's working files by content, shared likewise.
    ///   - probes: the run's forward-secrecy probes (one per host), shared likewise.
    ///   - decoder: the run's decode worker (started on the first file it decodes), shared likewise.
    package init(
        options: FetchOptions, outputDirectory: String, ownedPaths: OwnedPaths, sniffers: SnifferPool,
        cache: RevalidationCache? = nil, workingFiles: WorkingFiles = WorkingFiles(),
        probes: ForwardSecrecyProbes = ForwardSecrecyProbes(), decoder: DecodeWorker = DecodeWorker()
    ) {
        self.options = options
        self.outputDirectory = outputDirectory
        self.ownedPaths = ownedPaths
        self.sniffers = sniffers
        self.cache = cache
        self.workingFiles = workingFiles
        self.probes = probes
        self.decoder = decoder
        self.trust = MediaPolicy.Trust(extraCAFile: options.extraCAFile, connectTo: options.connectTo)
        self.capsInPlay = MediaPolicy.capsInPlay(options)
    }

    /// A downloader of its own (one payload's, or `fix`'s): `outputDirectory` checked and made
    /// absolute, one libmagic handle, loaded on the first file (a payload without media loads none).
    /// - Throws: `ServiceExtensionError` when the folder or libmagic is unusable.
    package convenience init(
        options: FetchOptions, outputDirectory: String, ownedPaths: OwnedPaths, cache: RevalidationCache? = nil,
        decoder: DecodeWorker = DecodeWorker()
    ) throws(ServiceExtensionError) {
        let absolute = try Self.checkedFolder(outputDirectory)
        let sniffers: SnifferPool
        do {
            sniffers = try SnifferPool(size: 1, openingNow: false)
        } catch {
            throw ServiceExtensionError(message: error.message)
        }
        self.init(options: options, outputDirectory: absolute, ownedPaths: ownedPaths, sniffers: sniffers, cache: cache, decoder: decoder)
    }

    /// `outputDirectory` made absolute, created when missing, and checked writable.
    /// - Throws: `ServiceExtensionError` when it cannot be made or written.
    package static func checkedFolder(_ outputDirectory: String) throws(ServiceExtensionError) -> String {
        let absolute = FilePaths.standardized(outputDirectory)
        // makeFolders fails with ENOTDIR when the path is there but not a folder.
        if let error = FilePaths.makeFolders(absolute, mode: 0o777) {
            throw ServiceExtensionError(message: "cannot create the output folder \(absolute): \(error.message)")
        }
        guard access(absolute, W_OK) == 0 else {
            throw ServiceExtensionError(message: "the output folder \(absolute) is not writable")
        }
        return absolute
    }

    /// The step after judging that makes the attachment files some report lists, from this instance's downloads.
    package var placement: AttachmentPlacement { AttachmentPlacement(ownedPaths: ownedPaths, cache: cache) }

    /// Downloads, sniffs and decodes one media URL under `policy`. The bytes stay in a
    /// working file of this run (no name until an attachment is placed from it;
    /// one per content; freed by `releaseWorkingFiles`).
    /// - Returns: the result, or nil when `cancellation` stopped it (nothing is left on disk).
    package func download(_ url: MediaURL, policy: MediaPolicy, cancellation: Cancellation? = nil) -> MediaResult? {
        var facts = MediaFacts(checked: url, policy: policy)
        // With --cache, a stored verdict whose bytes are still there is revalidated, always, never trusted blindly.
        let stored = cache.flatMap { cache in
            cache.lookup(url: url.string, policy: policy.cacheKey).flatMap { entry in reusable(entry, url: url, policy: policy, cache: cache) }
        }
        let validators = stored.flatMap { $0.entry.etag != nil || $0.entry.lastModified != nil ? ($0.entry.etag, $0.entry.lastModified) : nil }
        let working: WorkingFile
        switch WorkingFile.create(in: outputDirectory, ownedPaths: ownedPaths) {
        case .success(let made): working = made
        case .failure(let error):
            return .failed(facts, .writeError, "cannot create a working file in \(outputDirectory): \(error.message); \(DiagnosticCode.writeError.fix)")
        }
        // The decode worker starts while this instance's first bytes arrive (nothing is decoded unless they
        // are media): once, not a step of every download (a worker, once started, is started again by the
        // decode that needs it).
        if policy.decodes && !preparedDecoder {
            decoder.prepare()
            preparedDecoder = true
        }
        guard let fetcher = madeFetcher ?? makeFetcher() else {
            working.release()
            return .failed(facts, .networkError, "libcurl could not set up a transfer handle")
        }
        let download = fetcher.fetch(url, policy: policy, into: working, cancellation: cancellation, validators: validators,
            watchedCaps: capsInPlay)
        if case .interrupted = download.outcome {
            working.release()
            return nil
        }
        // Once per URL with each platform's own request headers (SPEC 20): what a phone gets.
        if options.deviceHeaders {
            guard let answers = deviceAnswers(url, policy: policy, fetcher: fetcher, cancellation: cancellation) else {
                working.release()
                return nil
            }
            facts.deviceAnswers = answers
        }
        // An iPhone refuses the connection before anything it would bring (SPEC 18; the rule is the
        // judge's, Decision/PolicyRule.swift): nothing of it is sniffed, decoded or kept.
        if let refused = MediaResult.refusedConnection(facts, transfer: download.transfer, under: policy) {
            working.release()
            return refused
        }
        if case .notModified = download.outcome, let stored {
            switch stored.kept {
            case .result(let result):
                working.release()
                return result.takingConnection(of: download.transfer)
            case .content(let sha256):
                // The bytes of a verdict no record attached, kept in the cache: this run's working file again.
                guard cache?.writeContent(sha256: sha256, to: working.descriptor) != nil,
                      let media = MediaDownload(
                        cacheRecord: stored.entry.record, url: url, policy: policy, folder: outputDirectory,
                        source: workingFiles.adopt(working, sha256: sha256))
                else {
                    working.release()
                    return .failed(facts, .writeError, "cannot write the cached bytes of \(url.string) to \(outputDirectory); "
                        + DiagnosticCode.writeError.fix)
                }
                return MediaResult.downloaded(media).takingConnection(of: download.transfer)
            }
        }
        facts.transfer = download.transfer
        let downloaded: DownloadedFile
        switch download.outcome {
        case .file(let file): downloaded = file
        case .interrupted:
            working.release()
            return nil
        case .failed(let reason, let message):
            working.release()
            rememberFailure(facts, reason, message)
            return .failed(facts, reason, message)
        case .notModified:
            working.release()
            return .failed(facts, .httpError, "the server answered HTTP 304 to a request that was not conditional")
        }
        // Bytes another URL of this run already brought are kept once: the new copy's space is freed now.
        let source = workingFiles.adopt(working, sha256: downloaded.sha256)
        if cancellation?.isCancelled == true { return nil }
        let sniffedMime: String
        let leadingBytes: [UInt8]
        let frames: Int?
        do {
            (sniffedMime, leadingBytes, frames) = try source.withPath { path throws(SnifferError) in
                let mime = try sniffers.withSniffer { sniffer throws(SnifferError) in try sniffer.mimeType(ofFileAt: path, size: downloaded.bytes) }
                return (mime, try Self.leadingBytes(ofFileAt: path),
                        mime == "image/gif" ? GIFFrames.count(ofFileAt: path) : nil)
            }
        } catch {
            return .failed(facts, .writeError, "cannot read the downloaded file: \(error.message); \(DiagnosticCode.writeError.fix)")
        }
        facts.bytes = downloaded.bytes
        facts.sha256 = downloaded.sha256
        facts.sniffedMime = sniffedMime
        // The decoder's facts (SPEC 17), the dimensions among them: the stored pixel grid of a picture or video.
        // The working file's path is held for the open alone (placing waits on it), not for the decode.
        if policy.decodes, let decoded = decoder.decode(
            opening: { source.withPath { open($0, O_RDONLY | O_CLOEXEC) } }, mime: sniffedMime, sha256: downloaded.sha256,
            within: policy.timeoutSeconds)
        {
            facts.decoded = decoded
            facts.dimensions = decoded.dimensions
        }
        // A decode cut short by the run's end is no verdict (SPEC 17): no record, nothing cached.
        if cancellation?.isCancelled == true { return nil }
        if cache != nil { facts.cacheState = "fetched" }
        let media = MediaDownload(
            facts: facts, source: source, folder: outputDirectory, sniffedMime: sniffedMime, leadingBytes: leadingBytes,
            frames: frames)
        let memo = DownloadMemo()
        if cache != nil { fetched.append((media, memo)) }
        return .fetched(media, memo)
    }

    /// `url` fetched again with each platform's own `User-Agent` (and no cookie, no Referer: the handle
    /// sends none), into working files of its own that go at once: the status, type and size each got.
    /// - Returns: nil when `cancellation` stopped it.
    private func deviceAnswers(
        _ url: MediaURL, policy: MediaPolicy, fetcher: MediaFetcher, cancellation: Cancellation?
    ) -> [DeviceAnswer]? {
        var answers: [DeviceAnswer] = []
        for (platform, userAgent) in DeviceAnswer.userAgents {
            var answer = DeviceAnswer(platform: platform, userAgent: userAgent)
            guard case .success(let working) = WorkingFile.create(in: outputDirectory, ownedPaths: ownedPaths) else {
                answer.failure = "no working file could be made"
                answers.append(answer)
                continue
            }
            defer { working.release() }
            let download = fetcher.fetch(url, policy: policy, into: working, cancellation: cancellation, userAgent: userAgent)
            answer.httpStatus = download.transfer.httpStatus
            switch download.outcome {
            case .interrupted: return nil
            case .file(let file):
                answer.bytes = file.bytes
                answer.sniffedMime = try? working.withPath { path throws(SnifferError) in
                    try sniffers.withSniffer { sniffer throws(SnifferError) in try sniffer.mimeType(ofFileAt: path, size: file.bytes) }
                }
            case .failed(let reason, let message):
                // A status is an answer of its own; a connection that failed is said in words.
                if reason != .httpError { answer.failure = "\(reason.rawValue): \(message)" }
            case .notModified: break
            }
            answers.append(answer)
        }
        return answers
    }

    /// What a stored row gives back on a 304: a result to use as it is, or bytes the cache keeps.
    private enum Kept {
        case result(MediaResult)
        case content(sha256: String)
    }

    /// `entry` when what it needs is still there: a placed file, the bytes in the cache, or nothing (a failure).
    private func reusable(
        _ entry: RevalidationCache.Entry, url: MediaURL, policy: MediaPolicy, cache: RevalidationCache
    ) -> (entry: RevalidationCache.Entry, kept: Kept)? {
        if let failure = MediaDownload.cachedFailure(entry.record, url: url, policy: policy) { return (entry, .result(failure)) }
        if MediaDownload.keepsContent(entry.record) {
            guard let sha256 = entry.record["sha256"]?.stringValue, cache.hasContent(sha256: sha256) else { return nil }
            return (entry, .content(sha256: sha256))
        }
        return MediaDownload(cacheRecord: entry.record, url: url, policy: policy, folder: outputDirectory).map { (entry, .result(.downloaded($0))) }
    }

    /// `--cache` keeps a failure whose response the server can revalidate (SPEC 14: a `too_large`
    /// file is not downloaded again while its validators hold). A failure of the connection is not
    /// the content's: it is tried again next run.
    private func rememberFailure(_ facts: MediaFacts, _ reason: DiagnosticCode, _ message: String) {
        guard let cache, [.tooLarge, .httpError, .emptyMedia].contains(reason), let http = facts.http,
              http.etag != nil || http.lastModified != nil else { return }
        cache.store(url: facts.url, policy: facts.policy.cacheKey, etag: http.etag, lastModified: http.lastModified,
                    record: MediaDownload.cacheRecord(failed: facts, reason, message))
    }

    /// `--cache` keeps the verdicts of this instance's downloads that no record attached (placed ones
    /// were kept when placed): naming the file their bytes were placed as under another URL, or with
    /// the bytes themselves. Call before `releaseWorkingFiles`, which frees the bytes.
    package func rememberUnplacedDownloads() {
        defer { fetched.removeAll() }
        guard let cache else { return }
        for (media, memo) in fetched where memo.placed.isEmpty {
            guard let http = media.facts.http, http.etag != nil || http.lastModified != nil, let sha256 = media.facts.sha256 else { continue }
            let placedPath = media.source.placedPath
            // Bytes two URLs share are read and kept once.
            if placedPath == nil && !cache.hasContent(sha256: sha256) {
                media.source.withPath { cache.storeContent(sha256: sha256, fromFileAt: $0) }
            }
            cache.store(url: media.facts.url, policy: media.fetchedUnder.cacheKey, etag: http.etag, lastModified: http.lastModified,
                        record: media.cacheRecord(placedPath: placedPath))
        }
    }

    /// Frees the working files of the run's downloads: once every report that judges
    /// them has placed its attachments (the end of `handle`, or of a `check` run).
    package func releaseWorkingFiles() {
        workingFiles.releaseAll()
    }

    /// The first 16 bytes, for the magic-number tables some SDKs type files by.
    static func leadingBytes(ofFileAt path: String) throws(SnifferError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw SnifferError(message: Errno(errno).message) }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 16)
        let count = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard count >= 0 else { throw SnifferError(message: Errno(errno).message) }
        return Array(bytes.prefix(count))
    }

    /// A whole file `downloadWhole` brought, with what the download knew of it.
    package struct WholeDownload {
        package let file: WorkingFile
        /// What libmagic says it is.
        package let mime: String
        package let sha256: String
        package let bytes: Int
    }

    /// `fix` (SPEC 19): the whole file at `url`, whatever any profile's cap (up to the tool's read bound of
    /// 52,428,800 bytes), with what libmagic says it is. The caller releases the working file.
    /// - Returns: the file, or why there is none (the download's own failure).
    package func downloadWhole(_ url: String, timeoutSeconds: Double) -> Result<WholeDownload, WholeDownloadFailure> {
        guard case .valid(let checked) = MediaURL.check(.string(url), allowHTTP: options.allowHTTP) else {
            return .failure(WholeDownloadFailure(.invalidURL, "\(url) is not a URL the tool downloads"))
        }
        let policy = MediaPolicy(
            maxBytes: DeviceModel.largestLimitBytes, timeoutSeconds: timeoutSeconds, extraCAFile: options.extraCAFile,
            connectTo: options.connectTo, denyPrivateNetworks: options.denyPrivateNetworks, allowHTTP: options.allowHTTP)
        let working: WorkingFile
        switch WorkingFile.create(in: outputDirectory, ownedPaths: ownedPaths) {
        case .success(let made): working = made
        case .failure(let error): return .failure(WholeDownloadFailure(.writeError, "cannot create a working file in \(outputDirectory): \(error.message)"))
        }
        guard let fetcher = madeFetcher ?? makeFetcher() else {
            working.release()
            return .failure(WholeDownloadFailure(.networkError, "libcurl could not set up a transfer handle"))
        }
        let download = fetcher.fetch(checked, policy: policy, into: working, cancellation: nil)
        guard case .file(let downloaded) = download.outcome else {
            working.release()
            if case .failed(let reason, let message) = download.outcome { return .failure(WholeDownloadFailure(reason, message)) }
            return .failure(WholeDownloadFailure(.networkError, "the download was stopped"))
        }
        do {
            let mime = try working.withPath { path throws(SnifferError) in
                try sniffers.withSniffer { sniffer throws(SnifferError) in try sniffer.mimeType(ofFileAt: path, size: downloaded.bytes) }
            }
            return .success(WholeDownload(file: working, mime: mime, sha256: downloaded.sha256, bytes: downloaded.bytes))
        } catch {
            working.release()
            return .failure(WholeDownloadFailure(.writeError, "cannot read the downloaded file: \(error.message)"))
        }
    }

    /// Why `downloadWhole` brought no file: the download's own finding.
    package struct WholeDownloadFailure: Error {
        package var code: DiagnosticCode
        package var message: String

        init(_ code: DiagnosticCode, _ message: String) {
            self.code = code
            self.message = message
        }
    }

    /// libcurl's handle for this instance, made now; nil when libcurl refuses an option (out of memory).
    private func makeFetcher() -> MediaFetcher? {
        madeFetcher = try? MediaFetcher(trust: trust, probes: probes)
        return madeFetcher
    }
}

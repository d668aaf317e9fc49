import Glibc
import NottiMedia

/// The gate's checks (SPEC 21): worker threads that take asks from one queue and run
/// each through the library's one-payload door (`ServiceExtension`) with the run's
/// options, one decode worker pair shared by all of them, attachments stored in the
/// server's private folder and removed once judged (the gate answers verdicts, not files).
final class GateChecks: Sendable {
    /// One ask: the cache key it answers, the URL, whose records, which phones, and when the campaign is sent.
    struct Ask: Sendable {
        let key: String
        let url: String
        let sdk: SDK
        let platforms: PlatformSelection
        let sendAt: Int?
    }

    /// A whole-input check (`POST /v1/check`): its records and summary, given to `done`.
    struct Batch: Sendable {
        let body: [UInt8]
        let selection: SDKSelection
        /// The records and summary as JSON Lines, or why the check could not start (a 500, never a verdict).
        let done: @Sendable (Result<String, LocalError>) -> Void
    }

    private enum Job: Sendable {
        case ask(Ask)
        case batch(Batch)
    }

    private let queue = BlockingQueue<Job>()
    private let threads: [JoinableThread]
    let cache: VerdictCache
    let metrics: GateMetrics

    /// - Parameter keepsFiles: the attachments are `--cache`'s (kept for a later 304), not removed once judged.
    init(options: FetchOptions, workers: Int, folder: String, keepsFiles: Bool, revalidation: RevalidationCache?, decoder: DecodeWorker,
         cache: VerdictCache, metrics: GateMetrics) {
        self.cache = cache
        self.metrics = metrics
        let queue = self.queue
        threads = (0..<workers).map { _ in
            JoinableThread {
                var extensions = ExtensionShelf(options: options, folder: folder, keepsFiles: keepsFiles, revalidation: revalidation, decoder: decoder)
                while let job = queue.pop() {
                    switch job {
                    case .ask(let ask):
                        metrics.checkStarted()
                        let verdict = Self.check(ask, shelf: &extensions)
                        metrics.checkFinished(verdict: verdict.verdict, codes: verdict.codes)
                        cache.finish(ask.key, verdict: verdict)
                    case .batch(let batch):
                        batch.done(Self.check(batch, shelf: &extensions))
                    }
                }
            }
        }
    }

    func enqueue(_ ask: Ask) { queue.push(.ask(ask)) }
    func enqueue(_ batch: Batch) { queue.push(.batch(batch)) }

    /// No more jobs: the workers finish the queue and end.
    func finish() {
        queue.close()
        threads.forEach { $0.join() }
    }

    /// `ask`'s verdict: a failure to run the check at all is a failing verdict that says so, never a pass.
    private static func check(_ ask: Ask, shelf: inout ExtensionShelf) -> GateVerdict {
        let text = GateProbe.request(url: ask.url, sdk: ask.sdk)
        do {
            let payload = try Payload(json: Array(text.utf8))
            let service = try shelf.service(sdk: .fixed(ask.sdk), sendAt: ask.sendAt)
            let handled = try service.handleDeliveries(payload, source: ask.url, platforms: ask.platforms)
            let reports = handled?.reports ?? []
            shelf.removeAttachments(of: reports)
            return GateProbe.verdict(reports)
        } catch {
            let report = Report.invalidPayload(source: ask.url, sdk: ask.sdk, error: PayloadError(message: "the check could not run: \(error)"))
            return GateProbe.verdict([report])
        }
    }

    /// `POST /v1/check`: the body checked by `check`'s own pipeline (SPEC 21: "the records as `check --format json`
    /// prints them, plus the summary"), not a second loop beside it: the same records, order and summary record,
    /// with the gate's decode workers and revalidation cache. Its attachments go in a folder of its own, removed after
    /// (with `--cache` they are the cache's, kept).
    private static func check(_ batch: Batch, shelf: inout ExtensionShelf) -> Result<String, LocalError> {
        var text = ""
        let folder: String
        if shelf.keepsFiles {
            folder = shelf.folder
        } else {
            switch OwnedPaths.run.makeTemporaryFolder(in: shelf.folder, prefix: "check-") {
            case .success(let made): folder = made
            case .failure(let error): return .failure(LocalError("the check could not start: cannot create a folder in \(shelf.folder): \(error.message)"))
            }
        }
        // The writer thread's lines and the files its records name, read once `finish` has joined it.
        let written = WrittenRecords()
        defer {
            if !shelf.keepsFiles {
                // The attachments were placed (no longer tracked as working files): each record names its own.
                ExtensionShelf.removeAttachments(written.files, in: folder)
                OwnedPaths.run.removeFiles(in: folder)
                OwnedPaths.run.removeFolder(folder)
            }
        }
        let items = GateInput.split(batch.body)
        var configuration = CheckPipeline.Configuration(
            jobs: min(4, max(1, items.count)), options: shelf.options, selection: batch.selection, outputDirectory: folder,
            strict: false, cancellation: Cancellation(),
            render: { report in CheckRecord.Rendering(line: JSONWriter.string(report.json), report: nil) })
        configuration.cache = shelf.revalidation
        configuration.decoder = shelf.decoder
        let pipeline: CheckPipeline
        do {
            pipeline = try CheckPipeline(configuration)
        } catch {
            return .failure(LocalError("the check could not start: \(error.message)"))
        }
        pipeline.start { record in written.add(record) }
        for (index, item) in items.enumerated() {
            _ = pipeline.submit(CheckInput(source: item.source, body: .bytes(item.bytes), lineNumber: item.line, index: index))
        }
        var summary = pipeline.finish()
        summary.decoded = shelf.options.decodes
        for line in written.lines { text += line + "\n" }
        summary.writeJSON { text += $0 }
        return .success(text + "\n")
    }
}

/// What a pipeline's writer thread handed over: each record's line and the files it attached, read after it is joined.
private final class WrittenRecords: @unchecked Sendable {
    private(set) var lines: [String] = []
    private(set) var files: [String] = []

    func add(_ record: CheckRecord) {
        if let line = record.rendered.line { lines.append(line) }
        files += record.attachments.map(\.filePath)
    }
}

/// A worker's extensions, one per SDK choice and send time it has been asked for (a few), each with its own
/// libcurl handle, all sharing the decode workers.
struct ExtensionShelf {
    let options: FetchOptions
    let folder: String
    let keepsFiles: Bool
    let revalidation: RevalidationCache?
    let decoder: DecodeWorker
    private var made: [String: ServiceExtension] = [:]

    init(options: FetchOptions, folder: String, keepsFiles: Bool, revalidation: RevalidationCache?, decoder: DecodeWorker) {
        self.options = options
        self.folder = folder
        self.keepsFiles = keepsFiles
        self.revalidation = revalidation
        self.decoder = decoder
    }

    mutating func service(sdk: SDKSelection, sendAt: Int?) throws(ServiceExtensionError) -> ServiceExtension {
        let key = "\(sdk)|\(sendAt.map(String.init) ?? "")"
        if let service = made[key] { return service }
        var options = self.options
        if let sendAt { options.sendAt = sendAt }
        let service = try ServiceExtension(
            options: options, selection: sdk, outputDirectory: folder, ownedPaths: .run, cache: revalidation, decoder: decoder)
        // A few choices in practice; a client naming many send times cannot grow the shelf without bound.
        if made.count >= 32 { made.removeAll() }
        made[key] = service
        return service
    }

    /// The files a check stored: only the verdict is kept (unless they are the cache's).
    func removeAttachments(of reports: [Report]) {
        guard !keepsFiles else { return }
        Self.removeAttachments(reports.flatMap { $0.attachments.map(\.filePath) }, in: folder)
    }

    /// Unlinks the attachment files `paths` that are directly in `folder` (the gate's own), nothing else a record names.
    static func removeAttachments(_ paths: [String], in folder: String) {
        for path in paths where FilePaths.parent(path) == folder { unlink(path) }
    }
}

/// A request body as `check` reads it: one JSON document (an object, or an array of them), else JSON Lines.
enum GateInput {
    struct Item {
        let source: String
        let bytes: [UInt8]
        /// For a line of JSON Lines, its number (from 1), as `check` numbers a file's lines.
        var line: Int? = nil
    }

    static func split(_ body: [UInt8]) -> [Item] {
        let trimmed = Array(body.drop { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 })
        // Read once as one document: an array is its elements, anything else the body whole.
        if let value = try? JSONParser.parse(trimmed) {
            guard case .array(let elements) = value else { return [Item(source: "body", bytes: trimmed)] }
            return elements.enumerated().map { Item(source: "body[\($0.offset)]", bytes: Array(JSONWriter.string($0.element).utf8)) }
        }
        var items: [Item] = []
        for (number, line) in body.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
            guard line.contains(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }) else { continue }
            items.append(Item(source: "body:\(number + 1)", bytes: Array(line), line: number + 1))
        }
        return items
    }
}

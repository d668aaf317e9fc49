import Glibc

/// `check` as a streaming pipeline: the caller's thread reads payloads and
/// submits them; parse workers plan each payload (profile, entries, URL
/// checks); fetch workers download each distinct media URL once; one writer
/// thread emits records in input order.
///
/// Memory is bounded by `windowSize` payloads between submitted and written,
/// whatever the input's length: `submit` blocks while the window is full.
/// What the caller's outputs make of a report (`CheckRecord.Rendering`) is
/// produced on the worker that finished the payload.
public final class CheckPipeline: @unchecked Sendable {
    public struct Configuration: Sendable {
        /// Concurrent downloads (fetch workers, each with its own libcurl and libmagic handles).
        public var jobs: Int
        public var options: FetchOptions
        public var selection: SDKSelection
        public var outputDirectory: String
        /// Warnings fail payloads too.
        public var strict: Bool
        public var cancellation: Cancellation?
        /// `--cache`: stored verdicts to revalidate, shared by the fetch workers.
        package var cache: RevalidationCache?
        /// The run's decode worker, shared with whoever else draws from it (the preview's pictures).
        package var decoder = DecodeWorker()
        /// Where the summary's media list goes past a few thousand URLs (the run's scratch folder); nil: memory.
        public var scratchFolder: String?
        /// `--host-connections`: the most fetch workers that download from one host at once.
        public var hostConnections = 8
        /// `--platform`: the deliveries checked; an input with none of them is skipped.
        public var platforms = PlatformSelection.all
        /// Turns a finished report into the outputs' rendering; runs on worker threads.
        public var render: @Sendable (Report) -> CheckRecord.Rendering

        public init(
            jobs: Int, options: FetchOptions, selection: SDKSelection, outputDirectory: String, strict: Bool,
            cancellation: Cancellation?, render: @escaping @Sendable (Report) -> CheckRecord.Rendering
        ) {
            self.jobs = jobs
            self.options = options
            self.selection = selection
            self.outputDirectory = outputDirectory
            self.strict = strict
            self.cancellation = cancellation
            self.render = render
        }
    }

    private struct Numbered: Sendable {
        var sequence: Int
        var input: CheckInput
    }

    private let configuration: Configuration
    /// Most payloads between submitted and written.
    public let windowSize: Int
    private let batchLimit: Int
    private let window: Semaphore
    private let parseQueue = BlockingQueue<[Numbered]>()
    /// The fetch workers in lanes of at most `hostConnections`, each host's URLs
    /// in one lane's queue: a host never sees more connections than its lane has
    /// workers (each worker's libcurl handle keeps one open per host), whatever
    /// `--jobs` is, so the tool's own load never becomes a `timeout` verdict.
    private let lanes: [BlockingQueue<FetchJob>]
    /// The APNs payloads' downloads, by URL (all under `fetchPolicy`).
    private let cache = MediaCache<String, PendingPayload>()
    /// Send requests' downloads, by URL and the policy each runs under.
    private let requestCache = MediaCache<FetchKey, PendingPayload>()
    /// Every APNs payload's download runs under it; each payload's report judges it under its own profile's.
    private let fetchPolicy: MediaPolicy
    private let policies: PolicyTable
    private let writer: OrderedWriter<CheckRecord>
    private let fetchers: [Handoff<MediaDownloader>]
    /// The run's working files by content, shared by the fetch workers; freed by `finish`.
    private let workingFiles = WorkingFiles()
    /// Makes the attachment files each report lists, on the thread that finishes the report.
    private let placement: AttachmentPlacement
    // Set by `start`, joined by `finish`, both on the submitting thread.
    private var parseThreads: [JoinableThread] = []
    private var fetchThreads: [JoinableThread] = []
    private var writerThread: JoinableThread?

    // Used by the submitting thread only.
    private var batch: [Numbered] = []
    private var submitted = 0
    /// Window slots taken and not yet used.
    private var credits = 0
    // Used by the writer thread only until `finish` joins it.
    private var summary: CheckSummary

    /// - Throws: `ServiceExtensionError` when the output folder, libcurl or libmagic is unusable.
    public init(_ configuration: Configuration) throws(ServiceExtensionError) {
        self.configuration = configuration
        let jobs = max(1, configuration.jobs)
        // Payloads travel in batches of 128: each batch costs about three thread wake-ups (a parse
        // worker, the writer, the reader), and batches of 64 made a million-line campaign switch
        // threads 46,000 times (9% of its time in the kernel); 128 took a million lines from 3.19 s
        // to 2.92 s and a million send requests from 5.57 s to 4.96 s (medians, alternating runs).
        // The window holds four batches at least, so two parse workers never wait for the writer.
        batchLimit = 128
        windowSize = max(4 * batchLimit, jobs * 64)
        window = Semaphore(value: windowSize)
        writer = OrderedWriter(capacity: windowSize)
        fetchPolicy = configuration.selection.fetchPolicy(configuration.options)
        policies = PolicyTable(configuration.options)
        summary = CheckSummary(
            networks: NetworkProfile.summarized(adding: configuration.options.network), scratchFolder: configuration.scratchFolder)
        // Sniffing is CPU work of milliseconds: as many libmagic handles as cores, whatever --jobs is.
        let sniffers: SnifferPool
        do {
            sniffers = try SnifferPool(size: min(jobs, max(1, ProcessFacts.processorCount)))
        } catch {
            throw ServiceExtensionError(message: error.message)
        }
        let folder = try MediaDownloader.checkedFolder(configuration.outputDirectory)
        let probes = ForwardSecrecyProbes()
        fetchers = (0..<jobs).map { [workingFiles] _ in
            Handoff(value: MediaDownloader(
                options: configuration.options, outputDirectory: folder, ownedPaths: .run, sniffers: sniffers,
                cache: configuration.cache, workingFiles: workingFiles, probes: probes, decoder: configuration.decoder))
        }
        placement = fetchers[0].value.placement
        let perHost = max(1, configuration.hostConnections)
        lanes = (0..<((jobs + perHost - 1) / perHost)).map { _ in BlockingQueue<FetchJob>() }
    }

    /// Starts the workers and the writer; `emit` gets every record, in input order,
    /// on the writer thread.
    public func start(emit: @escaping @Sendable (CheckRecord) -> Void) {
        let parsers = min(configuration.jobs, max(1, ProcessFacts.processorCount))
        parseThreads = (0..<max(1, parsers)).map { _ in JoinableThread { self.parseLoop() } }
        fetchThreads = fetchers.enumerated().map { index, fetcher in
            let lane = lanes[index % lanes.count]
            return JoinableThread { self.fetchLoop(fetcher.value, lane: lane) }
        }
        writerThread = JoinableThread {
            self.writer.run { record in
                if record.skipped {
                    self.summary.skipped += 1
                } else {
                    // Each record as it is: an array of the record and its companions copied every one.
                    self.summary.inputs += 1
                    emit(record)
                    self.summary.add(record)
                    for companion in record.companions {
                        emit(companion)
                        self.summary.add(companion)
                    }
                }
                self.window.signal()
            }
        }
    }

    /// Queues one payload; blocks while the window is full.
    /// - Returns: false once the run is cancelled: stop reading.
    public func submit(_ input: CheckInput) -> Bool {
        if credits == 0 {
            // Window slots are taken a batch at a time. One at a time, a full
            // window made every written record wake this thread to hand over a
            // batch of one: a campaign ran at the speed of thread switches.
            if !window.wait(for: batchLimit, milliseconds: 0) {
                // Whatever is batched holds window slots: hand it to the workers before waiting.
                flush()
                while !window.wait(for: batchLimit, milliseconds: 100) {
                    if isCancelled { return false }
                }
            }
            credits = batchLimit
        }
        if isCancelled { return false }
        credits -= 1
        batch.append(Numbered(sequence: submitted, input: input))
        submitted += 1
        if batch.count >= batchLimit { flush() }
        return true
    }

    /// Hands the current batch to the workers; readers call it before they may block.
    public func flush() {
        guard !batch.isEmpty else { return }
        parseQueue.push(batch)
        batch = []
    }

    /// Waits for every submitted payload to be written (or, once cancelled, for
    /// the workers to stop) and returns the summary.
    public func finish() -> CheckSummary {
        flush()
        parseQueue.close()
        parseThreads.forEach { $0.join() }
        lanes.forEach { $0.close() }
        fetchThreads.forEach { $0.join() }
        writer.close()
        writerThread?.join()
        // Every report is placed: --cache keeps what no record attached, then the working files go.
        for fetcher in fetchers { fetcher.value.rememberUnplacedDownloads() }
        workingFiles.releaseAll()
        summary.interrupted = isCancelled
        summary.finishedOutOfOrder = writer.unwritten
        return summary
    }

    /// Downloads started: one per distinct valid media URL.
    package var fetchCount: Int { cache.fetchCount + requestCache.fetchCount }

    private var isCancelled: Bool { configuration.cancellation?.isCancelled == true }

    private func parseLoop() {
        // Campaigns repeat a few URLs millions of times: remember their checks
        // (per thread, so no lock), up to a bound.
        var checkedURLs = URLCheckMemo()
        var finished: [CheckRecord] = []
        while let numbered = parseQueue.pop() {
            // By index: each payload is lent to `parse` where a for-in loop copied it (two retains and releases).
            for index in numbered.indices {
                if isCancelled { break }
                if let record = parse(numbered[index], checkedURLs: &checkedURLs) { finished.append(record) }
            }
            // Handed over whole (`consume`): a batch still referenced here was copied record by record
            // when the writer took its records out.
            writer.deliver(consume finished)
            finished = []
        }
    }

    /// The record for `item`, or nil when it waits for its media downloads.
    private func parse(_ item: Numbered, checkedURLs: inout URLCheckMemo) -> CheckRecord? {
        let source = item.input.source
        let payload: Payload
        let invalidSDK: SDK = if case .fixed(let sdk) = configuration.selection { sdk } else { .notti }
        func invalid(_ error: PayloadError) -> Report {
            Report.invalidPayload(source: source, sdk: invalidSDK, error: error, strict: configuration.strict)
        }
        switch item.input.body {
        case .unreadable(let message):
            return record(item.sequence, [invalid(PayloadError(message: message))], of: item.input)
        case .bytes(let bytes):
            do {
                payload = try Payload(json: bytes)
            } catch {
                return record(item.sequence, [invalid(error)], of: item.input)
            }
        }
        // Which send request it is, read with the payload (Payload/), before its plans are made (Profiles/).
        let request: SendRequest?
        do {
            request = try SendRequest.parse(payload)
        } catch {
            // The platform refuses the whole request: each record says so.
            let reports = Report.refusedRequest(
                source: source, sdk: invalidSDK, error: error, strict: configuration.strict, platforms: configuration.platforms)
            return record(item.sequence, reports, of: item.input)
        }
        let inputDeliveries = Deliveries(
            payload, request: request, source: source, selection: configuration.selection, options: configuration.options,
            platforms: configuration.platforms, policies: policies
        ) { checkedURLs.check($0, key: $1, allowHTTP: $2) }
        let deliveries = inputDeliveries.list
        guard !deliveries.isEmpty else {
            // No delivery for --platform: not checked.
            var skipped = CheckRecord(
                sequence: item.sequence, source: source, passed: true, diagnostics: [], media: [], attachments: [],
                rendered: configuration.render(invalid(PayloadError(message: ""))))
            skipped.skipped = true
            return skipped
        }
        // A JSON file's findings about media point at the media key (SPEC 10); a line's, at its line.
        let places: MediaKeyPositions? = if item.input.lineNumber == nil, case .bytes(let bytes) = item.input.body {
            MediaKeyPositions(bytes: bytes, entries: deliveries.flatMap { delivery in
                delivery.plan.entries.compactMap { planned in planned.entry.value.stringValue.map { (planned.entry.key, $0) } }
            })
        } else {
            nil
        }
        let fetches = inputDeliveries.fetches
        guard !fetches.isEmpty else {
            return record(item.sequence, reports(deliveries, results: [:]), of: item.input, places: places)
        }
        // A campaign names a few URLs many times: nearly every payload finds its
        // results in, and is reported at once, without a waiting payload.
        var pending: PendingPayload?
        var ready = MediaResults()
        var dropped = false
        for url in fetches {
            // Parks the payload, made at its first URL that is not in.
            func park() -> PendingPayload {
                if let pending { return pending }
                let made = PendingPayload(
                    sequence: item.sequence, input: item.input, deliveries: deliveries, needed: fetches.count, places: places)
                pending = made
                return made
            }
            // A request's downloads are cached apart from the run's APNs payloads', by their policy;
            // an APNs payload's policy is the run's (and is not copied per payload to find its result).
            let requestPolicy = inputDeliveries.isRequest ? inputDeliveries.fetchPolicy(for: url, apnsPolicy: fetchPolicy) : nil
            let lookup: MediaLookup = if let requestPolicy {
                requestCache.lookup(FetchKey(url: url.string, policy: requestPolicy)) { park() }
            } else {
                cache.lookup(url.string) { park() }
            }
            switch lookup {
            case .ready(let result): ready[url.string] = result
            case .parked(startFetch: true):
                lane(for: url).push(FetchJob(url: url, policy: requestPolicy ?? fetchPolicy, isRequest: requestPolicy != nil))
            case .parked(startFetch: false): break
            case .abandoned: dropped = true
            }
        }
        guard let pending else {
            return dropped ? nil : record(
                item.sequence, reports(deliveries, results: ready), of: item.input, places: places)
        }
        // Some download is still running: whichever thread fills the last result reports.
        var finished: CheckRecord?
        for (url, result) in ready where pending.fill(url, with: result) { finished = finishRecord(pending) }
        return finished
    }

    /// Each delivery's report, once its downloads are in.
    private func reports(_ deliveries: [Delivery], results: MediaResults) -> [Report] {
        deliveries.map {
            DeliveryCheck.report($0.plan, source: $0.source, results: results, strict: configuration.strict, placement: placement)
        }
    }

    /// The lane of `url`'s host: the same host, the same lane, every time.
    private func lane(for url: MediaURL) -> BlockingQueue<FetchJob> {
        // FNV-1a over the host's bytes: stable across runs, unlike Hasher.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in url.host.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        return lanes[Int(hash % UInt64(lanes.count))]
    }

    private func fetchLoop(_ downloader: MediaDownloader, lane: BlockingQueue<FetchJob>) {
        while let job = lane.pop() {
            guard !isCancelled,
                  let result = downloader.download(job.url, policy: job.policy, cancellation: configuration.cancellation)
            else {
                if job.isRequest { requestCache.abandon(FetchKey(url: job.url.string, policy: job.policy)) } else { cache.abandon(job.url.string) }
                continue
            }
            let parked = job.isRequest
                ? requestCache.complete(FetchKey(url: job.url.string, policy: job.policy), with: result) : cache.complete(job.url.string, with: result)
            writer.deliver(parked.compactMap { pending in
                guard pending.fill(job.url.string, with: result) else { return nil }
                let record = finishRecord(pending)
                // A decode that found this machine unable to decode stopped the run (SPEC 17: exit 2 at the first
                // decode, naming why): no record is written past it, its own included.
                return configuration.decoder.unusableReason == nil ? record : nil
            })
        }
    }

    private func finishRecord(_ pending: PendingPayload) -> CheckRecord {
        record(
            pending.sequence, reports(pending.deliveries, results: pending.results), of: pending.input, places: pending.places)
    }

    /// The record of one input: its first delivery's, with the others (a send request's
    /// Android delivery) as companions written right after it.
    private func record(
        _ sequence: Int, _ reports: consuming [Report], of input: CheckInput, places: MediaKeyPositions? = nil
    ) -> CheckRecord {
        var reports = reports
        // Taken out of the array from its end, each report moves into its record (a subscript read
        // copied it, and taking the first shifted the rest).
        reports.reverse()
        let firstReport = reports.removeLast()
        var companions: [CheckRecord] = []
        while let companion = reports.popLast() { companions.append(record(sequence, companion, of: input, places: places)) }
        var first = record(sequence, firstReport, of: input, places: places)
        if !companions.isEmpty { first.companions = companions }
        return first
    }

    private func record(
        _ sequence: Int, _ report: consuming Report, of input: CheckInput, places: MediaKeyPositions? = nil
    ) -> CheckRecord {
        var report = report
        let line = input.lineNumber, index = input.index
        if let places, !places.isEmpty {
            for position in report.diagnostics.indices
            where report.diagnostics[position].line == nil && !report.diagnostics[position].code.isAboutPayload {
                guard let at = places.position(ofEntry: report.diagnostics[position].entry) else { continue }
                report.diagnostics[position].line = at.line
                report.diagnostics[position].column = at.column
            }
        }
        // An element of a JSON array file (SPEC 10): its positions, counted in its own bytes, are the file's.
        if let origin = input.origin {
            for position in report.diagnostics.indices {
                guard let at = report.diagnostics[position].line, let column = report.diagnostics[position].column else { continue }
                report.diagnostics[position].line = origin.line + at - 1
                report.diagnostics[position].column = at == 1 ? origin.column + column - 1 : column
            }
        }
        if let line {
            report.sourceIsLine = true
            // A position inside the line is a column of the file's line `line`: the same in every format.
            for position in report.diagnostics.indices where report.diagnostics[position].line != nil {
                report.diagnostics[position].line = line
            }
        }
        report.index = index
        let rendered = configuration.render(report)
        // The report ends here: its parts are moved into the record, not copied
        // (a copy and the report's destruction were two atomic counts per part).
        var record = CheckRecord(
            sequence: sequence, source: "", passed: report.passed, diagnostics: [], media: [], attachments: [], rendered: rendered)
        record.sdk = report.sdk
        record.platform = report.platform
        swap(&record.source, &report.source)
        swap(&record.diagnostics, &report.diagnostics)
        swap(&record.media, &report.mediaVerdicts)
        swap(&record.attachments, &report.attachments)
        return record
    }
}

/// A payload waiting for the downloads of its media URLs (OneSignal and
/// Airship payloads may name several); whichever thread fills the last one
/// builds its record.
final class PendingPayload: @unchecked Sendable {
    let sequence: Int
    /// Where it came from (its bytes are not kept: the plans have the payload).
    let input: CheckInput
    let deliveries: [Delivery]
    /// Distinct URLs its deliveries fetch.
    private let needed: Int
    // Guarded by `lock`; read by the one thread whose `fill` returned true.
    private let lock = Lock()
    private(set) var results = MediaResults()

    /// Where its JSON file names its media, for its findings (none for a line of JSON Lines).
    let places: MediaKeyPositions?

    init(sequence: Int, input: CheckInput, deliveries: [Delivery], needed: Int, places: MediaKeyPositions? = nil) {
        self.places = places
        self.sequence = sequence
        var kept = CheckInput(source: input.source, body: .unreadable(""), lineNumber: input.lineNumber, index: input.index)
        kept.origin = input.origin
        self.input = kept
        self.deliveries = deliveries
        self.needed = needed
    }

    /// Records one URL's result; true for the call that completes the payload.
    func fill(_ url: String, with result: MediaResult) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard results[url] == nil else { return false }
        results[url] = result
        return results.count == needed
    }
}

/// One download for the fetch workers: the URL, the policy it runs under, and whose it is
/// (a send request's, cached by URL and policy, or the APNs payloads', by URL).
struct FetchJob: Sendable {
    let url: MediaURL
    let policy: MediaPolicy
    let isRequest: Bool
}

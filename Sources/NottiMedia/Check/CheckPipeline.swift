import Foundation

/// `check` as a streaming pipeline: the caller's thread reads payloads and
/// submits them; parse workers turn them into reports; fetch workers download
/// each distinct media URL once; one writer thread emits records in input order.
///
/// Memory is bounded by `windowSize` payloads between submitted and written,
/// whatever the input's length: `submit` blocks while the window is full.
public final class CheckPipeline: @unchecked Sendable {
    public struct Configuration: Sendable {
        /// Concurrent downloads (fetch workers, each with its own libcurl and libmagic handles).
        public var jobs: Int
        public var policy: MediaPolicy
        public var outputDirectory: String
        /// Warnings fail payloads too.
        public var strict: Bool
        public var cancellation: Cancellation?
        /// Turns a finished report into one rendering per output; runs on worker threads.
        public var render: @Sendable (Report) -> [String?]

        public init(
            jobs: Int, policy: MediaPolicy, outputDirectory: String, strict: Bool,
            cancellation: Cancellation?, render: @escaping @Sendable (Report) -> [String?]
        ) {
            self.jobs = jobs
            self.policy = policy
            self.outputDirectory = outputDirectory
            self.strict = strict
            self.cancellation = cancellation
            self.render = render
        }
    }

    /// A payload waiting for its media URL's result.
    struct Parked: Sendable {
        var sequence: Int
        var source: String
        var payload: Payload
        var verdict: MediaURL.Verdict
    }

    private struct Numbered: Sendable {
        var sequence: Int
        var input: CheckInput
    }

    private let configuration: Configuration
    /// Most payloads between submitted and written.
    public let windowSize: Int
    private let batchLimit: Int
    private let window: DispatchSemaphore
    private let parseQueue = BlockingQueue<[Numbered]>()
    private let fetchQueue = BlockingQueue<MediaURL>()
    private let cache = MediaCache<Parked>()
    private let writer = OrderedWriter()
    private let fetchers: [Handoff<ServiceExtension>]
    // Set by `start`, joined by `finish`, both on the submitting thread.
    private var parseThreads: [JoinableThread] = []
    private var fetchThreads: [JoinableThread] = []
    private var writerThread: JoinableThread?

    // Used by the submitting thread only.
    private var batch: [Numbered] = []
    private var submitted = 0
    // Used by the writer thread only until `finish` joins it.
    private var summary = CheckSummary()

    /// - Throws: `ServiceExtensionError` when the output folder or libmagic is unusable.
    public init(_ configuration: Configuration) throws(ServiceExtensionError) {
        self.configuration = configuration
        let jobs = max(1, configuration.jobs)
        windowSize = max(64, jobs * 64)
        batchLimit = 64
        window = DispatchSemaphore(value: windowSize)
        var fetchers: [Handoff<ServiceExtension>] = []
        for _ in 0..<jobs {
            fetchers.append(Handoff(value: try ServiceExtension(
                policy: configuration.policy, outputDirectory: configuration.outputDirectory)))
        }
        self.fetchers = fetchers
    }

    /// Starts the workers and the writer; `emit` gets every record, in input order,
    /// on the writer thread.
    public func start(emit: @escaping @Sendable (CheckRecord) -> Void) {
        let parsers = min(configuration.jobs, max(1, ProcessInfo.processInfo.activeProcessorCount))
        parseThreads = (0..<max(1, parsers)).map { _ in JoinableThread { self.parseLoop() } }
        fetchThreads = fetchers.map { fetcher in JoinableThread { self.fetchLoop(fetcher.value) } }
        writerThread = JoinableThread {
            self.writer.run { record in
                emit(record)
                self.summary.add(record)
                self.window.signal()
            }
        }
    }

    /// Queues one payload; blocks while the window is full.
    /// - Returns: false once the run is cancelled: stop reading.
    public func submit(_ input: CheckInput) -> Bool {
        if window.wait(timeout: .now()) == .timedOut {
            // Whatever is batched holds window slots: hand it to the workers before waiting.
            flush()
            while window.wait(timeout: .now() + .milliseconds(100)) == .timedOut {
                if isCancelled { return false }
            }
        }
        if isCancelled {
            window.signal()
            return false
        }
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
        fetchQueue.close()
        fetchThreads.forEach { $0.join() }
        writer.close()
        writerThread?.join()
        // Records an interruption dropped never gave their window slot back;
        // libdispatch traps when a semaphore is freed below its initial value.
        for _ in summary.payloads..<submitted { window.signal() }
        summary.interrupted = isCancelled
        return summary
    }

    /// Downloads started: one per distinct valid media URL.
    public var fetchCount: Int { cache.fetchCount }

    private var isCancelled: Bool { configuration.cancellation?.isCancelled == true }

    private func parseLoop() {
        // Campaigns repeat a few URLs millions of times: remember their verdicts
        // (per thread, so no lock), up to a bound.
        var verdicts: [String: MediaURL.Verdict] = [:]
        var finished: [CheckRecord] = []
        while let numbered = parseQueue.pop() {
            for item in numbered {
                if isCancelled { break }
                if let record = parse(item, verdicts: &verdicts) { finished.append(record) }
            }
            writer.deliver(finished)
            finished.removeAll(keepingCapacity: true)
        }
    }

    /// The record for `item`, or nil when it is parked on its media URL's download.
    private func parse(_ item: Numbered, verdicts: inout [String: MediaURL.Verdict]) -> CheckRecord? {
        let source = item.input.source
        let payload: Payload
        switch item.input.body {
        case .unreadable(let message):
            return record(item.sequence, Report.invalidPayload(source: source, error: PayloadError(message: message)), media: nil)
        case .bytes(let bytes):
            do {
                payload = try Payload(json: bytes)
            } catch {
                return record(item.sequence, Report.invalidPayload(source: source, error: error), media: nil)
            }
        }
        let verdict: MediaURL.Verdict
        if case .string(let text)? = payload.mediaURLValue, let known = verdicts[text] {
            verdict = known
        } else {
            verdict = MediaURL.check(payload.mediaURLValue)
            if case .string(let text)? = payload.mediaURLValue {
                if verdicts.count >= 10_000 { verdicts.removeAll(keepingCapacity: true) }
                verdicts[text] = verdict
            }
        }
        guard case .valid(let url) = verdict else {
            return record(item.sequence, report(payload, source, verdict, nil), media: nil)
        }
        let parked = Parked(sequence: item.sequence, source: source, payload: payload, verdict: verdict)
        switch cache.lookup(url.string, parking: parked) {
        case .ready(let result): return record(item.sequence, report(payload, source, verdict, result), media: result)
        case .parked(startFetch: true): fetchQueue.push(url)
        case .parked(startFetch: false), .abandoned: break
        }
        return nil
    }

    private func fetchLoop(_ serviceExtension: ServiceExtension) {
        while let url = fetchQueue.pop() {
            guard !isCancelled,
                  let result = serviceExtension.fetchMedia(url, cancellation: configuration.cancellation)
            else {
                cache.abandon(url.string)
                continue
            }
            writer.deliver(cache.complete(url.string, with: result).map { parked in
                record(parked.sequence, report(parked.payload, parked.source, parked.verdict, result), media: result)
            })
        }
    }

    private func report(_ payload: Payload, _ source: String, _ verdict: MediaURL.Verdict, _ media: MediaResult?) -> Report {
        ServiceExtension.report(for: payload, source: source, verdict: verdict, media: media, policy: configuration.policy)
    }

    private func record(_ sequence: Int, _ report: Report, media: MediaResult?) -> CheckRecord {
        var report = report
        report.strict = configuration.strict
        return CheckRecord(
            sequence: sequence, source: report.source, passed: report.passed,
            diagnostics: report.diagnostics, media: MediaVerdict(report: report, result: media),
            attachment: report.attachment, outputs: configuration.render(report))
    }
}

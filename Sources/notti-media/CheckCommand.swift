import Glibc
import NottiMedia

/// `notti-media check PATH...`: many payloads, streamed in and out in input
/// order, each distinct media URL fetched once; exit 0 when all pass, 1 when
/// any fails, 2 for bad usage or a local failure.
struct CheckCommand {
    let options: Options

    func run() -> Int32 {
        // Everything that can be checked is checked before the first download.
        let environment = ProcessFacts.environment()
        var options = options
        do {
            try options.resolveShard(environment: environment)
        } catch {
            return Tool.report(error)
        }
        return CheckCommand(resolved: options).run(environment: environment)
    }

    private init(resolved: Options) {
        options = resolved
    }

    init(options: Options) {
        self.options = options
    }

    private func run(environment: [String: String]) -> Int32 {
        var sources: PayloadSources
        let outputDirectory: String
        let scratch: ScratchFolder
        do {
            sources = try PayloadSources(paths: options.operands, cancellation: Signals.cancellation, shard: options.shard)
            outputDirectory = try AttachmentFolder.resolve(out: options.outDirectory, environment: environment)
            scratch = try ScratchFolder(environment: environment)
        } catch {
            return Tool.report(error)
        }
        defer { scratch.remove() }
        let unreadable = Counter()
        // The progress line's total and time left, for a person watching a terminal (measured only then).
        if !options.quiet && Console.stderrIsTerminal && (options.format ?? .text) == .text {
            sources.progress = ReadProgress(operands: options.operands)
        }
        sources.unreadable = { message in
            Console.fail(message)
            unreadable.add()
        }
        // Spools live in the scratch folder; both are released (removed) before it.
        return withExtendedLifetime(scratch) {
            let status = run(sources: sources, outputDirectory: outputDirectory, scratch: scratch, unreadable: unreadable)
            // An operand that could not be read is a local failure, whatever the payloads that were read say.
            return unreadable.count > 0 && status != ExitCode.usage && Signals.receivedSignal == nil ? ExitCode.localFailure : status
        }
    }

    private func run(sources: PayloadSources, outputDirectory: String, scratch: ScratchFolder, unreadable: Counter) -> Int32 {
        let format: CheckFormat
        let preview: HTMLPreview?
        let pipeline: CheckPipeline
        do {
            format = try Self.makeFormat(options, scratch: scratch)
            // One decode worker for the run: the downloads' verdicts and the page's pictures.
            let decoder = Tool.decoder(options)
            preview = try options.htmlPath.map { path in
                try HTMLPreview(
                    path: path, spool: scratch.makeSpool("the --html page"), passingSpool: scratch.makeSpool("the --html page"),
                    context: PreviewContext(options: options),
                    decoder: decoder, errorsOnly: options.errorsOnly)
            }
            let renderer = format.renderer
            var configuration = CheckPipeline.Configuration(
                jobs: options.jobs ?? Options.defaultJobs, options: Tool.fetchOptions(from: options),
                selection: options.sdk, outputDirectory: outputDirectory, strict: options.strict,
                cancellation: Signals.cancellation,
                render: { [preview] report in
                    // The card's pictures are drawn here, on the fetch thread, not on the writer's.
                    preview?.drawPictures(report)
                    return CheckRecord.Rendering(line: renderer.render(report), report: preview != nil ? report : nil)
                })
            if let hostConnections = options.hostConnections { configuration.hostConnections = hostConnections }
            configuration.cache = Tool.openCache(options)
            configuration.platforms = options.platforms
            configuration.decoder = decoder
            configuration.scratchFolder = scratch.path
            pipeline = try CheckPipeline(configuration)
        } catch let error as ServiceExtensionError {
            return Tool.report(LocalError(error.message))
        } catch {
            return Tool.report(error)
        }

        let started = MonotonicInstant.now
        let startedAt = UTCTimestamp.now()
        let progress = options.quiet || !Console.stderrIsTerminal || (options.format ?? .text) != .text
            ? nil : ProgressLine(reading: sources.progress)
        let tally = Tally()
        let sink = format.sink
        pipeline.start { record in
            if let line = record.rendered.line {
                progress?.clear()
                sink.write(line)
            }
            if let report = record.rendered.report { preview?.add(record, report: report) }
            tally.add(record)
            progress?.update(done: tally.done, failed: tally.failed)
        }
        let position = sources.forEach(willBlock: pipeline.flush) { input in pipeline.submit(input) }
        var summary = pipeline.finish()
        summary.seconds = (MonotonicInstant.now - started) / .seconds(1)
        summary.startedAt = startedAt
        summary.strict = options.strict
        summary.decoded = !options.noDecode
        summary.shard = options.shard
        summary.operandsDigest = CheckSummary.digest(ofOperands: options.operands)
        progress?.clear()
        if Signals.receivedSignal == nil && position == 0 && unreadable.count > 0 { return ExitCode.localFailure }
        if Signals.receivedSignal == nil && position == 0 && !options.allowEmpty {
            if options.operands.allSatisfy({ $0 == "-" }) {
                Console.fail("check found no payload on standard input (-): it was empty; pipe JSON Lines in, one payload a line, "
                    + "or pass --allow-empty to accept that")
            } else {
                Console.fail("check found no payload in \(options.operands.joined(separator: " ")) (folders are walked for "
                    + "*.json, *.apns, *.jsonl and *.ndjson, hidden entries skipped); pass --allow-empty to accept that")
            }
            return ExitCode.usage
        }
        if Signals.receivedSignal == nil && summary.payloads == 0 && summary.skipped > 0 && !options.allowEmpty {
            Console.fail("check found no delivery for --platform \(options.platforms.rawValue) in \(options.operands.joined(separator: " ")) "
                + "(APNs payloads go to iOS only; an FCM send request goes to both); pass --allow-empty to accept that")
            return ExitCode.usage
        }
        let verdict = summary.failed > 0 ? ExitCode.failed : ExitCode.success
        do {
            try format.sink.finish(summary)
            try preview?.finish(summary)
        } catch {
            // The run itself finished: say its verdict too, so a full disk does not hide it.
            Console.fail("\(error.message) (the check itself finished: \(summary.passed) passed, \(summary.failed) failed)")
            return ExitCode.localFailure
        }
        if let stored = summary.codeCounts[.writeError], let first = tally.firstWriteError {
            Console.fail("\(stored) payload\(stored == 1 ? "'s attachment" : "s' attachments") could not be stored in "
                + "\(outputDirectory) (write_error), the first: \(first)")
            return ExitCode.localFailure
        }
        return verdict
    }

    /// The output `--format` asks for (`check` and `merge` share it).
    static func makeFormat(_ options: Options, scratch: ScratchFolder) throws -> CheckFormat {
        switch options.format ?? .text {
        case .text:
            let text = TextFormat(summaryOnly: options.summaryOnly, errorsOnly: options.errorsOnly, top: options.top)
            return CheckFormat(renderer: text, sink: text)
        case .json:
            let json = JSONLinesFormat(summaryOnly: options.summaryOnly)
            return CheckFormat(renderer: json, sink: json)
        case .junit:
            return CheckFormat(
                renderer: JUnitRenderer(), sink: JUnitSink(spool: try scratch.makeSpool("JUnit output"), shard: options.shard, top: options.top))
        case .github:
            let github = GitHubFormat(top: options.top)
            return CheckFormat(renderer: github, sink: github)
        case .sarif:
            return CheckFormat(renderer: SARIFFormat(), sink: SARIFSink())
        case .codequality:
            return CheckFormat(renderer: CodeQualityFormat(), sink: CodeQualitySink())
        }
    }
}

/// Counts for the progress line, and the first local write failure; touched by
/// the writer thread only, read after it is joined.
private final class Tally: @unchecked Sendable {
    private(set) var done = 0
    private(set) var failed = 0
    private(set) var firstWriteError: String?

    func add(_ record: CheckRecord) {
        done += 1
        if !record.passed { failed += 1 }
        if firstWriteError == nil, let failure = record.diagnostics.first(where: { $0.code == .writeError }) {
            firstWriteError = failure.message
        }
    }
}

/// A count the main thread keeps (operands that could not be read).
final class Counter {
    private(set) var count = 0
    func add() { count += 1 }
}

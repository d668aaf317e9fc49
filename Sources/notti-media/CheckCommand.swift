import Foundation
import NottiMedia

/// `notti-media check PATH...`: many payloads, streamed in and out in input
/// order, each distinct media URL fetched once; exit 0 when all pass, 1 when any fails.
struct CheckCommand {
    let options: Options

    func run() -> Int32 {
        let sources: PayloadSources
        let format: CheckFormat
        let preview: HTMLPreview?
        do {
            sources = try PayloadSources(paths: options.operands, cancellation: Signals.cancellation)
            format = try makeFormat()
            preview = try options.htmlPath.map { path throws(UsageError) in try HTMLPreview(path: path) }
        } catch {
            Console.fail(error.message)
            return ExitCode.usage
        }
        let keepAttachments = options.outDirectory != nil
        let outputDirectory = options.outDirectory ?? Self.makeTemporaryFolder()
        defer { if !keepAttachments { try? FileManager.default.removeItem(atPath: outputDirectory) } }

        let pipeline: CheckPipeline
        do {
            pipeline = try CheckPipeline(.init(
                jobs: options.jobs ?? Options.defaultJobs, policy: Tool.policy(from: options),
                outputDirectory: outputDirectory, strict: options.strict,
                cancellation: Signals.cancellation,
                render: { report in [format.render(report), preview?.card.render(report)] }))
        } catch {
            Console.fail(error.message)
            return ExitCode.usage
        }
        let progress = options.quiet || !Console.stderrIsTerminal || (options.format ?? .text) != .text ? nil : ProgressLine()
        let tally = Tally()
        pipeline.start { record in
            if let rendered = record.outputs[0] {
                progress?.clear()
                format.write(rendered)
            }
            if let card = record.outputs[1] { preview?.add(record, card: card) }
            tally.add(record)
            progress?.update(done: tally.done, failed: tally.failed)
        }
        var position = 0
        sources.forEach(willBlock: pipeline.flush) { input in
            defer { position += 1 }
            if let shard = options.shard, position % shard.count != shard.index - 1 { return true }
            return pipeline.submit(input)
        }
        let summary = pipeline.finish()
        progress?.clear()
        format.finish(summary)
        do {
            try preview?.finish(summary)
        } catch {
            Console.fail(error.message)
            return ExitCode.usage
        }
        if let signal = Signals.receivedSignal { return ExitCode.interrupted(by: signal) }
        return summary.failed > 0 ? ExitCode.failed : ExitCode.success
    }

    private func makeFormat() throws(UsageError) -> CheckFormat {
        switch options.format ?? .text {
        case .text: return TextFormat(summaryOnly: options.summaryOnly)
        case .json: return JSONLinesFormat(summaryOnly: options.summaryOnly)
        case .junit:
            if options.summaryOnly { throw UsageError("--summary-only goes with --format text or json") }
            return try JUnitFormat()
        }
    }

    /// Without `--out`, attachments live in a private folder removed at the end.
    private static func makeTemporaryFolder() -> String {
        var template = Array(FileManager.default.temporaryDirectory
            .appendingPathComponent("notti-media-check-XXXXXX").path.utf8CString)
        guard let made = mkdtemp(&template) else { return FileManager.default.temporaryDirectory.path }
        return String(cString: made)
    }
}

/// Counts for the progress line; touched by the writer thread only.
private final class Tally: @unchecked Sendable {
    private(set) var done = 0
    private(set) var failed = 0

    func add(_ record: CheckRecord) {
        done += 1
        if !record.passed { failed += 1 }
    }
}

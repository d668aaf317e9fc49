import Glibc
import NottiMedia

/// `notti-media fix PATH... --into DIR` (SPEC 19): checks the payloads as
/// `check` does, then writes for each distinct media URL whose findings a new
/// file can cure one rendition that passes every record naming it, verified by
/// decoding it and judging it under each of those records; `fixes.jsonl` says
/// what was cured and what only the origin can mend; `--rewrite` writes the
/// payloads again, pointing at the renditions.
///
/// Three steps, one after the other: the check (the pipeline, as `check`), the
/// renditions (each URL downloaded whole, drawn by the decode worker), the
/// manifest and the rewritten payloads.
struct FixCommand {
    let options: Options

    func run() -> Int32 {
        let environment = ProcessFacts.environment()
        let sources: PayloadSources
        let scratch: ScratchFolder
        let folder: FixFolder
        do {
            sources = try PayloadSources(paths: options.operands, cancellation: Signals.cancellation)
            try FixFolder.checkOutside(options.fixInto ?? "", operands: options.operands)
            // Every usage error before the folder is made: a refused run leaves no new folder behind.
            if let rewrite = options.rewriteDirectory { try PayloadRewriter.checkTarget(rewrite, operands: options.operands) }
            folder = try FixFolder(path: options.fixInto ?? "")
            scratch = try ScratchFolder(environment: environment)
        } catch {
            return Tool.report(error)
        }
        defer { scratch.remove() }
        let attachments = scratch.path + "/attachments"
        let decoder = DecodeWorker()
        let targets = FixTargets()
        let unreadable = Counter()
        var sourcesWithErrors = sources
        sourcesWithErrors.unreadable = { message in
            Console.fail(message)
            unreadable.add()
        }
        let checked = check(sourcesWithErrors, into: attachments, decoder: decoder, targets: targets)
        defer { Self.removeAttachments(targets.attachmentPaths, folder: attachments) }
        guard let checked else { return ExitCode.localFailure }
        if let signal = Signals.receivedSignal { return ExitCode.interrupted(by: signal) }
        if checked == 0 && unreadable.count == 0 {
            Console.fail("fix found no payload in \(options.operands.joined(separator: " ")) (folders are walked for *.json, "
                + "*.apns, *.jsonl and *.ndjson, hidden entries skipped)")
            return ExitCode.usage
        }
        for line in targets.payloadLines { Console.out(line) }

        let downloader: MediaDownloader
        do {
            downloader = try MediaDownloader(
                options: Tool.fetchOptions(from: options), outputDirectory: attachments, ownedPaths: .run, decoder: decoder)
        } catch {
            return Tool.report(LocalError(error.message))
        }
        let fixer = MediaFixer(
            downloads: downloader, decoder: decoder, folder: folder, maxSide: options.maxSide, targetBytes: options.targetBytes,
            timeoutSeconds: options.timeoutSeconds ?? 60, baseURL: options.baseURL)
        var lines: [String] = []
        var replacements: [String: PayloadRewrite.Replacement] = [:]
        var everyFindingCured = true
        let withFindings = targets.ordered.filter { !$0.findings.isEmpty }
        let progress = options.quiet || !Console.stderrIsTerminal ? nil : ProgressLine()
        defer { progress?.clear() }
        for (index, target) in withFindings.enumerated() {
            progress?.update(fixed: index, of: withFindings.count)
            // Stopped: the manifest names what finished, and DIR holds exactly that (the partial file is gone).
            if Signals.receivedSignal != nil { break }
            let outcome = fixer.fix(target)
            lines.append(JSONWriter.string(outcome.json))
            if let notFixed = outcome.notFixed {
                everyFindingCured = false
                progress?.clear()
                for finding in target.findings where finding.code == notFixed.code { Console.out(finding.line) }
            }
            if let rendition = outcome.rendition, let newURL = outcome.newURL {
                replacements[target.url] = PayloadRewrite.Replacement(newURL: newURL, type: rendition.type)
            }
        }
        do {
            try folder.finish(manifest: lines)
            if let signal = Signals.receivedSignal { return ExitCode.interrupted(by: signal) }
            if let rewrite = options.rewriteDirectory {
                try PayloadRewriter(root: rewrite, operands: options.operands, rewrite: PayloadRewrite(replacements: replacements)).run()
            }
        } catch {
            return Tool.report(error)
        }
        if unreadable.count > 0 { return ExitCode.localFailure }
        return everyFindingCured ? ExitCode.success : ExitCode.failed
    }

    /// The check: every payload through the pipeline, each report handed to `targets` in input order.
    /// - Returns: how many payloads were read; nil when the pipeline could not start.
    private func check(_ sources: PayloadSources, into attachments: String, decoder: DecodeWorker, targets: FixTargets) -> Int? {
        var configuration = CheckPipeline.Configuration(
            jobs: options.jobs ?? Options.defaultJobs, options: Tool.fetchOptions(from: options), selection: options.sdk,
            outputDirectory: attachments, strict: false, cancellation: Signals.cancellation,
            render: { report in CheckRecord.Rendering(line: nil, report: report) })
        if let hostConnections = options.hostConnections { configuration.hostConnections = hostConnections }
        configuration.platforms = options.platforms
        configuration.decoder = decoder
        let pipeline: CheckPipeline
        do {
            pipeline = try CheckPipeline(configuration)
        } catch {
            Console.fail(error.message)
            return nil
        }
        let progress = options.quiet || !Console.stderrIsTerminal ? nil : ProgressLine()
        let counts = FixProgress()
        pipeline.start { record in
            if let report = record.rendered.report { targets.add(report) }
            counts.add(record)
            progress?.update(done: counts.done, failed: counts.failed)
        }
        let position = sources.forEach(willBlock: pipeline.flush) { input in pipeline.submit(input) }
        _ = pipeline.finish()
        progress?.clear()
        return position
    }

    /// The attachments the check placed in the run's scratch folder, and that folder.
    private static func removeAttachments(_ paths: Set<String>, folder: String) {
        for path in paths where path.hasPrefix(folder + "/") { unlink(path) }
        rmdir(folder)
    }
}

/// Counts for the progress line; touched by the writer thread only.
private final class FixProgress: @unchecked Sendable {
    private(set) var done = 0
    private(set) var failed = 0

    func add(_ record: CheckRecord) {
        done += 1
        if !record.passed { failed += 1 }
    }
}

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
/// renditions (each URL downloaded whole, drawn by the decode workers, several
/// URLs at a time: `RenditionWorkers`), the manifest and the rewritten payloads.
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
        let decoder = Tool.decoder(options)
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

        let withFindings = targets.ordered.filter { !$0.findings.isEmpty }
        let progress = options.quiet || !Console.stderrIsTerminal ? nil : ProgressLine()
        defer { progress?.clear() }
        // One downloader per thread (a libcurl handle each); libmagic's handles and the probes are shared.
        let downloads: String
        let sniffers: SnifferPool
        do throws(ServiceExtensionError) {
            downloads = try MediaDownloader.checkedFolder(attachments)
        } catch {
            return Tool.report(LocalError(error.message))
        }
        do throws(SnifferError) {
            sniffers = try SnifferPool(size: ProcessFacts.processorCount, openingNow: false)
        } catch {
            return Tool.report(LocalError(error.message))
        }
        let probes = ForwardSecrecyProbes()
        let renditions = RenditionWorkers(count: options.jobs ?? Options.defaultJobs) {
            MediaFixer(
                downloads: MediaDownloader(
                    options: Tool.fetchOptions(from: options), outputDirectory: downloads, ownedPaths: .run, sniffers: sniffers,
                    probes: probes, decoder: decoder),
                decoder: decoder, folder: folder, maxSide: options.maxSide, targetBytes: options.targetBytes,
                timeoutSeconds: options.timeoutSeconds ?? 60, baseURL: options.baseURL)
        }
        progress?.update(fixed: 0, of: withFindings.count)
        let total = withFindings.count
        let outcomes = renditions.fix(withFindings) { done in progress?.update(fixed: done, of: total) }
        progress?.clear()
        var lines: [String] = []
        var replacements: [String: PayloadRewrite.Replacement] = [:]
        var androidStills: [String: String] = [:]
        var everyFindingCured = true
        var tally = FixTally()
        // Stopped: the manifest names what finished, and DIR holds exactly that (the partial files are gone).
        for (target, outcome) in zip(withFindings, outcomes) {
            guard let outcome else { continue }
            tally.add(outcome)
            lines.append(JSONWriter.string(outcome.json))
            if let notFixed = outcome.notFixed {
                everyFindingCured = false
                for finding in target.findings where finding.code == notFixed.code { Console.out(finding.line) }
            }
            if let rendition = outcome.rendition, let newURL = outcome.newURL {
                replacements[target.url] = PayloadRewrite.Replacement(newURL: newURL, type: rendition.type)
            }
            if let stillURL = outcome.androidStill?.newURL { androidStills[target.url] = stillURL }
        }
        do {
            try folder.finish(manifest: lines)
            if let signal = Signals.receivedSignal { return ExitCode.interrupted(by: signal) }
            if let rewrite = options.rewriteDirectory {
                tally.rewritten = try PayloadRewriter(
                    root: rewrite, operands: options.operands, rewrite: PayloadRewrite(replacements: replacements, androidStills: androidStills)).run()
            }
        } catch {
            return Tool.report(error)
        }
        if !options.quiet { Console.out(tally.closing(into: folder.path, baseURL: options.baseURL, rewrite: options.rewriteDirectory)) }
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

/// What `fix` did, for its closing lines: what was written and its size, what only the origin can
/// mend, how many payloads were rewritten, and what to upload where.
struct FixTally {
    private var files: [String: Int] = [:]
    private var cured = 0
    private var notFixed = 0
    /// Payloads (files, or lines of JSON Lines) `--rewrite` made name a new URL.
    var rewritten: Int?

    mutating func add(_ outcome: MediaFixer.Outcome) {
        let written = [outcome.rendition, outcome.androidStill?.rendition].compactMap { $0 }
        if !written.isEmpty { cured += 1 }
        for rendition in written { files[rendition.file] = rendition.bytes }
        if outcome.notFixed != nil && written.isEmpty { notFixed += 1 }
    }

    func closing(into folder: String, baseURL: String?, rewrite: String?) -> String {
        let bytes = files.values.reduce(0, +)
        var lines = ["fixed \(cured) URL\(cured == 1 ? "" : "s"): \(files.count) rendition\(files.count == 1 ? "" : "s") "
            + "(\(ByteText.human(bytes))) in \(folder), each named in \(folder)/\(FixFolder.manifestName)"]
        if notFixed > 0 {
            lines.append("not fixed: \(notFixed) URL\(notFixed == 1 ? "" : "s") only the origin can mend (a 404, a timeout, a cut file: "
                + "each line's notFixed says which)")
        }
        if let rewritten, let rewrite {
            lines.append("rewrote \(rewritten) payload\(rewritten == 1 ? "" : "s") in \(rewrite) to name the renditions")
        }
        guard !files.isEmpty else { return lines.joined(separator: "\n") }
        if let baseURL {
            lines.append("next: upload \(folder)/* (not \(FixFolder.manifestName)) to \(baseURL), then check the "
                + (rewrite.map { "rewritten payloads in \($0)" } ?? "payloads again"))
        } else {
            lines.append("next: upload \(folder)/* (not \(FixFolder.manifestName)) to your media host, and run fix again with "
                + "--base-url URL --rewrite DIR for payloads that name them")
        }
        return lines.joined(separator: "\n")
    }
}

import Glibc
import NottiMedia

/// `notti-media sniff FILE...`: the type decision for local files, no network.
struct SniffCommand {
    let options: Options

    func run() -> Int32 {
        let threads = max(1, ProcessFacts.processorCount)
        let sniffers: SnifferPool
        do throws(SnifferError) {
            sniffers = try SnifferPool(size: threads)
        } catch {
            Console.fail(error.message)
            return ExitCode.usage
        }
        if options.operands.filter({ $0 == "-" }).count > 1 {
            Console.fail("standard input (-) can be read only once")
            return ExitCode.usage
        }
        // `sniff -` (as `file -`): standard input is copied to a file of this run's, sniffed, removed.
        let scratch = Guarded<ScratchFolder?>(nil)
        defer { scratch.withLock { $0?.remove() } }
        var status = ExitCode.success
        let decoder = Tool.decoder(options)
        let sniffedFirst = startWorkers(decoder, sniffers: sniffers)
        let operands = options.operands
        let maxBytes = options.maxBytes ?? MediaPolicy.sdkMaxBytes
        // A file is sniffed and decoded on one core while the next is read on another; the lines come out in
        // the operands' order (scripts/bench sniff: 1,000 files in about 0.6 of the time one at a time took).
        InputOrderWork.run(count: operands.count, threads: threads) { index -> Outcome in
            let path = operands[index]
            // A regular file's size is its own; standard input's is known up to the read bound (SPEC 12).
            let file: (path: String, bytes: Int, cut: Bool)
            do throws(LocalError) {
                if path == "-" {
                    file = try scratch.withLock { (folder: inout ScratchFolder?) throws(LocalError) in
                        if folder == nil { folder = try ScratchFolder(environment: ProcessFacts.environment()) }
                        return try folder!.copyStandardInput()
                    }
                } else {
                    file = (path, try Self.regularFileSize(path), false)
                }
            } catch {
                return .unreadable(error.message)
            }
            // A file sniffed already, to start the workers, is not sniffed again.
            var report: SniffReport
            if let mime = sniffedFirst[index] {
                report = SniffReport(path: file.path, bytes: file.bytes, cut: file.cut, sniffedMime: mime, maxBytes: maxBytes, decoder: decoder)
            } else {
                do throws(SnifferError) {
                    report = try sniffers.withSniffer { sniffer throws(SnifferError) in
                        try SniffReport(path: file.path, bytes: file.bytes, cut: file.cut, sniffer: sniffer, maxBytes: maxBytes, decoder: decoder)
                    }
                } catch {
                    return .unreadable("cannot read \(path): \(error.message)")
                }
            }
            report.path = path
            return .report(report)
        } use: { _, outcome in
            // A signal, or a decode that found the machine unable to decode (SPEC 17: the run stops, exit 2), writes no more.
            if Signals.receivedSignal != nil || decoder.unusableReason != nil { return false }
            switch outcome {
            case .unreadable(let message):
                Console.fail(message)
                status = ExitCode.usage
            case .report(let report):
                let failed = !report.passed || (options.strict && !report.diagnostics.isEmpty)
                if failed && status == ExitCode.success { status = ExitCode.failed }
                switch options.format ?? .text {
                case .json: Console.out(JSONWriter.string(report.json))
                case .text, .junit, .github, .sarif, .codequality: Console.out(text(for: report))
                }
            }
            return true
        }
        if let signal = Signals.receivedSignal { return ExitCode.interrupted(by: signal) }
        return status
    }

    /// One operand's outcome: its report, or why it was not read (a usage error: exit 2).
    private enum Outcome: Sendable {
        case report(SniffReport)
        case unreadable(String)
    }

    private func text(for report: SniffReport) -> String {
        let limit = report.withinIOSLimit ? "within" : "over"
        var lines = [
            "\(textEscape(report.path)): \(textEscape(report.sniffedMime)) -> \(report.type.rawValue) (\(report.type.uti))"
                + "\(report.fallback ? ", fallback" : ""), \(report.size), \(limit) the iOS \(report.type.kind.rawValue) limit"
                + (report.decoded.map { ", decoded: \(textEscape(Self.describe($0)))" } ?? (options.noDecode ? ", not decoded (--no-decode)" : ""))
        ]
        lines += report.diagnostics.map { FindingLine.format($0, source: report.path) }
        return lines.joined(separator: "\n")
    }

    /// The decoder's facts in a few words: `jpeg 320x240, orientation 6`, `h264 (avc1) 160x120, 1 s`.
    private static func describe(_ decoded: DecodedMedia) -> String {
        let size = decoded.dimensions.map { " \($0.width)x\($0.height)" } ?? ""
        var words: String
        switch decoded.kind {
        case .picture:
            words = (decoded.format ?? "picture") + size
            if let frames = decoded.frames, frames > 1 { words += ", \(frames) frames" }
            if let orientation = decoded.orientation, orientation != 1 { words += ", orientation \(orientation)" }
        case .video:
            words = (decoded.videoCodec ?? "video") + (decoded.videoTag.map { " (\($0))" } ?? "") + size
        case .audio:
            words = decoded.audioCodec ?? "audio"
        }
        if decoded.kind != .picture, let seconds = decoded.durationSeconds { words += ", \(NumberText.decimal(seconds)) s" }
        if decoded.failed != nil {
            words += ", not decoded (decode_failed)"
        } else if decoded.undecodable != nil {
            words += ", undecodable"
        } else if decoded.complete == false {
            words += ", cut short"
        }
        return words
    }

    /// Starts the decode workers the first files will need (pictures, video and audio: one each), so
    /// that they load their libraries side by side while the first files are read, not one after the
    /// other when a list of pictures comes to its first video. The types of regular files among the
    /// first few are sniffed for this, lazily: only until every worker is started.
    /// - Returns: the types sniffed, by the operand's position: their reports use them.
    private func startWorkers(_ decoder: DecodeWorker, sniffers: SnifferPool) -> [Int: String] {
        var sniffed: [Int: String] = [:]
        decoder.prepare(forMimes: options.operands.prefix(64).enumerated().lazy.compactMap { index, path -> String? in
            guard path != "-", let bytes = try? Self.regularFileSize(path), bytes > 0,
                  let mime = try? sniffers.withSniffer({ sniffer throws(SnifferError) in try sniffer.mimeType(ofFileAt: path, size: bytes) })
            else { return nil }
            sniffed[index] = mime
            return mime
        })
        return sniffed
    }

    /// The size of a readable regular file.
    private static func regularFileSize(_ path: String) throws(LocalError) -> Int {
        var info = stat()
        guard stat(path, &info) == 0 else { throw LocalError(ReadFailure.message(path, errno)) }
        if info.st_mode & S_IFMT == S_IFDIR { throw LocalError(ReadFailure.folder(path)) }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw LocalError("cannot read \(path): not a regular file; sniff a file, or pipe the bytes in with sniff -")
        }
        guard access(path, R_OK) == 0 else { throw LocalError(ReadFailure.message(path, errno)) }
        return Int(info.st_size)
    }
}

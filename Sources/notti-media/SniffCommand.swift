import Glibc
import NottiMedia

/// `notti-media sniff FILE...`: the type decision for local files, no network.
struct SniffCommand {
    let options: Options

    func run() -> Int32 {
        let sniffer: Sniffer
        do {
            sniffer = try Sniffer()
        } catch {
            Console.fail(error.message)
            return ExitCode.usage
        }
        if options.operands.filter({ $0 == "-" }).count > 1 {
            Console.fail("standard input (-) can be read only once")
            return ExitCode.usage
        }
        // `sniff -` (as `file -`): standard input is copied to a file of this run's, sniffed, removed.
        var scratch: ScratchFolder?
        defer { scratch?.remove() }
        var status = ExitCode.success
        let decoder = Tool.decoder(options)
        let sniffedFirst = startWorkers(decoder, sniffer: sniffer)
        for (index, path) in options.operands.enumerated() {
            if let signal = Signals.receivedSignal { return ExitCode.interrupted(by: signal) }
            // A regular file's size is its own; standard input's is known up to the read bound (SPEC 12).
            let file: (path: String, bytes: Int, cut: Bool)
            do throws(LocalError) {
                if path == "-" {
                    if scratch == nil { scratch = try ScratchFolder(environment: ProcessFacts.environment()) }
                    guard let folder = scratch else { continue }
                    file = try folder.copyStandardInput()
                } else {
                    file = (path, try regularFileSize(path), false)
                }
            } catch {
                Console.fail(error.message)
                status = ExitCode.usage
                continue
            }
            var report: SniffReport
            do {
                let maxBytes = options.maxBytes ?? MediaPolicy.sdkMaxBytes
                // A file sniffed already, to start the workers, is not sniffed again.
                report = if let mime = sniffedFirst[index] {
                    SniffReport(path: file.path, bytes: file.bytes, cut: file.cut, sniffedMime: mime, maxBytes: maxBytes, decoder: decoder)
                } else {
                    try SniffReport(path: file.path, bytes: file.bytes, cut: file.cut, sniffer: sniffer, maxBytes: maxBytes, decoder: decoder)
                }
            } catch {
                Console.fail("cannot read \(path): \(error.message)")
                status = ExitCode.usage
                continue
            }
            report.path = path
            let failed = !report.passed || (options.strict && !report.diagnostics.isEmpty)
            if failed && status == ExitCode.success { status = ExitCode.failed }
            switch options.format ?? .text {
            case .json: Console.out(JSONWriter.string(report.json))
            case .text, .junit, .github, .sarif, .codequality: Console.out(text(for: report))
            }
        }
        return status
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
        if decoded.undecodable != nil { words += ", undecodable" } else if decoded.complete == false { words += ", cut short" }
        return words
    }

    /// Starts the decode workers the first files will need (pictures, video and audio: one each), so
    /// that they load their libraries side by side while the first files are read, not one after the
    /// other when a list of pictures comes to its first video. The types of regular files among the
    /// first few are sniffed for this, lazily: only until every worker is started.
    /// - Returns: the types sniffed, by the operand's position: their reports use them.
    private func startWorkers(_ decoder: DecodeWorker, sniffer: Sniffer) -> [Int: String] {
        var sniffed: [Int: String] = [:]
        decoder.prepare(forMimes: options.operands.prefix(64).enumerated().lazy.compactMap { index, path -> String? in
            guard path != "-", let bytes = try? regularFileSize(path), bytes > 0,
                  let mime = try? sniffer.mimeType(ofFileAt: path, size: bytes) else { return nil }
            sniffed[index] = mime
            return mime
        })
        return sniffed
    }

    /// The size of a readable regular file.
    private func regularFileSize(_ path: String) throws(LocalError) -> Int {
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

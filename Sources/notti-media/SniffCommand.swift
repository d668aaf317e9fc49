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
        var status = ExitCode.success
        for path in options.operands {
            if let signal = Signals.receivedSignal { return ExitCode.interrupted(by: signal) }
            guard let bytes = regularFileSize(path) else {
                Console.fail("cannot read \(path): \(access(path, F_OK) == 0 ? "not a readable file" : "no such file")")
                status = ExitCode.usage
                continue
            }
            let report: SniffReport
            do {
                report = try SniffReport(
                    path: path, bytes: bytes, sniffer: sniffer, maxBytes: options.maxBytes ?? MediaPolicy.sdkMaxBytes)
            } catch {
                Console.fail("cannot read \(path): \(error.message)")
                status = ExitCode.usage
                continue
            }
            let failed = !report.passed || (options.strict && !report.diagnostics.isEmpty)
            if failed && status == ExitCode.success { status = ExitCode.failed }
            guard !options.quiet else { continue }
            switch options.format ?? .text {
            case .json: Console.out(JSONWriter.string(report.json))
            case .text, .junit: Console.out(text(for: report))
            }
        }
        return status
    }

    private func text(for report: SniffReport) -> String {
        let limit = report.withinIOSLimit ? "within" : "over"
        var lines = [
            "\(textEscape(report.path)): \(textEscape(report.sniffedMime)) -> \(report.type.rawValue) (\(report.type.uti))"
                + "\(report.fallback ? ", fallback" : ""), \(report.bytes) bytes, \(limit) the iOS \(report.type.kind.rawValue) limit"
        ]
        lines += report.diagnostics.map { FindingLine.format($0, source: report.path) }
        return lines.joined(separator: "\n")
    }

    /// The size of a readable regular file, or nil.
    private func regularFileSize(_ path: String) -> Int? {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG, access(path, R_OK) == 0 else { return nil }
        return Int(info.st_size)
    }
}

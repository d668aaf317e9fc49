import Glibc
import NottiMedia

/// `notti-media process PAYLOAD|-`: one payload through the extension's path;
/// the delivered content (or `--report`) on stdout, findings on stderr.
struct ProcessCommand {
    let options: Options

    func run() -> Int32 {
        let path = options.operands[0]
        let source = path
        let environment = ProcessFacts.environment()
        let outputDirectory: String
        do {
            outputDirectory = try AttachmentFolder.resolve(out: options.outDirectory, environment: environment)
        } catch {
            Console.fail(error.message)
            return ExitCode.localFailure
        }
        let bytes: [UInt8]
        do {
            bytes = try PayloadInput.read(path, cancellation: Signals.cancellation)
        } catch .interrupted {
            return ExitCode.interrupted(by: Signals.receivedSignal ?? SIGINT)
        } catch {
            Console.fail(error.message)
            return ExitCode.usage
        }
        let payload: Payload
        do {
            payload = try Payload(json: bytes)
        } catch var error {
            // A file of several payloads (SPEC 2): check and fix take it, an input per element.
            if error.line == nil, PayloadInput.startsWithArray(bytes) {
                error.message = "a JSON array is several payloads: process takes one; check (or fix) reads an array as one input per element"
            }
            // Not delivered at all: the finding is printed even with --quiet.
            let report = Report.invalidPayload(source: source, sdk: options.reportedSDK, error: error)
            report.diagnostics.forEach { Console.err(FindingLine.format($0, in: report)) }
            if options.report { Console.out(JSONWriter.string(report.json, style: .pretty)) }
            return ExitCode.usage
        }
        let serviceExtension: ServiceExtension
        let decoder = Tool.decoder(options)
        do {
            serviceExtension = try ServiceExtension(
                options: Tool.fetchOptions(from: options), selection: options.sdk, outputDirectory: outputDirectory,
                ownedPaths: .run, cache: Tool.openCache(options), decoder: decoder)
        } catch {
            Console.fail(error.message)
            return ExitCode.localFailure
        }
        let handled: (isRequest: Bool, reports: [Report])?
        do {
            handled = try serviceExtension.handleDeliveries(
                payload, source: source, platforms: options.platforms, strict: options.strict, cancellation: Signals.cancellation)
        } catch {
            // FCM refuses the request: nothing is delivered to either platform.
            let report = Report.invalidPayload(source: source, sdk: options.reportedSDK, error: error)
            report.diagnostics.forEach { Console.err(FindingLine.format($0, in: report)) }
            if options.report { Console.out(JSONWriter.string(report.json, style: .pretty)) }
            return ExitCode.usage
        }
        guard let (isRequest, reports) = handled else {
            return ExitCode.interrupted(by: Signals.receivedSignal ?? SIGINT)
        }
        // A decode that found this machine unable to decode stopped the run (SPEC 17): Tool says why, exit 2; no content.
        guard decoder.unusableReason == nil else { return ExitCode.localFailure }
        guard !reports.isEmpty else {
            Console.fail("\(source) has no delivery for --platform \(options.platforms.rawValue): an APNs payload goes to iOS only "
                + "(an FCM send request, {\"message\": ...}, goes to both)")
            return ExitCode.usage
        }
        if !options.quiet {
            for report in reports { report.diagnostics.forEach { Console.err(FindingLine.format($0, in: report)) } }
        }
        func output(_ report: Report) -> JSONValue { options.report ? report.json : report.content ?? .null }
        if options.format == .text {
            reports.forEach { Console.out(Self.summaryLine($0)) }
        } else if isRequest {
            // One object keyed by platform, holding the platforms checked.
            Console.out(JSONWriter.string(.object(reports.map { JSONMember($0.platform.rawValue, output($0)) }), style: .pretty))
        } else {
            Console.out(JSONWriter.string(output(reports[0]), style: .pretty))
        }
        if let report = reports.first(where: { $0.reason == .writeError }),
           let failure = report.diagnostics.first(where: { $0.code == .writeError }) {
            // The content went out unchanged, as on a device, but this machine failed, not the media.
            Console.fail("\(failure.message) (attachments folder \(outputDirectory))")
            return ExitCode.localFailure
        }
        return ExitCode.success
    }

    /// `--format text`: what happened, in one line a person reads.
    static func summaryLine(_ report: Report) -> String {
        let verdict = (report.passed ? "passed" : "failed") + (report.sdkDetected ? " under \(report.sdk.rawValue)" : "")
        let source = textEscape(report.source)
        switch report.outcome {
        case .attached:
            guard let attachment = report.attachment else { return "\(source): \(verdict): attached" }
            let more = report.attachments.count > 1 ? " (+\(report.attachments.count - 1) more)" : ""
            return "\(source): \(verdict): attached \(attachment.fileExtension), \(attachment.size) bytes: \(textEscape(attachment.fileURL))\(more)"
        case .rejected:
            return "\(source): \(verdict): not delivered: APNs rejects the payload (payload_too_large)"
        case .unchanged, .invalidPayload:
            return "\(source): \(verdict): delivered without media (\((report.reason ?? .noMedia).rawValue))"
        }
    }
}

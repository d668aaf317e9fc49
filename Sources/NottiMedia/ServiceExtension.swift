import Foundation
import Synchronization

/// The Notification Service Extension's media path, headless: read the URL,
/// check it, download it under the policy, sniff it, decide its type, and hand
/// back the content with the attachment, or unchanged when anything fails.
///
/// One instance owns one libcurl handle and one libmagic handle: use it from
/// one thread at a time (one per worker).
public final class ServiceExtension {
    public let policy: MediaPolicy
    /// Absolute path of the folder attachments are stored in, by content hash.
    public let outputDirectory: String
    private let fetcher: MediaFetcher
    private let sniffer: Sniffer
    /// Where partial downloads are tracked until they are stored or removed.
    private let ownedPaths: OwnedPaths

    /// Partial downloads get unique names across threads of one process.
    private static let partialCounter = Atomic<Int>(0)

    /// - Parameters:
    ///   - policy: the limits and trust settings; `.sdk` is the device's.
    ///   - outputDirectory: where attachments go; created when missing.
    ///   - ownedPaths: the registry partial downloads are tracked in (the run's, by default).
    /// - Throws: `ServiceExtensionError` when the folder, libcurl or libmagic is unusable.
    public init(
        policy: MediaPolicy = .sdk, outputDirectory: String, ownedPaths: OwnedPaths = .run
    ) throws(ServiceExtensionError) {
        let absolute = URL(fileURLWithPath: outputDirectory).standardizedFileURL.path
        do {
            try FileManager.default.createDirectory(atPath: absolute, withIntermediateDirectories: true)
        } catch {
            throw ServiceExtensionError(message: "cannot create the output folder \(absolute): \(error.localizedDescription)")
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: absolute, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ServiceExtensionError(message: "the output path \(absolute) is not a folder")
        }
        guard access(absolute, W_OK) == 0 else {
            throw ServiceExtensionError(message: "the output folder \(absolute) is not writable")
        }
        do {
            self.sniffer = try Sniffer()
        } catch {
            throw ServiceExtensionError(message: error.message)
        }
        do {
            self.fetcher = try MediaFetcher(policy: policy, ownedPaths: ownedPaths)
        } catch {
            throw ServiceExtensionError(message: error.message)
        }
        self.policy = policy
        self.outputDirectory = absolute
        self.ownedPaths = ownedPaths
    }

    /// Runs the extension's path for one payload.
    /// - Returns: the report, or nil when `cancellation` stopped it (nothing is left on disk).
    public func handle(_ payload: Payload, source: String, cancellation: Cancellation? = nil) -> Report? {
        let verdict = MediaURL.check(payload.mediaURLValue)
        var media: MediaResult?
        if case .valid(let url) = verdict {
            guard let result = fetchMedia(url, cancellation: cancellation) else { return nil }
            media = result
        }
        return Self.report(for: payload, source: source, verdict: verdict, media: media, policy: policy)
    }

    /// Downloads, sniffs and stores one media URL under the policy.
    /// - Returns: the result, or nil when `cancellation` stopped it (nothing is left on disk).
    public func fetchMedia(_ url: MediaURL, cancellation: Cancellation? = nil) -> MediaResult? {
        var facts = MediaFacts(url: url.string, policy: policy)
        facts.urlExtension = url.pathExtension
        let download = fetcher.fetch(url, to: newPartialPath(), cancellation: cancellation)
        facts.finalURL = download.finalURL
        facts.redirects = download.redirects
        facts.httpStatus = download.httpStatus
        facts.declaredMime = download.declaredMime
        facts.elapsedMilliseconds = download.elapsedMilliseconds
        func failed(_ reason: Reason, _ message: String) -> MediaResult {
            MediaResult(facts: facts, attachment: nil, failure: .init(reason: reason, message: message), warnings: [])
        }
        let file: DownloadedFile
        switch download.outcome {
        case .interrupted: return nil
        case .failed(let reason, let message): return failed(reason, message)
        case .file(let downloaded): file = downloaded
        }
        if cancellation?.isCancelled == true {
            ownedPaths.remove(file.path)
            return nil
        }
        let sniffedMime: String
        do {
            sniffedMime = try sniffer.mimeType(ofFileAt: file.path, size: file.bytes)
        } catch {
            ownedPaths.remove(file.path)
            return failed(.writeError, "cannot read the downloaded file: \(error.message)")
        }
        let decision = TypeDecision(
            sniffedMime: sniffedMime, declaredMime: download.declaredMime, urlExtension: url.pathExtension)
        let storedPath = "\(outputDirectory)/\(file.sha256).\(decision.type.rawValue)"
        guard rename(file.path, storedPath) == 0 else {
            let why = Errno(errno).message
            ownedPaths.remove(file.path)
            return failed(.writeError, "cannot store the attachment at \(storedPath): \(why)")
        }
        // Stored: the file is the user's now, and no cleanup may touch it.
        ownedPaths.release(file.path)
        facts.decision = decision
        facts.bytes = file.bytes
        facts.sha256 = file.sha256
        let attachment = Attachment(
            fileURL: URL(fileURLWithPath: storedPath).absoluteString, filePath: storedPath, type: decision.type,
            mimeType: sniffedMime, size: file.bytes, sha256: file.sha256)
        let warnings = decision.diagnostics + [Lints.iOSLimitDiagnostic(type: decision.type, bytes: file.bytes)].compactMap { $0 }
        return MediaResult(facts: facts, attachment: attachment, failure: nil, warnings: warnings)
    }

    /// The report for a payload, given its URL verdict and, for a valid URL, the media result.
    public static func report(
        for payload: Payload, source: String, verdict: MediaURL.Verdict, media: MediaResult?, policy: MediaPolicy
    ) -> Report {
        // The content is built once, at the end, with the attachment if there is one.
        var report = Report(
            source: source, outcome: .unchanged, reason: nil, media: nil,
            diagnostics: Lints.payloadDiagnostics(for: payload), content: nil)
        if case .string(let text)? = payload.mediaURLValue {
            report.media = MediaFacts(url: text, policy: policy)
        }
        func unchanged(_ reason: Reason, _ message: String) -> Report {
            report.reason = reason
            if reason.isFailure { report.diagnostics.insert(.error(reason, message), at: 0) }
            report.content = NotificationContent.json(for: payload, attachment: nil)
            return report
        }
        switch verdict {
        case .absent: return unchanged(.noMedia, "the payload has no \(Payload.mediaURLKey)")
        case .invalid(let why): return unchanged(.invalidURL, why)
        case .notHTTPS(let scheme):
            return unchanged(.notHTTPS, "the URL scheme is \(scheme): the SDK only downloads https")
        case .valid: break
        }
        guard let media else { preconditionFailure("a valid URL needs its media result") }
        report.media = media.facts
        if let failure = media.failure { return unchanged(failure.reason, failure.message) }
        guard let attachment = media.attachment else { preconditionFailure("media without failure or attachment") }
        report.outcome = .attached
        report.diagnostics.append(contentsOf: media.warnings)
        report.attachment = attachment
        report.content = NotificationContent.json(for: payload, attachment: attachment)
        return report
    }

    private func newPartialPath() -> String {
        let sequence = Self.partialCounter.add(1, ordering: .relaxed).newValue
        return "\(outputDirectory)/.notti-media-\(getpid())-\(sequence).part"
    }
}

public struct ServiceExtensionError: Error, Sendable {
    public var message: String
}

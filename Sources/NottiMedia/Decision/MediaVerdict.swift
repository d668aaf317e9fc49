/// What one distinct media URL came to under one SDK's rules, for the campaign summary.
///
/// Immutable and shared: a download's verdict for one entry key is made once
/// (`DownloadMemo.judgement`) and every record naming the URL holds the same
/// one, so a campaign's record carries it, and the summary counts it, for one
/// reference count (as a struct of strings and lists it was copied field by
/// field three times a record).
package final class MediaVerdict: Sendable {
    package let url: String
    package let sdk: SDK
    /// The phone whose rules judged it (a send request's picture is judged for both).
    package let platform: Platform
    /// Why payloads naming it go out without it; nil when it attaches.
    package let reason: DiagnosticCode?
    package let message: String?
    /// The attachment's type (its file extension), when attached.
    package let type: String?
    package let bytes: Int?
    /// The downloaded content's hash, when a download finished: the summary groups URLs of the same content.
    package let sha256: String?
    package let httpStatus: Int?
    /// What attached media raises (type_mismatch, ...; an error of a file the phone cannot
    /// draw or play among them), typed: the summary decides by code and prints `codeText`.
    package let warnings: [Diagnostic]
    /// The host every phone requests it from; nil when no phone would (a bad URL).
    package let host: String?
    /// A CDN will not cache it (`not_cacheable`).
    package let notCacheable: Bool
    /// Per network of the summary, in its order: whether even the least download
    /// time is over the deadline (false when the size is unknown).
    package let misses: [Bool]
    /// False when the extension never runs (no mutable-content, no alert): the
    /// verdict is still given, but no phone downloads it at send time.
    package let requestedAtSendTime: Bool
    /// For `ats_violation`: the server iPhones refuse, and the rule it breaks.
    package let refusedConnection: RefusedConnection?
    /// A certificate of the download's connections that ends within 30 days (`certificate_expiring`).
    package let expiringCertificate: ExpiringCertificate?

    package struct RefusedConnection: Sendable, Equatable {
        package var host: String
        package var rule: String
    }

    /// The verdict of one entry of a report, when it named a URL string.
    init?(
        sdk: SDK, platform: Platform, facts: MediaFacts?, verdict: EntryVerdict, networks: [NetworkProfile], requestedAtSendTime: Bool
    ) {
        guard let facts, !facts.url.isEmpty else { return nil }
        url = facts.url
        self.sdk = sdk
        self.platform = platform
        self.requestedAtSendTime = requestedAtSendTime
        host = facts.host
        notCacheable = facts.http?.notCacheableBecause != nil
        let deadline = Int((facts.policy.timeoutSeconds * 1000).rounded(.up))
        misses = networks.map { network in facts.estimate(on: network).map { $0 > deadline } ?? false }
        bytes = facts.bytes
        sha256 = facts.sha256
        expiringCertificate = facts.transfer?.expiringCertificate
        httpStatus = facts.httpStatus
        var refused: RefusedConnection?
        switch verdict {
        case .attached(let attachment, _, _, let found):
            type = Self.typeName(attachment.fileExtension)
            warnings = found
            reason = nil
            message = nil
        case .failed(_, _, let reason, let message):
            self.reason = reason
            self.message = message
            type = nil
            warnings = []
            if reason == .atsViolation, let broken = facts.transfer?.connectionViolation(under: facts.policy) {
                refused = RefusedConnection(host: broken.host, rule: broken.violation.rule.rawValue)
            }
        case .bundleResource(_, let message):
            reason = .bundleResource
            self.message = message
            type = nil
            warnings = []
        }
        refusedConnection = refused
    }

    /// One entry of a summary's `media` list, read back (`merge`): what the JSON says, no host or network facts.
    init?(json: JSONValue) {
        guard case .string(let url)? = json["url"], case .string(let verdict)? = json["verdict"] else { return nil }
        self.url = url
        sdk = json["sdk"]?.stringValue.flatMap(SDK.init(rawValue:)) ?? .notti
        platform = json["platform"]?.stringValue.flatMap(Platform.init(rawValue:)) ?? .ios
        reason = verdict == "attached" ? nil : DiagnosticCode(rawValue: verdict)
        message = json["message"]?.stringValue
        type = json["type"]?.stringValue
        bytes = json["bytes"]?.intValue
        sha256 = json["sha256"]?.stringValue
        httpStatus = json["httpStatus"]?.intValue
        // Codes only (another version's, unknown here, keep their text): no message is written there.
        if case .array(let codes)? = json["warnings"] {
            warnings = codes.compactMap { $0.stringValue.map { Diagnostic(.warning, code: $0, "") } }
        } else {
            warnings = []
        }
        host = nil
        notCacheable = false
        misses = []
        requestedAtSendTime = true
        refusedConnection = nil
        expiringCertificate = nil
    }

    /// One name per type for the summary, whatever the SDK called the file
    /// (`jpeg`, `JPG` and `jpg` are all jpg; `aif` is aiff, `mpg` mpeg).
    static func typeName(_ fileExtension: String) -> String {
        // Notti's five types, named as they are: no lowercasing and hashing per record of a campaign.
        switch fileExtension {
        case "jpg", "png", "gif", "mp4", "mp3": return fileExtension
        default: break
        }
        guard let recognised = RecognisedType(fileExtension: fileExtension) else { return fileExtension.lowercased() }
        return recognised == .jpeg ? "jpg" : recognised.rawValue
    }

    /// What the summary counts by: the URL under one SDK's rules.
    package var key: String {
        platform == .android ? "\(url) (\(sdk.rawValue) android)" : sdk == .notti ? url : "\(url) (\(sdk.rawValue))"
    }

    /// The profile that judged it, as people read it: `braze`, `fcm android`.
    package var profileName: String { platform == .android ? "\(sdk.rawValue) android" : sdk.rawValue }

    /// 2 for a failure, 1 for warnings (or a bundle file), 0 for clean: the summary lists the worst first.
    package var severityRank: Int {
        if let reason { return reason.isFailure ? 2 : 1 }
        if attachedError != nil { return 2 }
        return warnings.isEmpty ? 0 : 1
    }

    /// An error of an attachment the phone cannot draw or play (SPEC 17): attached, and failing.
    package var attachedError: String? {
        warnings.first { $0.code.failsAnAttachment }?.codeText
    }

    package var json: JSONValue {
        .object([
            JSONMember("url", .string(url)),
            JSONMember("sdk", .string(sdk.rawValue)),
            JSONMember("platform", .string(platform.rawValue)),
            JSONMember("verdict", .string(reason?.rawValue ?? "attached")),
            JSONMember("message", .optional(message)),
            JSONMember("type", .optional(type)),
            JSONMember("bytes", .optional(bytes)),
            JSONMember("sha256", .optional(sha256)),
            JSONMember("httpStatus", .optional(httpStatus)),
            JSONMember("warnings", .array(warnings.map { .string($0.codeText) })),
        ])
    }
}

/// Notti's own rule (SPEC 1, 4, 7): the type its extension sniffs (one of five, else
/// jpg with a warning), what the device would pick without sniffing, and iOS's
/// limit for the type's kind. It depends on the download alone.
enum NottiRule {
    struct Verdict: Sendable {
        let decision: TypeDecision
        /// `facts` with Notti's decision and the sniffed type filled in.
        let facts: MediaFacts
        /// The attachment Notti's rule makes (fixed identifier, no options), when iOS takes it.
        let attachment: Attachment
        let warnings: [Diagnostic]
        /// iOS's refusal of a file this large for the type's kind, if it refuses.
        let refusal: String?
    }

    static func verdict(facts: MediaFacts, folder: String, sniffedMime: String) -> Verdict {
        let decision = TypeDecision(sniffedMime: sniffedMime, declaredMime: facts.declaredMime, urlExtension: facts.urlExtension)
        var nottiFacts = facts
        nottiFacts.decision = decision
        nottiFacts.sniffedMime = sniffedMime
        var warnings = decision.diagnostics
        var refusal: String?
        switch IOSLimit(decision.type.kind).judge(bytes: facts.bytes ?? 0) {
        case .within: break
        case .mayRefuse(let warning): warnings.append(warning)
        case .refuses(let message): refusal = message
        }
        let type = decision.type
        let path = MediaDownload.attachmentPath(folder: folder, sha256: facts.sha256 ?? "", fileExtension: type.rawValue)
        return Verdict(
            decision: decision, facts: nottiFacts,
            attachment: Attachment(
                identifier: Attachment.identifier, fileURL: FilePaths.fileURL(path), filePath: path, fileExtension: type.rawValue,
                uti: type.uti, kind: type.kind, mimeType: sniffedMime, size: facts.bytes ?? 0, sha256: facts.sha256 ?? "",
                typeHint: nil, options: nil),
            warnings: warnings, refusal: refusal)
    }
}

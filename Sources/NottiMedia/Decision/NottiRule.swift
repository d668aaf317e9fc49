/// Notti's own rule (SPEC 1, 4, 7): the type its extension sniffs (one of five, else
/// jpg with a warning), what the device would pick without sniffing, and iOS's
/// limit for the type's kind. It depends on the download alone.
enum NottiRule {
    static func verdict(_ download: MediaDownload, identifier: String) -> EntryVerdict {
        let facts = download.facts
        let decision = TypeDecision(sniffedMime: download.sniffedMime, declaredMime: facts.declaredMime, urlExtension: facts.urlExtension)
        var warnings = decision.diagnostics
        switch IOSLimit(decision.type.kind).judge(bytes: facts.bytes ?? 0) {
        case .within: break
        case .mayRefuse(let warning): warnings.append(warning)
        case .refuses(let message): return .failed(facts: facts, typing: .sniffed(decision), .tooLarge, message)
        }
        let type = decision.type
        let path = download.attachmentPath(fileExtension: type.rawValue)
        let attachment = Attachment(
            identifier: identifier, fileURL: FilePaths.fileURL(path), filePath: path, fileExtension: type.rawValue,
            uti: type.uti, kind: type.kind, mimeType: download.sniffedMime, size: facts.bytes ?? 0, sha256: facts.sha256 ?? "",
            typeHint: nil, options: nil)
        return .attached(attachment, facts: facts, typing: .sniffed(decision), warnings: warnings)
    }
}

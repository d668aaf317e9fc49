extension TypeRule {
    /// An SDK names the file or hints its type (this rule); iOS recognises it or refuses
    /// it, and refuses anything over its limit for the type's kind (`IOSLimit`).
    func verdict(_ entry: MediaEntry, url: MediaURL, download: MediaDownload, profile: SDKProfile) -> EntryVerdict {
        let facts = download.facts
        let decision = decide(TypeInputs(
            entryType: entry.typeField, url: url.string, finalURL: facts.finalURL ?? url.string, contentType: facts.declaredMime,
            contentDisposition: download.contentDisposition, leadingBytes: download.leadingBytes))
        let bytes = facts.bytes ?? 0
        guard let recognised = decision.recognised, let fileExtension = decision.storedExtension else {
            let named = decision.fileExtension.map { "names the file .\($0)" } ?? "gives the file no extension"
            let hint = decision.hint == nil ? "and no type hint" : "and a type hint"
            return .failed(
                facts: facts, typing: .named(decision), .unsupportedType,
                "\(profile.sdk.displayName) \(named) \(hint) iOS recognises (from \(decision.source)): iOS refuses the attachment; "
                    + "the bytes are \(download.sniffedMime); \(fix)")
        }
        var warnings: [Diagnostic] = []
        switch IOSLimit(recognised.kind).judge(bytes: bytes) {
        case .within: break
        case .mayRefuse(let warning): warnings.append(warning)
        case .refuses(let message): return .failed(facts: facts, typing: .named(decision), .tooLarge, message)
        }
        if !recognised.agrees(withSniffedMime: download.sniffedMime) {
            warnings.append(Diagnostic(
                .warning, .typeMismatch,
                "the bytes are \(download.sniffedMime) but \(decision.source) makes it \(recognised.rawValue) (\(recognised.uti)): "
                    + "iOS may refuse or misrender it; serve a \(recognised.rawValue) file there, or fix \(decision.source)"))
        }
        let path = download.attachmentPath(fileExtension: fileExtension)
        let attachment = Attachment(
            identifier: profile.identifier.name(for: entry, decision: decision), fileURL: FilePaths.fileURL(path),
            filePath: path, fileExtension: fileExtension, uti: recognised.uti, kind: recognised.kind,
            mimeType: download.sniffedMime, size: bytes, sha256: facts.sha256 ?? "", typeHint: decision.hint, options: nil)
        return .attached(attachment, facts: facts, typing: .named(decision), warnings: warnings)
    }
}

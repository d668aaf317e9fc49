import Glibc

extension SDKProfile {
    /// What becomes of one entry once its download is in: the type decision
    /// (Notti's sniffing, or the SDK's rule under the device model), iOS's limits,
    /// and the attachment as the SDK would hand it to iOS.
    func judge(
        _ planned: PayloadPlan.PlannedEntry, results: MediaResults, policy: MediaPolicy, network: NetworkProfile?
    ) -> EntryVerdict {
        let entry = planned.entry
        // Made only for a step that failed before any download: a fetched entry has the download's facts.
        func valueFacts() -> MediaFacts? { entry.value.stringValue.map { MediaFacts(url: $0, policy: policy) } }
        switch planned.step {
        case .failed(let reason, let message):
            return .failed(facts: valueFacts(), reason, message)
        case .bundleResource(let message):
            return .bundleResource(facts: valueFacts() ?? MediaFacts(url: "", policy: policy), message)
        case .fetch(let url):
            switch results[url.string]?.judged(under: policy) {
            case nil:
                preconditionFailure("every URL a plan fetches has a result before its report")
            case .failed(let facts, let reason, let message)?:
                return .failed(facts: facts, reason, message)
            case .fetched(let media)?:
                let verdict = typeRule.map { judge(entry, url, media, rule: $0) } ?? judgeAsNotti(entry, media)
                // What attaches here may still miss on a phone: the send-time risks.
                guard case .attached(let attachment, let facts, let warnings) = verdict else { return verdict }
                let risks = RiskWarnings.diagnostics(for: facts, network: network)
                return risks.isEmpty ? verdict : .attached(attachment, facts: facts, warnings: warnings + risks)
            }
        }
    }

    /// Notti sniffs: one of its five types, or jpg with a warning; iOS's limits are warnings.
    private func judgeAsNotti(_ entry: MediaEntry, _ media: FetchedMedia) -> EntryVerdict {
        // The download's own attachment, shared by every payload that names the URL;
        // copied (copy-on-write) only where this entry gives it another name or options.
        var attachment = media.nottiAttachment
        let identifier = identifier(for: entry, decision: nil)
        if attachment.identifier != identifier { attachment.identifier = identifier }
        if let options = entry.options { attachment.options = options }
        return .attached(attachment, facts: media.nottiFacts, warnings: media.nottiWarnings)
    }

    /// Another SDK names the file or hints its type; iOS recognises it or refuses
    /// it, and refuses anything over its limit for the type's kind.
    private func judge(_ entry: MediaEntry, _ url: MediaURL, _ media: FetchedMedia, rule: TypeRule) -> EntryVerdict {
        var facts = media.facts
        let decision = rule.decide(TypeInputs(
            entryType: entry.typeField, url: url.string, finalURL: facts.finalURL ?? url.string, contentType: facts.declaredMime,
            contentDisposition: media.contentDisposition, leadingBytes: media.leadingBytes))
        facts.deviceType = decision
        facts.sniffedMime = media.sniffedMime
        let bytes = facts.bytes ?? 0
        guard let recognised = decision.recognised, let fileExtension = decision.storedExtension else {
            let named = decision.fileExtension.map { "names the file .\($0)" } ?? "gives the file no extension"
            let hint = decision.hint == nil ? "and no type hint" : "and a type hint"
            return .failed(
                facts: facts, .unsupportedType,
                "\(sdk.displayName) \(named) \(hint) iOS recognises (from \(decision.source)): iOS refuses the attachment; "
                    + "the bytes are \(media.sniffedMime); \(rule.fix)")
        }
        let limit = recognised.kind.iOSLimitBytes
        if bytes > limit {
            return .failed(
                facts: facts, .tooLarge,
                "\(bytes) bytes is over iOS's \(limit)-byte limit for \(recognised.kind.rawValue) attachments: iOS refuses the attachment; "
                    + (recognised.kind == .image ? "resize or recompress it" : "shorten it or lower its bit rate"))
        }
        let path: String
        do {
            path = try Self.place(media.storedPath, as: fileExtension, sha256: facts.sha256 ?? "")
        } catch {
            return .failed(facts: facts, .writeError, "cannot store the attachment: \(error.message); \(Reason.writeError.fix)")
        }
        var warnings: [Diagnostic] = []
        if !recognised.agrees(withSniffedMime: media.sniffedMime) {
            warnings.append(Diagnostic(
                .warning, "type_mismatch",
                "the bytes are \(media.sniffedMime) but \(decision.source) makes it \(recognised.rawValue) (\(recognised.uti)): "
                    + "iOS may refuse or misrender it; serve a \(recognised.rawValue) file there, or fix \(decision.source)"))
        }
        let attachment = Attachment(
            identifier: identifier(for: entry, decision: decision), fileURL: FilePaths.fileURL(path),
            filePath: path, fileExtension: fileExtension, uti: recognised.uti, kind: recognised.kind,
            mimeType: media.sniffedMime, size: bytes, sha256: facts.sha256 ?? "", typeHint: decision.hint, options: entry.options)
        return .attached(attachment, facts: facts, warnings: warnings)
    }

    private func identifier(for entry: MediaEntry, decision: DeviceTypeDecision?) -> String {
        switch identifier {
        case .fixed(let name): name
        case .entry: entry.identifier ?? ""
        case .suggestedFilename: decision?.suggestedName ?? ""
        }
    }

    /// The stored file under the name the SDK gives it, `<sha256>.<ext>`, beside
    /// the first name: a hard link (a copy where links cannot be made). Content-
    /// addressed, so a file already there holds the same bytes.
    static func place(_ stored: String, as fileExtension: String, sha256: String) throws(Errno) -> String {
        let target = "\(FilePaths.parent(stored))/\(sha256).\(fileExtension)"
        if target == stored || link(stored, target) == 0 || errno == EEXIST { return target }
        do throws(Errno) {
            try FilePaths.copyFile(from: stored, to: target)
        } catch {
            if access(target, F_OK) == 0 { return target }
            throw Errno(EIO)
        }
        return target
    }
}

extension SDKProfile {
    /// What becomes of one entry once its download is in: the type decision
    /// (Notti's sniffing, or the SDK's rule under the device model), iOS's limits,
    /// and the attachment as the SDK would hand it to iOS. Pure: it names the
    /// attachment's file (`<sha256>.<ext>`) but makes nothing; placing is the
    /// step after the report (`AttachmentPlacement`).
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
            case .fetched(let download)?:
                var verdict = platform == .android ? judgeAsAndroid(download)
                    : typeRule.map { rule in
                        // What a type rule decides depends on the download and on these of the entry alone:
                        // made once per download (a campaign of send requests judges one download a million
                        // times, and naming the file from the URL was two thirds of each record's work).
                        entry.options != nil ? judge(entry, url, download, rule: rule)
                            : download.judged(as: TypeRuleKey(sdk: sdk, typeField: entry.typeField, identifier: entry.identifier)) {
                                judge(entry, url, download, rule: rule)
                            }
                    } ?? judgeAsNotti(entry, download)
                // What the phone's decoder makes of the bytes (SPEC 17).
                if let decoded = download.facts.decoded { verdict = DecoderRules(decoded: decoded).judge(verdict, platform: platform, sdk: sdk) }
                // What attaches here may still miss on a phone: the send-time risks.
                guard case .attached(let attachment, let facts, let warnings) = verdict else { return verdict }
                let risks = RiskWarnings.diagnostics(for: facts, network: network)
                return risks.isEmpty ? verdict : .attached(attachment, facts: facts, warnings: warnings + risks)
            }
        }
    }

    /// Notti sniffs: one of its five types, or jpg with a warning; iOS refuses
    /// what is over its limit for that type's kind.
    private func judgeAsNotti(_ entry: MediaEntry, _ download: MediaDownload) -> EntryVerdict {
        let notti = download.notti
        if let refusal = notti.refusal { return .failed(facts: notti.facts, .tooLarge, refusal) }
        // The download's own attachment, shared by every payload that names the URL;
        // copied (copy-on-write) only where this entry gives it another name or options.
        var attachment = notti.attachment
        let identifier = identifier(for: entry, decision: nil)
        if attachment.identifier != identifier { attachment.identifier = identifier }
        if let options = entry.options { attachment.options = options }
        return .attached(attachment, facts: notti.facts, warnings: notti.warnings)
    }

    /// Another SDK names the file or hints its type; iOS recognises it or refuses
    /// it, and refuses anything over its limit for the type's kind.
    private func judge(_ entry: MediaEntry, _ url: MediaURL, _ download: MediaDownload, rule: TypeRule) -> EntryVerdict {
        var facts = download.facts
        let decision = rule.decide(TypeInputs(
            entryType: entry.typeField, url: url.string, finalURL: facts.finalURL ?? url.string, contentType: facts.declaredMime,
            contentDisposition: download.contentDisposition, leadingBytes: download.leadingBytes))
        facts.deviceType = decision
        facts.sniffedMime = download.sniffedMime
        let bytes = facts.bytes ?? 0
        guard let recognised = decision.recognised, let fileExtension = decision.storedExtension else {
            let named = decision.fileExtension.map { "names the file .\($0)" } ?? "gives the file no extension"
            let hint = decision.hint == nil ? "and no type hint" : "and a type hint"
            return .failed(
                facts: facts, .unsupportedType,
                "\(sdk.displayName) \(named) \(hint) iOS recognises (from \(decision.source)): iOS refuses the attachment; "
                    + "the bytes are \(download.sniffedMime); \(rule.fix)")
        }
        var warnings: [Diagnostic] = []
        switch IOSLimit(recognised.kind).judge(bytes: bytes) {
        case .within: break
        case .mayRefuse(let warning): warnings.append(warning)
        case .refuses(let message): return .failed(facts: facts, .tooLarge, message)
        }
        if !recognised.agrees(withSniffedMime: download.sniffedMime) {
            warnings.append(Diagnostic(
                .warning, .typeMismatch,
                "the bytes are \(download.sniffedMime) but \(decision.source) makes it \(recognised.rawValue) (\(recognised.uti)): "
                    + "iOS may refuse or misrender it; serve a \(recognised.rawValue) file there, or fix \(decision.source)"))
        }
        let path = MediaDownload.attachmentPath(folder: download.folder, sha256: facts.sha256 ?? "", fileExtension: fileExtension)
        let attachment = Attachment(
            identifier: identifier(for: entry, decision: decision), fileURL: FilePaths.fileURL(path),
            filePath: path, fileExtension: fileExtension, uti: recognised.uti, kind: recognised.kind,
            mimeType: download.sniffedMime, size: bytes, sha256: facts.sha256 ?? "", typeHint: decision.hint, options: entry.options)
        return .attached(attachment, facts: facts, warnings: warnings)
    }

    /// Android: BitmapFactory decides, on the download alone (`MediaDownload.android`, made
    /// once per download: judged per record it was 2% of a campaign of requests).
    private func judgeAsAndroid(_ download: MediaDownload) -> EntryVerdict {
        download.android
    }

    private func identifier(for entry: MediaEntry, decision: DeviceTypeDecision?) -> String {
        switch identifier {
        case .fixed(let name): name
        case .entry: entry.identifier ?? ""
        case .suggestedFilename: decision?.suggestedName ?? ""
        }
    }
}

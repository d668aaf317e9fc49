extension SDKProfile {
    /// What becomes of one entry once its download is in, the same way on every
    /// platform: the profile's rule (`MediaRule`: Notti's sniffing, an SDK's type
    /// rule under iOS's device model, or Android's BitmapFactory), then what the
    /// phone's decoder makes of the bytes (`DecoderRules`), then the send-time risks.
    /// Pure: it names the attachment's file (`<sha256>.<ext>`) but makes nothing;
    /// placing is the step after the report (`AttachmentPlacement`).
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
            case .fetched(let download, let memo)?:
                // Made once per download and entry key, whatever number of records ask.
                let key = MediaRule.Key(sdk: sdk, platform: platform, typeField: entry.typeField, identifier: entry.identifier)
                var verdict = memo.verdict(for: key) { rule.verdict(entry, url: url, download: download, profile: self) }
                if let options = entry.options, case .attached(var attachment, let facts, let warnings) = verdict {
                    // Copied (copy-on-write) only for an entry with options of its own.
                    attachment.options = options
                    verdict = .attached(attachment, facts: facts, warnings: warnings)
                }
                // What the phone's decoder makes of the bytes (SPEC 17).
                if let decoded = download.facts.decoded { verdict = DecoderRules(decoded: decoded).judge(verdict, platform: platform, sdk: sdk) }
                // What attaches here may still miss on a phone: the send-time risks.
                guard case .attached(let attachment, let facts, let warnings) = verdict else { return verdict }
                let risks = RiskWarnings.diagnostics(for: facts, network: network)
                return risks.isEmpty ? verdict : .attached(attachment, facts: facts, warnings: warnings + risks)
            }
        }
    }
}

/// The judge of one entry (a profile's type lives in Profiles/; what becomes of its
/// entries is judged here).
package enum EntryJudge {
    /// What becomes of one entry once its download is in, the same way on every
    /// platform: the profile's rule (`MediaRule`: Notti's sniffing, an SDK's type
    /// rule under iOS's device model, or Android's BitmapFactory), then what the
    /// phone's decoder makes of the bytes (`DecoderRules`), then the send-time risks.
    /// Pure: it names the attachment's file (`<sha256>.<ext>`) but makes nothing;
    /// placing is the step after the report (`AttachmentPlacement`).
    ///
    /// With the verdict comes the entry's line in the run's summary (`MediaVerdict`),
    /// made from it. An entry without options of its own that fetched a URL is judged once
    /// per result (downloaded or failed) and entry key, its line made once too
    /// (`DownloadMemo.judgement`): every record of a campaign naming the URL holds the same one.
    static func judge(
        _ planned: borrowing PayloadPlan.PlannedEntry, profile: SDKProfile, results: MediaResults, policy: MediaPolicy,
        network: NetworkProfile?, requestedAtSendTime: Bool
    ) -> JudgedEntry {
        let (sdk, platform) = (profile.sdk, profile.platform)
        let alone = profile.failurePolicy == .single
        func judged(_ verdict: EntryVerdict) -> JudgedEntry {
            JudgedEntry(
                verdict: verdict,
                summary: MediaVerdict(
                    sdk: sdk, platform: platform, facts: verdict.facts, verdict: verdict, networks: NetworkProfile.summarized(adding: network),
                    requestedAtSendTime: requestedAtSendTime),
                entry: alone ? nil : (planned.entry.identifier ?? "", planned.entry.key), policy: policy)
        }
        // The URL's result as the record's own policy has it, for an entry that fetched one (judged once here).
        let result: MediaResult? = if case .fetch(let url) = planned.step {
            results[url.string]?.judged(under: policy)
        } else {
            nil
        }
        if planned.entry.options == nil, let memo = result?.memo {
            // The two fields read in place: a copy of the whole entry (its value's tree) cost more than the key.
            let key = DownloadMemo.JudgementKey(
                rule: MediaRule.Key(sdk: sdk, platform: platform, typeField: planned.entry.typeField, identifier: planned.entry.identifier),
                requestedAtSendTime: requestedAtSendTime, network: network?.name ?? "", entryKey: alone ? "" : planned.entry.key)
            return memo.judgement(for: key) { judged(verdict(planned, profile: profile, result: result, policy: policy, network: network)) }
        }
        return judged(verdict(planned, profile: profile, result: result, policy: policy, network: network))
    }

    /// The verdict `judge` gives, made afresh; `result` is the fetched URL's under `policy`.
    private static func verdict(
        _ planned: borrowing PayloadPlan.PlannedEntry, profile: SDKProfile, result: MediaResult?, policy: MediaPolicy,
        network: NetworkProfile?
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
            switch result {
            case nil:
                preconditionFailure("every URL a plan fetches has a result before its report")
            case .failed(let facts, let reason, let message, _)?:
                return .failed(facts: facts, reason, message)
            case .fetched(let download, let memo)?:
                // Made once per download and entry key, whatever number of records ask.
                let key = MediaRule.Key(sdk: profile.sdk, platform: profile.platform, typeField: entry.typeField, identifier: entry.identifier)
                var verdict = memo.verdict(for: key) { profile.rule.verdict(entry, url: url, download: download, profile: profile) }
                if let options = entry.options, case .attached(var attachment, let facts, let typing, let warnings) = verdict {
                    // Copied (copy-on-write) only for an entry with options of its own.
                    attachment.options = options
                    verdict = .attached(attachment, facts: facts, typing: typing, warnings: warnings)
                }
                // What the phone's decoder makes of the bytes (SPEC 17).
                if let decoded = download.facts.decoded { verdict = DecoderRules(decoded: decoded).judge(verdict, profile: profile) }
                // What attaches here may still miss on a phone: the send-time risks.
                guard case .attached(let attachment, let facts, let typing, let warnings) = verdict else { return verdict }
                let risks = RiskWarnings.diagnostics(for: facts, network: network)
                return risks.isEmpty ? verdict : .attached(attachment, facts: facts, typing: typing, warnings: warnings + risks)
            }
        }
    }
}

/// One entry judged (`EntryJudge.judge`): the verdict, and the entry's line in the run's
/// summary (nil when its value was never a URL string). Shared by every record whose
/// entry is judged the same way.
package final class JudgedEntry: Sendable {
    package let verdict: EntryVerdict
    package let summary: MediaVerdict?
    /// Its report's part (`JudgedEntries`), made here once rather than for every record: a single-attachment
    /// profile's one entry with its findings unnamed and its facts the report's media; another profile's entry
    /// with its facts and findings named (`att.hero`). Made per record, naming the facts copied them (copy on
    /// write) for every OneSignal record: 4% of a campaign of its requests.
    let part: JudgedEntries

    /// - Parameter entry: the entry's identifier and key for a several-attachment profile's; nil for a single-attachment one's.
    init(verdict: EntryVerdict, summary: MediaVerdict?, entry: (identifier: String, key: String)?, policy: MediaPolicy) {
        self.verdict = verdict
        self.summary = summary
        guard let entry else {
            part = JudgedEntries(onlyEntry: verdict, summary: summary)
            return
        }
        var part = JudgedEntries()
        part.add(verdict, summary: summary, entry: entry.key)
        part.media = .entries([MediaOutput(
            facts: verdict.facts ?? MediaFacts(url: "", policy: policy), typing: verdict.typing, identifier: entry.identifier,
            entryKey: entry.key)])
        self.part = part
    }
}

/// What this run made of one download (or one failed fetch), each thing once however
/// many records name its URL: the rules' verdicts (`EntryJudge.judge`), the result under
/// each stricter policy (`MediaResult.judged(under:)`), and the attachment names
/// placed (`AttachmentPlacement`; none for a failure). The download itself stays a plain
/// value; this is the run's bookkeeping beside it, in `MediaResult.fetched` and `.failed`.
///
/// Each memo buys the campaign of send requests its speed: one download judged a
/// million times, where remaking a verdict per record was two thirds of each
/// iOS record's work (naming the file from the URL) and a stricter policy's
/// result per record 30% of the run.
package final class DownloadMemo: Sendable {
    /// Verdicts by rule and entry key: a few at most (one per profile and type field naming the URL).
    private let verdicts = Guarded<[(key: MediaRule.Key, value: EntryVerdict)]>([])
    /// Whole judgements (`EntryJudge.judge`: the verdict after the decoder's and the
    /// send-time rules, and the summary's line) by entry key, for entries without options.
    private let judgements = Guarded<[(key: JudgementKey, value: JudgedEntry)]>([])
    /// Results under other policies: one per profile of another limit.
    private let underPolicies = Guarded<[(key: MediaPolicy, value: MediaResult)]>([])
    /// The extensions this download's bytes were placed under: shared with the
    /// results judged under other policies, which are the same bytes.
    let placed: PlacedNames

    package init(placed: PlacedNames = PlacedNames()) {
        self.placed = placed
    }

    /// A memo for the same bytes under other facts (another policy's result): its own verdicts, the same placements.
    func forSameBytes() -> DownloadMemo { DownloadMemo(placed: placed) }

    func verdict(for key: MediaRule.Key, _ make: () -> EntryVerdict) -> EntryVerdict {
        // Bounded against a payload that varies type fields or identifiers per record.
        verdicts.value(for: key, bound: 16, make)
    }

    /// What a whole judgement depends on besides the download: the rule's key, whether
    /// phones request the media at send time, and the network the risks are judged on.
    struct JudgementKey: Equatable {
        var rule: MediaRule.Key
        var requestedAtSendTime: Bool
        /// The network's name (`--network`), empty for none: a run judges under one.
        var network: String
        /// The entry's key (`att.hero`) for a several-attachment profile, whose judgement names it; empty otherwise.
        var entryKey: String
    }

    func judgement(for key: JudgementKey, _ make: () -> JudgedEntry) -> JudgedEntry {
        // Bounded as `verdicts` is.
        judgements.value(for: key, bound: 32, make)
    }

    func result(under policy: MediaPolicy, _ make: () -> MediaResult) -> MediaResult {
        underPolicies.value(for: policy, make)
    }
}

/// One delivery finished once the downloads its plan fetches are in, in three steps
/// that each live in one place: judged (`PayloadJudgement`, Decision/: pure), its
/// report assembled (Report/), its attachments placed (Placement/: the only step that
/// makes files). `ServiceExtension` (one payload) and `CheckPipeline` (a stream) both
/// finish their deliveries here, after `MediaDownloader` brought the facts.
enum DeliveryCheck {
    /// The report of `plan`'s delivery, every attachment it lists on disk. A file that
    /// cannot be made turns its download into a `write_error` and the delivery is judged
    /// again (judging is pure), so no record names a missing file.
    static func report(
        _ plan: PayloadPlan, source: String, results: MediaResults, strict: Bool, placement: AttachmentPlacement
    ) -> Report {
        var results = results
        while true {
            let report = Report(plan, judgement: PayloadJudgement(plan, results: results), source: source, strict: strict)
            guard let failure = placement.place(report.attachments, from: results) else { return report }
            results[failure.url] = .failed(failure.facts, .writeError, failure.message)
        }
    }
}

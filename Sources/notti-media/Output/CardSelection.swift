import NottiMedia

/// Which pushes get a card on the preview page, so a campaign of any size
/// gives a page a browser opens at once (SPEC 11: the 1,000,000-line campaign
/// under 10 MB, rendered in under 5 s): every push of a small campaign; past
/// that, every failed push up to a bound and one push per distinct media
/// verdict up to a bound; the rest are counted and the page says so.
/// Decided on the writer thread, in input order, so the same input gives the same page.
struct CardSelection {
    /// Pushes that get a card whatever they are (all of a campaign this small).
    static let everyPushUpTo = 1_000
    /// Further cards for failed pushes, past that.
    static let failedBound = 1_000
    /// Further cards for the first push of each distinct media verdict, past that.
    static let verdictBound = 500

    /// `--errors-only`: cards for failed pushes only.
    let errorsOnly: Bool
    private(set) var shown = 0
    private(set) var leftOutPassed = 0
    private(set) var leftOutFailed = 0
    private var failedShown = 0
    private var verdictsShown = 0
    private var verdicts: Set<String> = []

    init(errorsOnly: Bool) { self.errorsOnly = errorsOnly }

    /// True when `record` gets a card.
    mutating func keeps(_ record: CheckRecord) -> Bool {
        let kept = decide(record)
        if kept {
            shown += 1
        } else if record.passed {
            leftOutPassed += 1
        } else {
            leftOutFailed += 1
        }
        return kept
    }

    private mutating func decide(_ record: CheckRecord) -> Bool {
        if errorsOnly && record.passed { return false }
        // A verdict not seen before is remembered whether or not its card is the one kept.
        let newVerdict = verdicts.count < Self.verdictBound * 4 && verdicts.insert(Self.verdictKey(record)).inserted
        if shown < Self.everyPushUpTo { return true }
        if !record.passed && failedShown < Self.failedBound {
            failedShown += 1
            return true
        }
        if newVerdict && verdictsShown < Self.verdictBound {
            verdictsShown += 1
            return true
        }
        return false
    }

    /// What the phone does with the push's media: each URL's verdict, or none.
    private static func verdictKey(_ record: CheckRecord) -> String {
        guard !record.media.isEmpty else { return record.passed ? "no media" : "no media, failed" }
        return record.media.map { "\($0.url) \($0.sdk.rawValue) \($0.reason?.rawValue ?? "attached")" }.joined(separator: "\n")
    }

    var leftOut: Int { leftOutPassed + leftOutFailed }

    /// What the page left out and how to see it, for the header; nil when every push it was asked for has its card.
    var note: String? {
        if errorsOnly {
            // The passed pushes were asked away, not left out: the note is about failed ones past the bound.
            guard leftOutFailed > 0 else { return nil }
            return "This page shows \(shown) cards: the failed pushes (--errors-only), up to \(Self.everyPushUpTo + Self.failedBound) "
                + "and the first of each distinct media verdict. Left out, and counted above: \(leftOutFailed) failed pushes. "
                + "To see them, write the page for a part of the input (--shard I/N, or a smaller file); the JSON output "
                + "(--format json) has every push."
        }
        guard leftOut > 0 else { return nil }
        var kinds: [String] = []
        if leftOutFailed > 0 { kinds.append("\(leftOutFailed) failed") }
        if leftOutPassed > 0 { kinds.append("\(leftOutPassed) passed") }
        let kept = "the first \(Self.everyPushUpTo) pushes, then every failed push up to \(Self.failedBound) more "
            + "and the first push of each distinct media verdict up to \(Self.verdictBound) more"
        return "This page shows \(shown) cards: \(kept). Left out, and counted above: \(kinds.joined(separator: " and ")) "
            + "pushes. To see them, write the page with --errors-only (failed pushes only), or for a part of the input "
            + "(--shard I/N, or a smaller file); the JSON output (--format json) has every push."
    }
}

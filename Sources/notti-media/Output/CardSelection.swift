import NottiMedia

/// Which pushes get a card on the preview page, and in which part of it, so a
/// campaign of any size gives a page a browser opens at once (SPEC 11: the
/// 1,000,000-line campaign under 10 MB, rendered in under 5 s) and no failure
/// is hidden behind a pass: every failed push comes first (up to the page's
/// bound), then passing pushes (the first ones, and the first of each distinct
/// media verdict) while the page has room. The bound leaves out passing cards
/// first: which of them fit is known only at the end (`passingKept`).
/// Decided on the writer thread, in input order, so the same input gives the same page.
struct CardSelection {
    /// The most cards a page holds.
    static let cardBound = 2_500
    /// Passing pushes that are candidates whatever they are (every push of a campaign this small).
    static let everyPassingUpTo = 1_000
    /// Further passing candidates: the first push of each distinct media verdict, up to this many.
    static let verdictBound = 500

    /// Where a record's card goes.
    enum Part {
        /// The failed pushes, first on the page: kept.
        case failing
        /// The passing pushes after them: kept while the page has room (`passingKept`).
        case passing
        /// No card: counted in the header.
        case none
    }

    /// `--errors-only`: cards for failed pushes only.
    let errorsOnly: Bool
    private(set) var failingShown = 0
    /// The cards of each passing input written, in input order; the first `passingKept` are shown.
    private var passingCandidates: [Int] = []
    private var leftOutPassedAlready = 0
    private(set) var leftOutFailed = 0
    private var verdictsShown = 0
    private var verdicts: Set<String> = []

    init(errorsOnly: Bool) { self.errorsOnly = errorsOnly }

    /// Where the cards of `record` and its companions (a request's other platforms, drawn side by
    /// side) go, if anywhere: with the failed pushes when any of them failed.
    mutating func place(_ record: CheckRecord) -> Part {
        let cards = 1 + record.companions.count
        if !record.passed || record.companions.contains(where: { !$0.passed }) {
            guard failingShown < Self.cardBound else {
                leftOutFailed += cards
                return .none
            }
            failingShown += cards
            return .failing
        }
        // Passed pushes asked away by --errors-only are not "left out".
        if errorsOnly { return .none }
        // A verdict not seen before is remembered whether or not its card is the one kept.
        let newVerdict = verdicts.count < Self.verdictBound * 4 && verdicts.insert(Self.verdictKey(record)).inserted
        if passingCandidates.count < Self.everyPassingUpTo || (newVerdict && verdictsShown < Self.verdictBound) {
            if passingCandidates.count >= Self.everyPassingUpTo { verdictsShown += 1 }
            passingCandidates.append(cards)
            return .passing
        }
        leftOutPassedAlready += cards
        return .none
    }

    /// How many passing inputs the page shows: the first candidates, as many as the failed ones leave room for.
    var passingKept: Int {
        var room = max(0, Self.cardBound - failingShown)
        return passingCandidates.prefix { cards in
            defer { room -= cards }
            return cards <= room
        }.count
    }

    private var passingCardsKept: Int { passingCandidates.prefix(passingKept).reduce(0, +) }
    var shown: Int { failingShown + passingCardsKept }
    var leftOutPassed: Int { leftOutPassedAlready + passingCandidates.reduce(0, +) - passingCardsKept }
    var leftOut: Int { leftOutPassed + leftOutFailed }

    /// What the phone does with the push's media: each URL's verdict, or none.
    private static func verdictKey(_ record: CheckRecord) -> String {
        let media = ([record] + record.companions).flatMap(\.media)
        guard !media.isEmpty else { return "no media" }
        return media.map { "\($0.url) \($0.sdk.rawValue) \($0.platform.rawValue) \($0.reason?.rawValue ?? "attached")" }.joined(separator: "\n")
    }

    /// What the page left out and how to see it, for the header; nil when every push it was asked for has its card.
    var note: String? {
        if errorsOnly {
            // The passed pushes were asked away, not left out: the note is about failed ones past the bound.
            guard leftOutFailed > 0 else { return nil }
            return "This page shows \(shown) cards: the first \(Self.cardBound) failed pushes (--errors-only). Left out, and "
                + "counted above: \(leftOutFailed) failed pushes. To see them, write the page for a part of the input "
                + "(--shard I/N, or a smaller file); the JSON output (--format json) has every push."
        }
        guard leftOut > 0 else { return nil }
        var kinds: [String] = []
        if leftOutFailed > 0 { kinds.append("\(leftOutFailed) failed") }
        if leftOutPassed > 0 { kinds.append("\(leftOutPassed) passed") }
        let kept = "every failed push first (up to \(Self.cardBound)), then, while the page has room for \(Self.cardBound) "
            + "cards, the first \(Self.everyPassingUpTo) passed pushes and the first passed push of each distinct media "
            + "verdict (up to \(Self.verdictBound) more)"
        return "This page shows \(shown) cards: \(kept). Left out, and counted above: \(kinds.joined(separator: " and ")) "
            + "pushes. To see them, write the page with --errors-only (failed pushes only), or for a part of the input "
            + "(--shard I/N, or a smaller file); the JSON output (--format json) has every push."
    }
}

import NottiMedia

/// What `fix` learns from its check: every distinct media URL, in input order,
/// with each record that names it (its platform, profile and byte cap) and the
/// findings about it. Fed on the pipeline's writer thread, read after it ends. What each finding is
/// about, and so whether a new file cures it, is `DiagnosticCode.subject`'s: fix keeps no list of its own.
final class FixTargets: @unchecked Sendable {
    /// One record that names a URL: what a rendition must pass.
    struct Need: Equatable {
        var platform: Platform
        var sdk: SDK
        /// The record's limits: its profile's cap and deadline, and how it connects.
        var policy: MediaPolicy
        /// The most bytes the record's profile takes.
        var maxBytes: Int { policy.maxBytes }
    }

    final class Target {
        let url: String
        private(set) var needs: [Need] = []
        /// The findings about the URL, each code once (the first record's), in the order first seen.
        private(set) var findings: [(code: DiagnosticCode, diagnostic: Diagnostic, line: String)] = []
        /// The check's facts about it (the first record's).
        let facts: MediaFacts

        init(url: String, facts: MediaFacts) {
            self.url = url
            self.facts = facts
        }

        func add(_ need: Need) {
            if !needs.contains(need) { needs.append(need) }
        }

        func add(_ diagnostic: Diagnostic, line: String) {
            guard !findings.contains(where: { $0.code == diagnostic.code }) else { return }
            findings.append((diagnostic.code, diagnostic, line))
        }
    }

    private(set) var ordered: [Target] = []
    private var byURL: [String: Target] = [:]
    /// The payload findings' lines, in input order.
    private(set) var payloadLines: [String] = []
    /// The attachment files the check placed (in the run's scratch folder), to remove.
    private(set) var attachmentPaths: Set<String> = []

    func add(_ report: Report) {
        attachmentPaths.formUnion(report.attachments.map(\.filePath))
        let media = report.media.outputs.filter { !$0.facts.url.isEmpty }
        for output in media {
            let facts = output.facts
            let target = byURL[facts.url] ?? {
                let made = Target(url: facts.url, facts: facts)
                byURL[facts.url] = made
                ordered.append(made)
                return made
            }()
            target.add(Need(platform: report.platform, sdk: report.sdk, policy: facts.policy))
        }
        for diagnostic in report.diagnostics {
            let line = FindingLine.format(diagnostic, in: report)
            // The payload's and the app's (SPEC 22) findings: printed; no rendition mends either.
            if diagnostic.code.subject == .payload || diagnostic.code.subject == .app {
                payloadLines.append(line)
                continue
            }
            guard diagnostic.code.subject != .platform, !media.isEmpty else { continue }
            // The entry it names, when the payload has several; else its one URL. A finding of several
            // entries that names none is every entry's: no rendition is made past it.
            let named = media.count == 1 ? media : media.filter { $0.entryKey != nil && $0.entryKey == diagnostic.entry }
            for output in named.isEmpty ? media : named { byURL[output.facts.url]?.add(diagnostic, line: line) }
        }
    }
}

import NottiMedia

/// What `fix` learns from its check: every distinct media URL, in input order,
/// with each record that names it (its platform, profile and byte cap) and the
/// findings about it. Fed on the pipeline's writer thread, read after it ends.
final class FixTargets: @unchecked Sendable {
    /// One record that names a URL: what a rendition must pass.
    struct Need: Hashable {
        var platform: Platform
        var sdk: SDK
        /// The most bytes the record's profile takes.
        var maxBytes: Int
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

    /// Findings about the payload, not its media: printed, never cured (SPEC 19). `DiagnosticCode`'s own
    /// classification (`isAboutPayload`), and `no_media`, which names no media at all.
    static func isAboutPayload(_ code: DiagnosticCode) -> Bool { code.isAboutPayload || code == .noMedia }
    /// Android's `animation_lost` is what a still picture is, not a finding to cure.
    static let ignoredCodes: Set<DiagnosticCode> = [.animationLost]
    /// What a new file cures: a picture's size, format, orientation, pixel count or download time; a
    /// video's sample entry (`hev1`) or codec; a sound's size.
    static let cures: Set<DiagnosticCode> = [
        .tooLarge, .exceedsIOSLimit, .unsupportedType, .typeMismatch, .orientationIgnored, .largeBitmap, .slowNetwork,
        .needsAndroidVersion, .unplayableVideo, .videoCodecSupport,
    ]

    /// Findings about the server rather than the file: they never stop a cure, and no file cures them (SPEC 19).
    /// `DiagnosticCode.isAboutHost`, and `not_cacheable`, the server's cache headers (said per record, but no
    /// file mends them).
    static func isAboutHost(_ code: DiagnosticCode) -> Bool { code.isAboutHost || code == .notCacheable }

    private(set) var ordered: [Target] = []
    private var byURL: [String: Target] = [:]
    /// The payload findings' lines, in input order.
    private(set) var payloadLines: [String] = []
    /// The attachment files the check placed (in the run's scratch folder), to remove.
    private(set) var attachmentPaths: Set<String> = []

    func add(_ report: Report) {
        attachmentPaths.formUnion(report.attachments.map(\.filePath))
        let media = report.media.all.filter { !$0.url.isEmpty }
        for facts in media {
            let target = byURL[facts.url] ?? {
                let made = Target(url: facts.url, facts: facts)
                byURL[facts.url] = made
                ordered.append(made)
                return made
            }()
            target.add(Need(platform: report.platform, sdk: report.sdk, maxBytes: facts.policy.maxBytes))
        }
        for diagnostic in report.diagnostics {
            let line = FindingLine.format(diagnostic, in: report)
            if Self.isAboutPayload(diagnostic.code) {
                payloadLines.append(line)
                continue
            }
            guard !Self.ignoredCodes.contains(diagnostic.code), !media.isEmpty else { continue }
            // The entry it names, when the payload has several; else its one URL. A finding of several
            // entries that names none is every entry's: no rendition is made past it.
            let named = media.count == 1 ? media : media.filter { $0.entryKey != nil && $0.entryKey == diagnostic.entry }
            for facts in named.isEmpty ? media : named { byURL[facts.url]?.add(diagnostic, line: line) }
        }
    }
}

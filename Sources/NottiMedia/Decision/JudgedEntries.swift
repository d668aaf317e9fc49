/// What judging a payload's entries came to: its report's attachments, findings and media.
package struct JudgedEntries: Sendable {
    var attachments: [Attachment] = []
    var errors: [Diagnostic] = []
    var warnings: [Diagnostic] = []
    var firstFailure: DiagnosticCode?
    var media: Report.Media = .none
    var verdicts: [MediaVerdict] = []

    init() {}

    /// The part of its report of a single-attachment profile's one entry (`single`): its findings
    /// unnamed, its facts the report's media. Made once with the judgement (`JudgedEntry.part`),
    /// since most payloads of a campaign are this and the same for every record naming the URL.
    init(onlyEntry verdict: EntryVerdict, summary: MediaVerdict?) {
        if let facts = verdict.facts { media = .single(MediaOutput(facts: facts, typing: verdict.typing)) }
        add(verdict, summary: summary, entry: nil)
    }

    /// Joins the next entry's part: its attachments, findings and summary lines after these; its media facts
    /// too when `media` (a several-attachment profile's report lists every entry's).
    mutating func append(_ part: JudgedEntries, media: Bool) {
        attachments += part.attachments
        errors += part.errors
        warnings += part.warnings
        firstFailure = firstFailure ?? part.firstFailure
        verdicts += part.verdicts
        if media, case .entries(let mine) = self.media, case .entries(let theirs) = part.media { self.media = .entries(mine + theirs) }
    }

    /// Adds one entry's judgement; `entry` names it in its findings (a payload of several), nil for one alone.
    mutating func add(_ verdict: EntryVerdict, summary: MediaVerdict?, entry: String?) {
        if let summary { verdicts.append(summary) }
        func named(_ finding: Diagnostic) -> Diagnostic { entry.map { finding.naming(entry: $0) } ?? finding }
        switch verdict {
        case .attached(let attachment, _, _, let found):
            attachments.append(attachment)
            // An attachment the phone cannot draw or play (SPEC 17) is attached and still an error.
            for finding in found {
                if finding.severity == .error { errors.append(named(finding)) } else { warnings.append(named(finding)) }
            }
        case .failed(_, _, let reason, let message):
            errors.append(named(.error(reason, message)))
            firstFailure = firstFailure ?? reason
        case .bundleResource(_, let message):
            warnings.append(named(Diagnostic(.warning, .bundleResource, message)))
        }
        // Whatever this phone made of the media, a certificate about to end fails every phone later.
        if let expiring = verdict.facts?.expiringCertificate {
            warnings.append(named(Diagnostic(.warning, .certificateExpiring,
                "the certificate of \(expiring.host) expires on \(CertificateFacts.date(expiring.notAfter)) (notAfter "
                    + "\(CertificateFacts.timestamp(expiring.notAfter))), within 30 days: a campaign sent after that fails on "
                    + "every phone; \(DiagnosticCode.certificateExpiring.fix)")))
        }
    }
}

/// What the extension hands iOS: the outcome, why, the attachments and the content overrides.
struct FailurePolicyDelivery {
    var outcome: Report.Outcome
    var reason: DiagnosticCode?
    var attachments: [Attachment] = []
    var overrides: ContentOverrides?

    static func unchanged(_ reason: DiagnosticCode, overrides: ContentOverrides? = nil) -> FailurePolicyDelivery {
        FailurePolicyDelivery(outcome: .unchanged, reason: reason, overrides: overrides)
    }
}

// In an extension, so the memberwise initializer stays the compiler's.
extension FailurePolicyDelivery {
    /// How an SDK's failed entries combine, once every entry is judged: one
    /// attachment fails the payload (`single`), each entry fails alone (`perEntry`,
    /// OneSignal), or one failure drops every attachment and the overrides
    /// (`allOrNothing`, Airship).
    init(
        _ policy: SDKProfile.FailurePolicy, attachments: [Attachment], firstFailure: DiagnosticCode?,
        overrides: ContentOverrides?
    ) {
        if let firstFailure, policy != .perEntry {
            self = .unchanged(firstFailure)
        } else if !attachments.isEmpty {
            self.init(outcome: .attached, reason: nil, attachments: attachments, overrides: overrides)
        } else {
            // A bundle file alone fetches nothing: `no_media`, its warning beside it (SPEC 20, round five).
            self = .unchanged(firstFailure ?? .noMedia)
        }
    }
}

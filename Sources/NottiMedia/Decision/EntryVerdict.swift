/// What became of one media entry of one payload under its SDK's rules.
package enum EntryVerdict: Sendable {
    /// Attached, with the warnings its type decision raised.
    case attached(Attachment, facts: MediaFacts, warnings: [Diagnostic])
    /// Not attached: why (facts are nil when the value was never a URL string).
    case failed(facts: MediaFacts?, DiagnosticCode, String)
    /// A file in the app bundle (OneSignal): nothing to fetch, nothing to judge here.
    case bundleResource(facts: MediaFacts, String)

    package var facts: MediaFacts? {
        switch self {
        case .attached(_, let facts, _): facts
        case .failed(let facts, _, _): facts
        case .bundleResource(let facts, _): facts
        }
    }

    package var attachment: Attachment? {
        if case .attached(let attachment, _, _) = self { return attachment }
        return nil
    }
}

/// What became of one media entry of one payload under its SDK's rules. The download's facts
/// are carried as they were made; what the rule made of the type is the verdict's own (`typing`).
package enum EntryVerdict: Sendable {
    /// Attached, with the rule's type decision and the warnings it raised.
    case attached(Attachment, facts: MediaFacts, typing: MediaTyping?, warnings: [Diagnostic])
    /// Not attached: why (facts are nil when the value was never a URL string; typing is nil unless
    /// the rule decided a type before refusing).
    case failed(facts: MediaFacts?, typing: MediaTyping?, DiagnosticCode, String)
    /// A file in the app bundle (OneSignal): nothing to fetch, nothing to judge here.
    case bundleResource(facts: MediaFacts, String)

    /// Not attached, before or without any type decision.
    static func failed(facts: MediaFacts?, _ reason: DiagnosticCode, _ message: String) -> EntryVerdict {
        .failed(facts: facts, typing: nil, reason, message)
    }

    package var facts: MediaFacts? {
        switch self {
        case .attached(_, let facts, _, _): facts
        case .failed(let facts, _, _, _): facts
        case .bundleResource(let facts, _): facts
        }
    }

    /// What the rule made of the type, if it decided one.
    package var typing: MediaTyping? {
        switch self {
        case .attached(_, _, let typing, _), .failed(_, let typing, _, _): typing
        case .bundleResource: nil
        }
    }

    package var attachment: Attachment? {
        if case .attached(let attachment, _, _, _) = self { return attachment }
        return nil
    }
}

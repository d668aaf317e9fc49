/// What fetching one media URL under one policy came to: downloaded, sniffed
/// and stored, or why not. One result serves every payload (and every entry)
/// that names the same URL under the same policy.
public enum MediaResult: Sendable {
    case fetched(FetchedMedia)
    /// No file: the facts known so far, the reason and the human detail.
    case failed(MediaFacts, Reason, String)

    public var facts: MediaFacts {
        switch self {
        case .fetched(let media): media.facts
        case .failed(let facts, _, _): facts
        }
    }
}

/// A downloaded file, stored by content hash, and what the response said about it.
public struct FetchedMedia: Sendable {
    /// The transfer's facts: final URL, redirects, status, Content-Type, bytes, hash, time.
    public var facts: MediaFacts
    /// Where the file is: `<sha256>.<type>` in the attachment folder, the type
    /// being Notti's (sniffed, jpg for anything else).
    public var storedPath: String
    /// What libmagic says the bytes are.
    public var sniffedMime: String
    /// The file's first bytes, for magic-number tables.
    public var leadingBytes: [UInt8]
    /// The final response's Content-Disposition header, as sent.
    public var contentDisposition: String?
}

/// What became of one media entry of one payload under its SDK's rules.
public enum EntryVerdict: Sendable {
    /// Attached, with the warnings its type decision raised.
    case attached(Attachment, facts: MediaFacts, warnings: [Diagnostic])
    /// Not attached: why (facts are nil when the value was never a URL string).
    case failed(facts: MediaFacts?, Reason, String)
    /// A file in the app bundle (OneSignal): nothing to fetch, nothing to judge here.
    case bundleResource(facts: MediaFacts, String)

    public var facts: MediaFacts? {
        switch self {
        case .attached(_, let facts, _): facts
        case .failed(let facts, _, _): facts
        case .bundleResource(let facts, _): facts
        }
    }

    public var attachment: Attachment? {
        if case .attached(let attachment, _, _) = self { return attachment }
        return nil
    }
}

/// What fetching one media URL under one policy came to: downloaded and
/// sniffed, or why not. One result serves every payload (and every entry)
/// that names the same URL under the same policy.
package enum MediaResult: Sendable {
    case fetched(MediaDownload)
    /// No file: the facts known so far, the reason and the human detail.
    case failed(MediaFacts, DiagnosticCode, String)

    package var facts: MediaFacts {
        switch self {
        case .fetched(let media): media.facts
        case .failed(let facts, _, _): facts
        }
    }
}

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

extension MediaResult {
    /// This result as `policy` would have had it, when the download ran under a
    /// looser one (`--sdk auto` fetches each URL once, under the loosest policy
    /// of the profiles in play, and judges it under each payload's own): a
    /// stricter deadline or cap, or no http, turns it into that failure.
    package func judged(under policy: MediaPolicy) -> MediaResult {
        // The common case, one profile for the run: nothing to judge again, nothing to copy.
        switch self {
        case .fetched(let media) where media.facts.policy == policy: return self
        case .failed(let facts, _, _) where facts.policy == policy: return self
        // A download judged under another policy: once per policy, kept with the download
        // (every record of a campaign of send requests asks; remade each time it was 30% of the run).
        case .fetched(let media): return media.judged(under: policy) { rejudged(under: policy) }
        default: break
        }
        return rejudged(under: policy)
    }

    private func rejudged(under policy: MediaPolicy) -> MediaResult {
        var facts = self.facts
        facts.policy = policy
        func failed(_ reason: DiagnosticCode, _ message: String) -> MediaResult {
            // As a download stopped by this policy would report it: no file.
            facts.bytes = nil
            facts.sha256 = nil
            return .failed(facts, reason, message)
        }
        switch self {
        case .failed(_, let reason, let message):
            switch reason {
            case .timeout: return .failed(facts, reason, MediaFetcher.timeoutMessage(policy))
            case .tooLarge: return .failed(facts, reason, MediaFetcher.tooLargeMessage(policy, announced: facts.tooLargeAnnounced))
            case .insecureRedirect:
                return .failed(facts, reason, facts.refusedHop.map { MediaFetcher.insecureRedirectMessage(policy, $0) } ?? message)
            default: return .failed(facts, reason, message)
            }
        case .fetched(let media):
            if !policy.allowHTTP, let hop = facts.httpHop {
                return failed(.insecureRedirect, MediaFetcher.insecureRedirectMessage(policy, hop))
            }
            if let elapsed = facts.elapsedMilliseconds, Double(elapsed) > policy.timeoutSeconds * 1000 {
                return failed(.timeout, MediaFetcher.timeoutMessage(policy))
            }
            if let connect = policy.connectTimeoutSeconds, let timings = facts.timings,
               Double(timings.dnsMs + timings.connectMs) > connect * 1000 {
                return failed(.timeout, "the connection took longer than \(NumberText.decimal(connect)) s; \(DiagnosticCode.timeout.fix)")
            }
            if let redirects = facts.redirects, redirects > policy.maxRedirects {
                return failed(.tooManyRedirects, "more than \(policy.maxRedirects) redirects; \(DiagnosticCode.tooManyRedirects.fix)")
            }
            if let announced = facts.announcedBytes, announced > policy.maxBytes {
                facts.tooLargeAnnounced = true
                return failed(.tooLarge, MediaFetcher.tooLargeMessage(policy, announced: true))
            }
            if let bytes = facts.bytes, bytes > policy.maxBytes {
                return failed(.tooLarge, MediaFetcher.tooLargeMessage(policy, announced: false))
            }
            return .fetched(media.with(facts: facts))
        }
    }
}

extension MediaPolicy {
    /// The loosest of `policies`: the longest deadline, the largest cap, http if
    /// any allows it. One download under it can be judged under each of them.
    package static func loosest(of policies: [MediaPolicy]) -> MediaPolicy {
        guard var loosest = policies.first else { return MediaPolicy() }
        for policy in policies.dropFirst() where policy != loosest {
            loosest.maxBytes = max(loosest.maxBytes, policy.maxBytes)
            loosest.timeoutSeconds = max(loosest.timeoutSeconds, policy.timeoutSeconds)
            loosest.maxRedirects = max(loosest.maxRedirects, policy.maxRedirects)
            loosest.allowHTTP = loosest.allowHTTP || policy.allowHTTP
            loosest.httpRefusedByATS = loosest.httpRefusedByATS || policy.httpRefusedByATS
            loosest.capDescription = nil
        }
        return loosest
    }
}

extension SDKSelection {
    /// The policy a run downloads under: the chosen profile's, or under `auto`
    /// the loosest of every profile's, so each URL is fetched once whichever
    /// profiles its payloads turn out to use.
    package func fetchPolicy(_ options: FetchOptions) -> MediaPolicy {
        switch self {
        case .fixed(let sdk): sdk.profile.policy(options)
        case .auto: .loosest(of: SDK.allCases.map { $0.profile.policy(options) })
        }
    }
}

/// The download result of each URL a payload's plan fetches. A payload names
/// one URL or a few: a short list searched by text (mostly the plan's own
/// strings, equal at a glance), where a dictionary hashed every URL twice a payload.
package struct MediaResults: Sendable, Sequence, ExpressibleByDictionaryLiteral {
    private var entries: [(url: String, result: MediaResult)] = []

    package init() {}

    package init(dictionaryLiteral elements: (String, MediaResult)...) {
        for (url, result) in elements { self[url] = result }
    }

    package subscript(url: String) -> MediaResult? {
        get { entries.first { $0.url == url }?.result }
        set {
            let index = entries.firstIndex { $0.url == url }
            switch (index, newValue) {
            case (let index?, let result?): entries[index].result = result
            case (let index?, nil): entries.remove(at: index)
            case (nil, let result?): entries.append((url, result))
            case (nil, nil): break
            }
        }
    }

    /// How many URLs have a result.
    package var count: Int { entries.count }

    package func makeIterator() -> IndexingIterator<[(url: String, result: MediaResult)]> { entries.makeIterator() }
}

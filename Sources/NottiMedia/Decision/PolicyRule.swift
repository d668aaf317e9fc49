/// The per-record policy rules: what a record makes of a download that ran under
/// another (looser) policy, judged from the download's facts alone. One URL is
/// downloaded once per run under the loosest policy of the records that name it
/// (Transfer/MediaPolicy.swift: the policy math); each record's own deadline, cap,
/// connect limit, redirect count, cleartext rule and iOS's connection rules are
/// applied here, from when each thing happened on the wire, without a second
/// download.

extension MediaResult {
    /// This result as `policy` would have had it, when the download ran under a
    /// looser one: a stricter deadline, cap, connect limit, redirect count or
    /// http rule turns it into that failure, decided from when each thing happened.
    package func judged(under policy: MediaPolicy) -> MediaResult {
        switch self {
        // The common case, one profile for the URL: nothing to judge again, nothing to copy.
        case .fetched(let media, _) where media.facts.policy == policy: return self
        case .failed(let facts, _, _, _) where facts.policy == policy: return self
        // A result judged under another policy: once per policy, kept with the result (every
        // record of a campaign of send requests asks; remade each time it was 30% of the run,
        // and a failure's, 404 included, 15% of a failing record's work).
        default: return memo.result(under: policy) { rejudged(under: policy) }
        }
    }

    private func rejudged(under policy: MediaPolicy) -> MediaResult {
        var facts = self.facts
        facts.policy = policy
        guard var transfer = facts.transfer else {
            // Failed before any request (the working file could not be made): the same result, with a
            // memo of its own: `self`'s memo keeps what this returns, and would keep itself (a leak).
            switch self {
            case .fetched(let media, let memo): return .fetched(media, memo.forSameBytes())
            case .failed(let facts, let reason, let message, _): return .failed(facts, reason, message)
            }
        }
        let deadline = Int((policy.timeoutSeconds * 1000).rounded(.up))
        func failed(_ reason: DiagnosticCode, _ message: String, at milliseconds: Int? = nil) -> MediaResult {
            // As a download stopped by this policy would report it: no file, stopped when it stopped.
            if let milliseconds { transfer.elapsedMilliseconds = min(transfer.elapsedMilliseconds, milliseconds) }
            facts.transfer = transfer
            // Nothing of a file either: no size, hash, type or decoder's facts.
            facts.bytes = nil
            facts.sha256 = nil
            facts.sniffedMime = nil
            facts.decoded = nil
            facts.dimensions = nil
            return .failed(facts, reason, message)
        }
        // The connection (lookup, TCP and TLS, as libcurl's connect limit counts it):
        // Airship on Android gives up after 2 s without one.
        if let connect = policy.connectTimeoutSeconds.map({ Int(($0 * 1000).rounded(.up)) }) {
            let connected = transfer.timings.dnsMs + transfer.timings.connectMs + transfer.timings.tlsMs
            let neverConnected = transfer.httpStatus == nil && transfer.elapsedMilliseconds > connect
            if connected > connect || (neverConnected && isFailure) {
                return failed(.timeout, "the connection took longer than \(NumberText.decimal(policy.connectTimeoutSeconds!)) s; "
                    + DiagnosticCode.timeout.fix, at: connect)
            }
        }
        // iOS refuses a connection that breaks its rules before anything that hop would bring.
        if let broken = transfer.connectionViolation(under: policy), broken.hop <= policy.maxRedirects,
           policy.allowHTTP || (transfer.httpHop ?? transfer.refusedHop).map({ broken.hop < $0.number }) ?? true {
            return failed(.atsViolation, broken.violation.message)
        }
        if transfer.redirects > policy.maxRedirects {
            return failed(.tooManyRedirects, "more than \(policy.maxRedirects) redirects; \(DiagnosticCode.tooManyRedirects.fix)")
        }
        if !policy.allowHTTP, let hop = transfer.httpHop ?? transfer.refusedHop {
            return failed(.insecureRedirect, MediaFetcher.insecureRedirectMessage(policy, hop))
        }
        // Then what came first on the wire: a length over the cap in the headers, the
        // body going over the cap, or the deadline.
        let success = transfer.httpStatus.map { (200..<300).contains($0) } ?? false
        if success, let announced = transfer.announcedBytes, announced > policy.announcedLimit, transfer.timings.firstByteMs <= deadline {
            transfer.tooLargeAnnounced = true
            return failed(.tooLarge, MediaFetcher.tooLargeMessage(policy, announced: true), at: transfer.timings.firstByteMs)
        }
        // Exact when the cap was watched (`capsInPlay`); a larger cap's crossing, or the end, bounds it otherwise.
        let crossed = transfer.capCrossings.first { $0.cap >= policy.maxBytes }?.atMilliseconds
            ?? ((facts.bytes ?? 0) > policy.maxBytes ? transfer.elapsedMilliseconds : nil)
        if let crossed, crossed <= deadline {
            transfer.tooLargeAnnounced = false
            return failed(.tooLarge, MediaFetcher.tooLargeMessage(policy, announced: false), at: crossed)
        }
        if transfer.elapsedMilliseconds > deadline {
            return failed(.timeout, MediaFetcher.timeoutMessage(policy), at: deadline)
        }
        switch self {
        case .failed(_, let reason, let message, _):
            // Within this policy's limits: the same failure, its message under this policy.
            switch reason {
            case .timeout: return .failed(facts, reason, MediaFetcher.timeoutMessage(policy))
            case .tooLarge: return .failed(facts, reason, MediaFetcher.tooLargeMessage(policy, announced: facts.tooLargeAnnounced))
            default: return .failed(facts, reason, message)
            }
        case .fetched(let media, let memo):
            // The same bytes under other facts: verdicts of their own, placements shared.
            return .fetched(media.with(facts: facts), memo.forSameBytes())
        }
    }

    private var isFailure: Bool {
        if case .failed = self { return true }
        return false
    }
}

extension MediaResult {
    /// An iPhone refuses a connection that breaks its rules (SPEC 18) before anything it
    /// would bring: the `ats_violation` a download under `policy` ends with, or nil.
    /// The downloader stops there (nothing of it is sniffed, decoded or kept).
    package static func refusedConnection(_ facts: MediaFacts, transfer: TransferFacts, under policy: MediaPolicy) -> MediaResult? {
        guard let broken = transfer.connectionViolation(under: policy) else { return nil }
        var facts = facts
        facts.transfer = transfer
        return .failed(facts, .atsViolation, broken.violation.message)
    }
}

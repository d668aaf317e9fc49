/// What one download under a `MediaPolicy` came to: facts about the transfer,
/// then the file or the reason there is none.
struct Download {
    enum Outcome {
        /// A complete body within the limits, in a partial file the caller now owns.
        case file(DownloadedFile)
        /// The push goes out unchanged, for `reason`; `message` is the human detail.
        case failed(DiagnosticCode, String)
        /// Stopped by its cancellation; no file is left.
        case interrupted
        /// 304 to a conditional request (`--cache`): the stored copy is still good; no file.
        case notModified
    }

    /// The URL of the last request made (after any redirects).
    var finalURL: String
    var redirects: Int
    /// The last response's status; nil when no response arrived.
    var httpStatus: Int?
    /// The final response's Content-Type, parameters dropped and case folded.
    var declaredMime: String?
    /// The final response's Content-Disposition header, as sent.
    var contentDisposition: String?
    /// What the final response's Content-Length announced, if anything.
    var announcedBytes: Int?
    /// The first plain-http URL in the chain (the policy allowed it), if any.
    var httpHop: RedirectHop?
    /// The hop refused as `insecure_redirect`, if that is the outcome.
    var refusedHop: RedirectHop?
    /// For `too_large`: true when Content-Length announced it, false when counted.
    var tooLargeAnnounced = false
    /// The final response's caching headers.
    var http: HTTPFacts?
    /// libcurl's phase times, in microseconds, summed over the hops.
    var timings = FetchTimings()
    var elapsedMilliseconds: Int
    var outcome: Outcome
}

struct DownloadedFile {
    var path: String
    var bytes: Int
    var sha256: String
}

/// One URL of a redirect chain: `number` 1 is the first redirect's target.
struct RedirectHop: Sendable, Hashable {
    var number: Int
    var url: String
}

extension MediaFacts {
    /// Takes in what a transfer found out, whatever its outcome.
    mutating func record(_ download: Download) {
        finalURL = download.finalURL
        redirects = download.redirects
        httpStatus = download.httpStatus
        declaredMime = download.declaredMime
        elapsedMilliseconds = download.elapsedMilliseconds
        announcedBytes = download.announcedBytes
        httpHop = download.httpHop
        refusedHop = download.refusedHop
        tooLargeAnnounced = download.tooLargeAnnounced
        timings = download.timings
        http = download.http
    }
}

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

    /// What the transfer found out, whatever its outcome.
    var transfer: TransferFacts
    var outcome: Outcome
}

struct DownloadedFile {
    var bytes: Int
    var sha256: String
}

/// One URL of a redirect chain: `number` 1 is the first redirect's target.
package struct RedirectHop: Sendable, Hashable {
    package var number: Int
    package var url: String

    package init(number: Int, url: String) {
        self.number = number
        self.url = url
    }
}

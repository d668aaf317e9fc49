/// What fetching one media URL under one policy came to: downloaded and
/// sniffed, or why not. One result serves every payload (and every entry)
/// that names the same URL under the same policy.
///
/// Indirect: a result is copied for every record that names its URL (out of the
/// pipeline's cache, into the record's results), and a boxed one is copied with one
/// reference count where the download's facts took a dozen (a campaign's 784 M
/// instructions to 769 M).
package indirect enum MediaResult: Sendable {
    /// Downloaded and sniffed, with what the run made of it once (`DownloadMemo`).
    case fetched(MediaDownload, DownloadMemo)
    /// No file: the facts known so far, the reason and the human detail, with what the run
    /// made of the failure once (a campaign's 404 is judged once, not once per record).
    case failed(MediaFacts, DiagnosticCode, String, DownloadMemo = DownloadMemo())

    package var facts: MediaFacts {
        switch self {
        case .fetched(let media, _): media.facts
        case .failed(let facts, _, _, _): facts
        }
    }

    /// What the run made of this result once: its judgements and its results under other policies.
    package var memo: DownloadMemo {
        switch self {
        case .fetched(_, let memo), .failed(_, _, _, let memo): memo
        }
    }

    /// A fresh download's result: nothing made of it yet.
    package static func downloaded(_ download: MediaDownload) -> MediaResult {
        .fetched(download, DownloadMemo())
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

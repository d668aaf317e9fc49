import Glibc

/// What a payload finds when it asks `MediaCache` for a download.
enum MediaLookup {
    case ready(MediaResult)
    /// Parked until the result is in; `startFetch` is true for the first asker, who must fetch.
    case parked(startFetch: Bool)
    /// The fetch was abandoned (the run was interrupted): drop the payload.
    case abandoned
}

/// Each distinct media URL is fetched once while it is remembered (a send request's, once
/// per policy: `FetchKey`): the first payload that names it starts the fetch, later ones
/// park until it is done, then all get the same result.
///
/// Finished results are remembered up to `bound`, the oldest forgotten first (SPEC 13: a
/// campaign with one URL per recipient holds memory for what is in flight, not for every
/// URL it has seen; a result with its memo is about 3 KB). A URL named again after
/// `bound` other distinct URLs finished is downloaded again. Fetches in flight are never
/// forgotten: the window of payloads bounds them.
final class MediaCache<Key: Hashable & Sendable, Parked: Sendable>: @unchecked Sendable {
    private enum Entry {
        case fetching([Parked])
        case done(MediaResult)
        case abandoned
    }

    // Guarded by `lock`.
    private let lock = Lock()
    private var entries: [Key: Entry] = [:]
    private var fetchesStarted = 0
    /// Finished keys, oldest first from `oldest`: the order they are forgotten in.
    private var finished: [Key] = []
    private var oldest = 0
    private let bound: Int

    /// - Parameter bound: the most finished results remembered.
    init(bound: Int = 1_024) {
        self.bound = max(1, bound)
    }

    /// The result for `url` if it is in; else `parked()` waits for it.
    func lookup(_ url: Key, parking parked: () -> Parked) -> MediaLookup {
        lock.lock()
        defer { lock.unlock() }
        switch entries[url] {
        case .done(let result)?: return .ready(result)
        case .abandoned?: return .abandoned
        case .fetching(var waiting)?:
            // Release the entry's copy first so the append does not copy the array.
            entries[url] = .abandoned
            waiting.append(parked())
            entries[url] = .fetching(waiting)
            return .parked(startFetch: false)
        case nil:
            entries[url] = .fetching([parked()])
            fetchesStarted += 1
            return .parked(startFetch: true)
        }
    }

    /// Stores the result and hands back every payload parked on it.
    func complete(_ url: Key, with result: MediaResult) -> [Parked] {
        lock.lock()
        defer { lock.unlock() }
        guard case .fetching(let waiting)? = entries[url] else { return [] }
        entries[url] = .done(result)
        finished.append(url)
        if finished.count - oldest > bound {
            // A result forgotten: the payloads that had it hold their own reference until written.
            if case .done? = entries[finished[oldest]] { entries[finished[oldest]] = nil }
            oldest += 1
            if oldest >= bound {
                finished.removeFirst(oldest)
                oldest = 0
            }
        }
        return waiting
    }

    /// Drops the payloads parked on a fetch that was interrupted.
    func abandon(_ url: Key) {
        lock.lock()
        entries[url] = .abandoned
        lock.unlock()
    }

    /// How many downloads this run started: one per distinct valid URL.
    var fetchCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return fetchesStarted
    }
}

/// What one download of a send request's records is: the URL and the policy it runs
/// under (the loosest of the records naming it), so that records of other limits get
/// a download of their own.
struct FetchKey: Hashable, Sendable {
    let url: String
    let policy: MediaPolicy

    /// Hashed by the URL alone (a URL's few policies are told apart by `==`): hashing the
    /// policy too cost more than the rest of the lookup.
    func hash(into hasher: inout Hasher) {
        hasher.combine(url)
    }
}

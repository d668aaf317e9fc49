/// The extensions one download's bytes were placed under in this run
/// (`<sha256>.<ext>`: the hash is the download's own), kept in its `DownloadMemo`.
/// Every payload of a campaign asks; cutting the file name out of its path per
/// payload was 0.7 µs, a lookup among a few extensions is a compare (a list, not
/// a set: one or two extensions, where hashing one cost more than comparing them all).
package final class PlacedNames: Sendable {
    private let names = Guarded<[String]>([])

    package init() {}

    /// Whether no name was placed (`--cache` then keeps the download's bytes itself).
    var isEmpty: Bool { names.withLock { (names: inout [String]) in names.isEmpty } }

    /// Runs `make` unless `name` was made already; a failed `make` is tried again next time.
    func once(_ name: String, _ make: () throws(Errno) -> Void) throws(Errno) -> Bool {
        // Held while placing: two payloads placing one name at once would race on link/copy.
        try names.withLock { (names: inout [String]) throws(Errno) -> Bool in
            guard !names.contains(name) else { return false }
            try make()
            names.append(name)
            return true
        }
    }
}

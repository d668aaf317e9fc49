/// libmagic handles shared by every fetch worker of a run. A `magic_t` is not
/// thread-safe, and once it has sniffed a file it holds about 3 MB of its own;
/// sniffing takes milliseconds while downloads take seconds, so a pool the size
/// of the CPU count serves any number of concurrent downloads, and memory no
/// longer grows with `--jobs`.
package final class SnifferPool: @unchecked Sendable {
    private let condition = Condition()
    // Guarded by `condition`.
    private var idle: [Sniffer]
    private var made: Int
    private let limit: Int

    /// - Parameters:
    ///   - size: the most handles ever open at once (at least 1).
    ///   - openingNow: open the first handle at once, so that a broken libmagic shows before any
    ///     download; false: on the first file (`process`: a payload without media never loads it).
    /// - Throws: `SnifferError` when libmagic or its database cannot be loaded.
    package init(size: Int, openingNow: Bool = true) throws(SnifferError) {
        idle = openingNow ? [try Sniffer()] : []
        made = idle.count
        limit = max(1, size)
    }

    /// Runs `body` with a handle no other thread uses meanwhile; waits for one when all are busy.
    package func withSniffer<T>(_ body: (Sniffer) throws(SnifferError) -> T) throws(SnifferError) -> T {
        condition.lock()
        while idle.isEmpty && made >= limit { condition.wait() }
        var sniffer = idle.popLast()
        if sniffer == nil { made += 1 }
        condition.unlock()
        if sniffer == nil {
            do {
                sniffer = try Sniffer()
            } catch {
                condition.lock()
                made -= 1
                condition.signal()
                condition.unlock()
                throw error
            }
        }
        let handle = sniffer!
        defer {
            condition.lock()
            idle.append(handle)
            condition.signal()
            condition.unlock()
        }
        return try body(handle)
    }
}

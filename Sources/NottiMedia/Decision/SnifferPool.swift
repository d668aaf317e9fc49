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

    /// - Parameter size: the most handles ever open at once (at least 1).
    /// - Throws: `SnifferError` when libmagic or its database cannot be loaded
    ///   (the first handle is opened at once, so that shows before any download).
    package init(size: Int) throws(SnifferError) {
        idle = [try Sniffer()]
        made = 1
        limit = max(1, size)
    }

    /// Runs `body` with a handle no other thread uses meanwhile; waits for one when all are busy.
    func withSniffer<T>(_ body: (Sniffer) throws(SnifferError) -> T) throws(SnifferError) -> T {
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

import Glibc
import NottiMedia

/// Work on a list made on several threads and used on the calling thread in the list's order: `sniff`
/// reads a file (libmagic) on one core while another file is being decoded, instead of one file after
/// another with a core idle. Deterministic output whatever the threads: only `use` writes, in order.
enum InputOrderWork {
    /// Runs `make(i)` for every i in 0..<count on `threads` threads and hands each result to `use` on
    /// the calling thread, in order, as soon as it and every earlier one are made. At most `window`
    /// results wait ahead of the one to use (a long list holds a few results, not all of them). When
    /// `use` returns false, no new item is started, and the ones being made are waited for.
    static func run<Made>(
        count: Int, threads: Int, window: Int = 64, make: @escaping @Sendable (Int) -> Made, use: (Int, Made) -> Bool
    ) {
        let state = State<Made>()
        let workers = (0..<max(1, min(threads, count))).map { _ in
            JoinableThread {
                state.lock()
                while true {
                    while !state.stopped && state.next < count && state.next >= state.using + window { state.wait() }
                    guard !state.stopped && state.next < count else { break }
                    let index = state.next
                    state.next += 1
                    state.unlock()
                    let result = make(index)
                    state.lock()
                    state.made[index] = result
                    state.broadcast()
                }
                state.unlock()
            }
        }
        state.lock()
        while state.using < count {
            let index = state.using
            var result = state.made.removeValue(forKey: index)
            while result == nil {
                state.wait()
                result = state.made.removeValue(forKey: index)
            }
            state.using += 1
            state.broadcast()
            state.unlock()
            let goOn = use(index, result!)
            state.lock()
            if !goOn {
                state.stopped = true
                state.broadcast()
                break
            }
        }
        state.unlock()
        for worker in workers { worker.join() }
    }

    /// The results made and not yet used, and where the work is: read and written under its lock.
    private final class State<Made>: @unchecked Sendable {
        private let condition = Condition()
        // Guarded by `condition`.
        var made: [Int: Made] = [:]
        /// The next index to start.
        var next = 0
        /// The next index to use.
        var using = 0
        var stopped = false

        func lock() { condition.lock() }
        func unlock() { condition.unlock() }
        func wait() { condition.wait() }
        func broadcast() { condition.broadcast() }
    }
}

import Glibc
import NottiMedia

/// The gate's one verdict cache (SPEC 21), shared by every client: verdicts by
/// what was asked (URL, SDK, platform, send time), each reused while the media
/// server's own freshness lasts, at most `capacity` kept (the oldest forgotten
/// first), and one check per key at a time: asks that arrive while it runs wait
/// for its verdict instead of starting their own. Checks waiting or running are
/// bounded by `queueLimit`: past it, an ask is refused (503), never answered
/// with a verdict that was not reached.
final class VerdictCache: Sendable {
    /// What an ask found.
    enum Lookup {
        /// A verdict still fresh: reuse it.
        case hit(GateVerdict, checkedAt: Int, ageSeconds: Int)
        /// A check of the key is running: the waiter is called with its verdict.
        case joined
        /// No check runs: the caller starts one and calls `finish` with its verdict.
        case start
        /// The queue is full.
        case full
    }

    typealias Waiter = @Sendable (GateVerdict, Int) -> Void

    private struct Entry {
        let verdict: GateVerdict
        /// When it was reached, seconds since 1970 (`checkedAt`), and on the monotonic clock.
        let checkedAt: Int
        let reached: MonotonicInstant
    }

    private struct State {
        var entries: [String: Entry] = [:]
        /// Keys in the order they were stored, for forgetting the oldest.
        var order: [String] = []
        var orderHead = 0
        var running: [String: [Waiter]] = [:]
    }

    private let state = Guarded(State())
    let capacity: Int
    let queueLimit: Int

    init(capacity: Int, queueLimit: Int) {
        self.capacity = capacity
        self.queueLimit = queueLimit
    }

    /// Looks `key` up; `waiter` is kept when the ask joins a running check.
    func lookup(_ key: String, waiter: @escaping Waiter) -> Lookup {
        state.withLock { state in
            if let entry = state.entries[key] {
                let age = Int((MonotonicInstant.now - entry.reached).components.seconds)
                if age < entry.verdict.freshSeconds { return .hit(entry.verdict, checkedAt: entry.checkedAt, ageSeconds: age) }
            }
            if state.running[key] != nil {
                state.running[key]!.append(waiter)
                return .joined
            }
            guard state.running.count < queueLimit else { return .full }
            state.running[key] = [waiter]
            return .start
        }
    }

    /// Starts a check of `key` for `POST /v1/warm` (nobody waits); false when one runs, the verdict is fresh, or the queue is full.
    func startWarming(_ key: String) -> Bool {
        state.withLock { state in
            if let entry = state.entries[key], Int((MonotonicInstant.now - entry.reached).components.seconds) < entry.verdict.freshSeconds {
                return false
            }
            guard state.running[key] == nil, state.running.count < queueLimit else { return false }
            state.running[key] = []
            return true
        }
    }

    /// The check of `key` is done: its verdict is stored and every waiter answered (outside the lock).
    func finish(_ key: String, verdict: GateVerdict) {
        let checkedAt = Int(time(nil))
        let waiters = state.withLock { state -> [Waiter] in
            if state.entries.updateValue(Entry(verdict: verdict, checkedAt: checkedAt, reached: .now), forKey: key) == nil {
                state.order.append(key)
            }
            while state.entries.count > capacity, state.orderHead < state.order.count {
                state.entries[state.order[state.orderHead]] = nil
                state.orderHead += 1
            }
            if state.orderHead >= 1024, state.orderHead * 2 >= state.order.count {
                state.order.removeFirst(state.orderHead)
                state.orderHead = 0
            }
            return state.running.removeValue(forKey: key) ?? []
        }
        for waiter in waiters { waiter(verdict, checkedAt) }
    }

    /// Checks waiting or running.
    var running: Int { state.withLock { $0.running.count } }
}

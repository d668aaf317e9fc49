import Glibc

/// A pthread mutex. Not `Synchronization.Mutex`: on Linux that waits on a raw
/// futex ThreadSanitizer cannot see, so every access under it was reported as
/// a race; and not `NSLock`, which would load Foundation (and ICU) for a lock.
final class Lock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func lock() { pthread_mutex_lock(mutex) }
    func unlock() { pthread_mutex_unlock(mutex) }
    /// Takes the lock if nobody holds it. - Returns: false, without it, when someone does.
    func tryLock() -> Bool { pthread_mutex_trylock(mutex) == 0 }

    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }

    fileprivate var raw: UnsafeMutablePointer<pthread_mutex_t> { mutex }
}

/// A pthread condition variable with its own lock: `lock`, then `wait` until
/// the state it guards changes, `signal` or `broadcast` after changing it.
package final class Condition: @unchecked Sendable {
    private let mutex = Lock()
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    package init() {
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        // Timed waits measure on the monotonic clock: setting the wall clock cannot stretch them.
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        condition.deallocate()
    }

    package func lock() { mutex.lock() }
    package func unlock() { mutex.unlock() }
    package func withLock<T>(_ body: () throws -> T) rethrows -> T {
        try mutex.withLock(body)
    }
    /// Called with the lock held; returns with it held again.
    package func wait() { pthread_cond_wait(condition, mutex.raw) }
    /// As `wait`, for at most `milliseconds`. - Returns: false when the time ran out.
    func wait(milliseconds: Int) -> Bool {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        let nanoseconds = Int(time.tv_nsec) + milliseconds % 1000 * 1_000_000
        time.tv_sec += milliseconds / 1000 + nanoseconds / 1_000_000_000
        time.tv_nsec = nanoseconds % 1_000_000_000
        return pthread_cond_timedwait(condition, mutex.raw, &time) != ETIMEDOUT
    }
    package func signal() { pthread_cond_signal(condition) }
    package func broadcast() { pthread_cond_broadcast(condition) }
}

/// A counting semaphore on `Condition` (in place of `DispatchSemaphore`, which
/// linked libdispatch into the binary for this one use), whose waiter can take
/// several units at once and is woken only once they are all there.
final class Semaphore: @unchecked Sendable {
    private let condition = Condition()
    // Guarded by `condition`.
    private var value: Int
    /// How many units the waiter (one at a time) waits for; 0: nobody waits.
    private var wanted = 0

    init(value: Int) { self.value = value }

    func signal() {
        condition.lock()
        value += 1
        if wanted > 0 && value >= wanted { condition.signal() }
        condition.unlock()
    }

    /// Takes `count` units together, waiting at most `milliseconds` for all of
    /// them (0: only if they are free now).
    /// - Returns: false, taking none, when they did not come in time.
    func wait(for count: Int = 1, milliseconds: Int) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        if value < count && milliseconds > 0 {
            wanted = count
            let deadline = MonotonicInstant.now + .milliseconds(milliseconds)
            while value < count {
                let left = deadline - MonotonicInstant.now
                guard left > .zero else { break }
                _ = condition.wait(milliseconds: max(1, Int(left / .milliseconds(1))))
            }
            wanted = 0
        }
        guard value >= count else { return false }
        value -= count
        return true
    }
}

/// A value only reached under its own pthread mutex (`Lock`): `Synchronization.Mutex`'s
/// shape, with a lock ThreadSanitizer sees (several threads judge and place one download;
/// serve's cache, metrics and suspended connections). Use it, not `Mutex`, for shared state.
package final class Guarded<Value>: @unchecked Sendable {
    private let lock = Lock()
    // Guarded by `lock`.
    private var value: Value

    package init(_ value: Value) {
        self.value = value
    }

    package func withLock<T, E: Error>(_ body: (inout Value) throws(E) -> T) throws(E) -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    /// A few values by key, each made by `make` the first time its key is asked for
    /// (a list, searched in order: there are a handful; kept only while under `bound`).
    func value<Key: Equatable, Made>(
        for key: Key, bound: Int = .max, _ make: () -> Made
    ) -> Made where Value == [(key: Key, value: Made)] {
        withLock { (known: inout [(key: Key, value: Made)]) in
            if let value = known.first(where: { $0.key == key })?.value { return value }
            let value = make()
            if known.count < bound { known.append((key, value)) }
            return value
        }
    }
}

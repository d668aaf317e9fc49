import Glibc
import NottiMedia
import Synchronization

/// SIGINT and SIGTERM stop work in progress instead of killing the process,
/// so partial downloads are removed and the exit status says which signal it was.
enum Signals {
    /// Work checks this at least once a second (libcurl's progress callback).
    static let cancellation = Cancellation()
    private static let received = Atomic<Int32>(0)

    /// The signal that stopped the run, if one did.
    static var receivedSignal: Int32? {
        let value = received.load(ordering: .acquiring)
        return value == 0 ? nil : value
    }

    static func install() {
        // A parent may have spawned us with these blocked (Foundation's Process
        // does, from a thread that blocks them); we must still hear them.
        var unblock = sigset_t()
        sigemptyset(&unblock)
        sigaddset(&unblock, SIGINT)
        sigaddset(&unblock, SIGTERM)
        sigprocmask(SIG_UNBLOCK, &unblock, nil)
        for number in [SIGINT, SIGTERM] {
            // Only async-signal-safe work here: two lock-free atomic stores.
            signal(number) { number in
                _ = Signals.received.compareExchange(expected: 0, desired: number, ordering: .acquiringAndReleasing)
                Signals.cancellation.cancel()
            }
        }
    }
}

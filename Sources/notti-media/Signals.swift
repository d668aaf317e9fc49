import Foundation
import NottiMedia
import Synchronization

/// SIGINT and SIGTERM stop work in progress instead of killing the process,
/// so partial downloads are removed and the exit status says which signal it was.
///
/// Both are blocked in every thread and taken by one thread with `sigwait`,
/// so handling them is ordinary code rather than an asynchronous handler
/// (and sanitizers, which defer asynchronous handlers, see them at once).
enum Signals {
    /// Work checks this at least once a second (libcurl's progress callback).
    static let cancellation = Cancellation()
    private static let received = Atomic<Int32>(0)

    /// The signal that stopped the run, if one did.
    static var receivedSignal: Int32? {
        let value = received.load(ordering: .acquiring)
        return value == 0 ? nil : value
    }

    /// Call first thing in `main`, before any other thread starts: threads
    /// inherit the blocked mask.
    static func install() {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &set, nil)
        let waiter = Thread {
            var set = sigset_t()
            sigemptyset(&set)
            sigaddset(&set, SIGINT)
            sigaddset(&set, SIGTERM)
            var number: Int32 = 0
            while sigwait(&set, &number) == 0 {
                _ = received.compareExchange(expected: 0, desired: number, ordering: .acquiringAndReleasing)
                cancellation.cancel()
            }
        }
        waiter.start()
    }
}

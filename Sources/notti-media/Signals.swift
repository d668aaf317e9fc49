import Glibc
import NottiMedia
import Synchronization

/// SIGINT, SIGTERM, SIGHUP and SIGPIPE stop work in progress instead of
/// killing the process, so partial downloads and temporary files are removed
/// and the exit status says which signal it was (128 + N).
///
/// All four are blocked in every thread and taken by one thread with `sigwait`,
/// so handling them is ordinary code rather than an asynchronous handler
/// (and sanitizers, which defer asynchronous handlers, see them at once).
/// A write to a closed pipe raises SIGPIPE in the writing thread, where it
/// stays blocked: the write fails with EPIPE instead, and `Console` reports
/// that here as `pipeClosed()`.
enum Signals {
    /// Work checks this at least once a second (libcurl's progress callback).
    static let cancellation = Cancellation()
    private static let received = Atomic<Int32>(0)
    /// The signals that end a run; a second SIGINT or SIGTERM ends it at once.
    private static let handled = [SIGINT, SIGTERM, SIGHUP, SIGPIPE]
    /// A run that has not wound down this long after its first signal is ended
    /// where it stands (a write blocked on a pipe nobody reads, say).
    static let gracePeriodSeconds = 1.0

    /// The signal that stopped the run, if one did.
    static var receivedSignal: Int32? {
        let value = received.load(ordering: .acquiring)
        return value == 0 ? nil : value
    }

    /// Call first thing in `main`, before any other thread starts: threads
    /// inherit the blocked mask.
    static func install() {
        // Over RLIMIT_FSIZE a write fails with EFBIG, reported like a full disk,
        // instead of killing the process with a partial file left behind.
        signal(SIGXFSZ, SIG_IGN)
        var set = signalSet()
        pthread_sigmask(SIG_BLOCK, &set, nil)
        // Lives as long as the process; never joined.
        _ = JoinableThread {
            var set = signalSet()
            var number: Int32 = 0
            while sigwait(&set, &number) == 0 {
                if receivedSignal != nil {
                    if number == SIGINT || number == SIGTERM { endNow() }
                    continue
                }
                stop(by: number)
            }
        }
    }

    /// For `serve`, which waits for its signals itself (`ServeCommand`): the four blocked in every thread,
    /// no thread that ends the run on them.
    static func block() {
        signal(SIGXFSZ, SIG_IGN)
        var set = signalSet()
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// The next of the four signals, waiting for it (`serve`'s main thread).
    static func next() -> Int32 {
        var set = signalSet()
        var number: Int32 = 0
        while sigwait(&set, &number) != 0 {}
        return number
    }

    /// A write to stdout found the reader gone (EPIPE): the run ends as SIGPIPE would end it.
    static func pipeClosed() {
        stop(by: SIGPIPE)
    }

    private static func stop(by number: Int32) {
        guard received.compareExchange(expected: 0, desired: number, ordering: .acquiringAndReleasing).exchanged else { return }
        cancellation.cancel()
        _ = JoinableThread {
            var pause = timespec(tv_sec: Int(gracePeriodSeconds), tv_nsec: Int((gracePeriodSeconds.truncatingRemainder(dividingBy: 1)) * 1e9))
            var left = timespec()
            while nanosleep(&pause, &left) != 0 && errno == EINTR { pause = left }
            endNow()
        }
    }

    /// Removes what this run created and exits with the first signal's status, without
    /// waiting for work in progress.
    private static func endNow() {
        OwnedPaths.run.removeAll()
        _exit(ExitCode.interrupted(by: receivedSignal ?? SIGINT))
    }

    private static func signalSet() -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        for number in handled { sigaddset(&set, number) }
        return set
    }
}

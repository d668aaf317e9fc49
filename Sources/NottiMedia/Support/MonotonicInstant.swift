import Glibc

/// A moment on the clock `ContinuousClock` reads on Linux (`CLOCK_BOOTTIME`:
/// it keeps counting while the machine sleeps, so a deadline is real time).
///
/// Not `ContinuousClock` itself: it lives in Swift Concurrency, and reading it
/// linked that runtime and libdispatch into the binary, whose start-up code
/// and data every run then paid for; the tool runs on threads of its own.
package struct MonotonicInstant: Comparable, Sendable {
    private let nanoseconds: Int64

    private init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

    package static var now: MonotonicInstant {
        var time = timespec()
        clock_gettime(CLOCK_BOOTTIME, &time)
        return MonotonicInstant(nanoseconds: Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec))
    }

    package static func < (lhs: MonotonicInstant, rhs: MonotonicInstant) -> Bool { lhs.nanoseconds < rhs.nanoseconds }

    package static func - (lhs: MonotonicInstant, rhs: MonotonicInstant) -> Duration {
        .nanoseconds(lhs.nanoseconds - rhs.nanoseconds)
    }

    package static func + (instant: MonotonicInstant, duration: Duration) -> MonotonicInstant {
        let (seconds, attoseconds) = duration.components
        return MonotonicInstant(nanoseconds: instant.nanoseconds + seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}

import Glibc

/// Waits until `descriptor` has input (or an error the next read will report),
/// in steps of 200 ms, so a Ctrl-C while the tool waits on a terminal or an
/// idle pipe is noticed within a fifth of a second.
/// - Returns: false when `isCancelled` turned true first.
func waitUntilReadable(_ descriptor: Int32, unless isCancelled: () -> Bool) -> Bool {
    var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
    while !isCancelled() {
        let ready = poll(&poller, 1, 200)
        if ready > 0 || (ready < 0 && errno != EINTR) { return true }
    }
    return false
}

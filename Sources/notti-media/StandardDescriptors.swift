import Glibc

/// Standard descriptors the tool was started without (`<&-`, `>&-`, `2>&-`).
///
/// The first file or socket the tool opens would otherwise become descriptor 0,
/// 1 or 2: a libcurl socket read as stdin, a payload written to as stdout. So,
/// first thing, as daemons and coreutils do, each closed one gets `/dev/null`,
/// opened the wrong way round: reading a closed stdin fails with EBADF (`cannot
/// read -: Bad file descriptor`) and writing a closed stdout fails with EBADF
/// (a failed write: exit 2), as they would have, and nothing of the tool's can
/// take their numbers.
enum StandardDescriptors {
    /// True when the tool was started with stdin closed (set once, by `reserve`, before any thread).
    nonisolated(unsafe) private(set) static var stdinWasClosed = false

    static func reserve() {
        for descriptor: Int32 in 0...2 where fcntl(descriptor, F_GETFD) == -1 && errno == EBADF {
            if descriptor == 0 { stdinWasClosed = true }
            // Write-only for stdin, read-only for stdout and stderr: every use fails as on a closed one.
            let placeholder = open("/dev/null", descriptor == 0 ? O_WRONLY : O_RDONLY)
            if placeholder >= 0 && placeholder != descriptor {
                dup2(placeholder, descriptor)
                close(placeholder)
            }
        }
    }
}

import Glibc
import NottiMedia
import Synchronization

/// Where the tool writes: stdout for results, stderr for people. Both go
/// through C stdio, buffered, so a million-line output is not a million
/// system calls.
///
/// A failed write to stdout is never silent: a closed pipe (EPIPE) ends the
/// run as SIGPIPE does, any other failure (a full disk, `/dev/full`) is kept
/// as `outputFailure`, stops the run, and turns its exit status into 2.
enum Console {
    /// Our own streams on descriptors 1 and 2 (Glibc's `stdout` and `stderr`
    /// are mutable globals Swift 6 will not let threads share). A stream is
    /// internally locked, so writer and main threads may both use them.
    /// Nil when the descriptor cannot be written (the tool was started with it
    /// closed: `StandardDescriptors`): every write to stdout then fails with EBADF,
    /// and stderr says nothing.
    nonisolated(unsafe) static let standardOutput: UnsafeMutablePointer<FILE>? = fdopen(STDOUT_FILENO, "w")
    nonisolated(unsafe) static let standardError: UnsafeMutablePointer<FILE>? = {
        let stream = fdopen(STDERR_FILENO, "w")
        if let stream { setvbuf(stream, nil, _IONBF, 0) }
        return stream
    }()

    /// The errno of the first failed write to stdout other than EPIPE; 0 while none failed.
    private static let failure = Atomic<Int32>(0)

    static func out(_ text: String) {
        guard let standardOutput else { return outputFailed(EBADF) }
        if fputs(text, standardOutput) == EOF || fputc(0x0A, standardOutput) == EOF { outputFailed(errno) }
    }

    /// Writes `text` to stdout with no line break after it (a JSON array's items, comma first).
    static func outPart(_ text: String) {
        guard let standardOutput else { return outputFailed(EBADF) }
        if fputs(text, standardOutput) == EOF { outputFailed(errno) }
    }

    static func err(_ text: String) {
        guard let standardError else { return }
        fputs(text, standardError)
        fputc(0x0A, standardError)
    }

    /// Writes raw bytes to stdout.
    static func outBytes(_ bytes: UnsafeRawBufferPointer) {
        guard let standardOutput else { return outputFailed(EBADF) }
        if fwrite(bytes.baseAddress, 1, bytes.count, standardOutput) < bytes.count { outputFailed(errno) }
    }

    /// Pushes buffered output to the descriptor, so a failure shows before the exit status is chosen.
    static func flushOutput() {
        guard let standardOutput else { return }
        if fflush(standardOutput) != 0 { outputFailed(errno) }
    }

    /// Why writing stdout failed, if it did (a closed pipe is a signal, not a failure).
    static var outputFailure: Errno? {
        let code = failure.load(ordering: .acquiring)
        return code == 0 ? nil : Errno(code)
    }

    private static func outputFailed(_ code: Int32) {
        if code == EPIPE {
            Signals.pipeClosed()
            return
        }
        // Nothing more can be delivered: stop downloading for a result nobody gets.
        if failure.compareExchange(expected: 0, desired: code == 0 ? EIO : code, ordering: .acquiringAndReleasing).exchanged {
            Signals.cancellation.cancel()
        }
    }

    /// A one-line error from the tool itself: `notti-media: message`, escaped
    /// (it may name a path or value from the command line).
    static func fail(_ message: String) {
        err("notti-media: \(textEscape(message))")
    }

    /// True when stderr is a terminal a person watches.
    static var stderrIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }
}

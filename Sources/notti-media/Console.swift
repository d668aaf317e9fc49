import Glibc

/// Where the tool writes: stdout for results, stderr for people. Both go
/// through C stdio, buffered, so a million-line output is not a million
/// system calls; `exit` flushes them.
enum Console {
    /// Our own streams on descriptors 1 and 2 (Glibc's `stdout` and `stderr`
    /// are mutable globals Swift 6 will not let threads share). A stream is
    /// internally locked, so writer and main threads may both use them.
    nonisolated(unsafe) static let standardOutput: UnsafeMutablePointer<FILE> = fdopen(STDOUT_FILENO, "w")
    nonisolated(unsafe) static let standardError: UnsafeMutablePointer<FILE> = {
        let stream = fdopen(STDERR_FILENO, "w")!
        setvbuf(stream, nil, _IONBF, 0)
        return stream
    }()

    static func out(_ text: String) {
        fputs(text, standardOutput)
        fputc(0x0A, standardOutput)
    }

    static func err(_ text: String) {
        fputs(text, standardError)
        fputc(0x0A, standardError)
    }

    /// Writes raw bytes to stdout.
    static func outBytes(_ bytes: UnsafeRawBufferPointer) {
        fwrite(bytes.baseAddress, 1, bytes.count, standardOutput)
    }

    /// A one-line error from the tool itself: `notti-media: message`.
    static func fail(_ message: String) {
        err("notti-media: \(message)")
    }

    /// True when stderr is a terminal a person watches.
    static var stderrIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }
}

/// An error the command line reports in one line, `notti-media: message`, and
/// turns into its exit status. Findings about payloads are not errors: they are
/// diagnostics, and their verdict is exit 1.
protocol CLIError: Error {
    var message: String { get }
    var exitCode: Int32 { get }
}

extension UsageError: CLIError {
    /// A command line that cannot be run: 2.
    var exitCode: Int32 { ExitCode.usage }
}

/// A failure of this machine, not of the command line or the media: a folder
/// that cannot be made or written, a failed write. One line, exit status 2
/// (`ExitCode.localFailure`), before any download when it can be found then.
struct LocalError: CLIError {
    var message: String
    init(_ message: String) { self.message = message }
    var exitCode: Int32 { ExitCode.localFailure }
}

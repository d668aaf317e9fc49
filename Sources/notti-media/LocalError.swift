/// A failure of this machine, not of the command line or the media: a folder
/// that cannot be made or written, a failed write. One line, exit status 2
/// (`ExitCode.localFailure`), before any download when it can be found then.
struct LocalError: Error {
    var message: String
    init(_ message: String) { self.message = message }
}

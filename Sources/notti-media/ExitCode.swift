/// The exit statuses scripts rely on (SPEC section 6). Never renumber one.
enum ExitCode {
    /// Content delivered (`process`), every payload or file passed (`check`, `sniff`).
    static let success: Int32 = 0
    /// At least one payload or file failed.
    static let failed: Int32 = 1
    /// Bad usage, or an unreadable or invalid payload.
    static let usage: Int32 = 2
    /// A local failure: an output or temporary folder that cannot be made or
    /// written, a failed write of stdout, `--html` or an attachment. Shares 2
    /// with usage errors: in both cases the run's verdict cannot be trusted.
    static let localFailure: Int32 = 2

    /// 128 + the signal number, as shells report it: 129 SIGHUP, 130 SIGINT,
    /// 141 SIGPIPE (or a closed output pipe), 143 SIGTERM.
    static func interrupted(by signal: Int32) -> Int32 { 128 + signal }
}

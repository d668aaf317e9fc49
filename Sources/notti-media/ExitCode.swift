/// The exit statuses scripts rely on (SPEC section 6). Never renumber one.
enum ExitCode {
    /// Content delivered (`process`), every payload or file passed (`check`, `sniff`).
    static let success: Int32 = 0
    /// At least one payload or file failed.
    static let failed: Int32 = 1
    /// Bad usage, or an unreadable or invalid payload.
    static let usage: Int32 = 2

    /// 128 + the signal number, as shells report it: 130 for SIGINT, 143 for SIGTERM.
    static func interrupted(by signal: Int32) -> Int32 { 128 + signal }
}

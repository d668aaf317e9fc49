import Glibc
import NottiMedia

/// The live line a person watching a terminal sees on stderr during `check`
/// (and `fix`): payloads done, failures so far, current rate; then `fix`'s URLs. Redrawn at most ten times a
/// second; never written when stderr is not a terminal.
final class ProgressLine: @unchecked Sendable {
    // Used by the writer thread only.
    private let start = MonotonicInstant.now
    private var lastDrawn = MonotonicInstant.now
    private var drawn = false

    func update(done: Int, failed: Int) {
        let now = MonotonicInstant.now
        guard now - lastDrawn >= .milliseconds(100) else { return }
        lastDrawn = now
        let seconds = (now - start) / .seconds(1)
        let rate = seconds > 0 ? Int(Double(done) / seconds) : 0
        // Made only when stderr is a terminal, so the stream is there.
        guard let stream = Console.standardError else { return }
        fputs("\r\u{1B}[Kchecked \(done) payload\(done == 1 ? "" : "s"), \(failed) failed, \(rate)/s", stream)
        drawn = true
    }

    /// `fix`'s second step: the URLs with findings handled so far.
    func update(fixed done: Int, of total: Int) {
        let now = MonotonicInstant.now
        guard now - lastDrawn >= .milliseconds(100) else { return }
        lastDrawn = now
        guard let stream = Console.standardError else { return }
        fputs("\r\u{1B}[Kfixing media: \(done) of \(total) URL\(total == 1 ? "" : "s")", stream)
        drawn = true
    }

    func clear() {
        guard drawn, let stream = Console.standardError else { return }
        fputs("\r\u{1B}[K", stream)
    }
}

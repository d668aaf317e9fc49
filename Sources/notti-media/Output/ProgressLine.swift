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

    /// The input's reading, when the line gives a total and the time left.
    private let reading: ReadProgress?

    init(reading: ReadProgress? = nil) {
        self.reading = reading
    }

    func update(done: Int, failed: Int) {
        let now = MonotonicInstant.now
        guard now - lastDrawn >= .milliseconds(100) else { return }
        lastDrawn = now
        let seconds = (now - start) / .seconds(1)
        let rate = seconds > 0 ? Int(Double(done) / seconds) : 0
        // Made only when stderr is a terminal, so the stream is there.
        guard let stream = Console.standardError else { return }
        fputs("\r\u{1B}[Kchecked \(done) payload\(done == 1 ? "" : "s"), \(failed) failed, \(rate)/s\(Self.left(reading, seconds: seconds))", stream)
        drawn = true
    }

    /// `, 30% of 40 MB, about 12 s left`: from the bytes read, when the input's size is known.
    static func left(_ reading: ReadProgress?, seconds: Double) -> String {
        guard let reading, let total = reading.total else { return "" }
        let read = min(reading.bytesRead, total)
        let percent = total > 0 ? read * 100 / total : 0
        var text = ", \(percent)% of \(ByteText.human(total))"
        if read > 0 && seconds >= 1 && read < total {
            let remaining = Int((seconds * Double(total - read) / Double(read)).rounded(.up))
            text += remaining >= 120 ? ", about \(remaining / 60) min left" : ", about \(remaining) s left"
        }
        return text
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

import Glibc
import NottiMedia

/// `fix`'s second step, several URLs at a time (SPEC 19): each thread has its own
/// `MediaFixer` (a downloader is one libcurl handle, one thread's), and all share
/// the decode workers, which hand a rendition's encode to the picture workers in
/// turn, so each core encodes while the others download. The outcomes come back
/// in the targets' order, whatever finished first: the manifest, the lines and
/// the renditions' bytes are the same with one thread or eight.
struct RenditionWorkers {
    /// How many URLs are fixed at once: `--jobs` (a thread mostly waits, on its download or on a worker).
    let count: Int
    let makeFixer: () -> MediaFixer

    /// Fixes every target; a URL not started when the run is stopped has no outcome (nil).
    /// `finished`, called on the fixing threads under a lock, counts what is done (the progress line).
    func fix(_ targets: [FixTargets.Target], finished: @escaping @Sendable (Int) -> Void) -> [MediaFixer.Outcome?] {
        let fixers = (0..<max(1, min(count, targets.count))).map { _ in Handoff(value: makeFixer()) }
        let work = Handoff(value: targets)
        let state = Guarded(State(outcomes: Array(repeating: nil, count: targets.count)))
        let running = fixers.map { fixer in
            JoinableThread {
                while let index = state.withLock({ $0.take(of: work.value.count) }) {
                    let outcome = Handoff(value: fixer.value.fix(work.value[index]))
                    state.withLock { state in
                        state.outcomes[index] = outcome.value
                        state.done += 1
                        finished(state.done)
                    }
                }
            }
        }
        for thread in running { thread.join() }
        return state.withLock { $0.outcomes }
    }

    private struct State {
        var outcomes: [MediaFixer.Outcome?]
        var next = 0
        var done = 0

        /// The next target's index, or nil when all are taken or the run was stopped (SIGINT, SIGTERM …).
        mutating func take(of total: Int) -> Int? {
            guard next < total, Signals.receivedSignal == nil else { return nil }
            defer { next += 1 }
            return next
        }
    }
}

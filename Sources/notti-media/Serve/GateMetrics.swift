import CServeShim
import NottiMedia

/// `GET /metrics` (SPEC 21), in Prometheus's text format: requests by route and
/// status, verdict cache hits and misses, checks in flight, verdicts by code, and
/// a latency histogram. Counters only grow; a scrape reads them under one lock.
final class GateMetrics: Sendable {
    /// The latency buckets' upper bounds, in seconds.
    static let buckets: [Double] = [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30]

    private struct State {
        var requests: [String: Int] = [:]
        var hits = 0
        var misses = 0
        var inFlight = 0
        var verdicts: [String: Int] = [:]
        var codes: [String: Int] = [:]
        var latency = [Int](repeating: 0, count: GateMetrics.buckets.count)
        var latencyCount = 0
        var latencySum = 0.0
    }

    private let state = Guarded(State())

    func request(route: String, status: Int, seconds: Double) {
        state.withLock { state in
            state.requests["route=\"\(route)\",status=\"\(status)\"", default: 0] += 1
            for (index, bound) in Self.buckets.enumerated() where seconds <= bound { state.latency[index] += 1 }
            state.latencyCount += 1
            state.latencySum += seconds
        }
    }

    func cache(hit: Bool) { state.withLock { if hit { $0.hits += 1 } else { $0.misses += 1 } } }

    func checkStarted() { state.withLock { $0.inFlight += 1 } }

    /// A check done: its verdict and the codes of its findings.
    func checkFinished(verdict: String, codes: [String]) {
        state.withLock { state in
            state.inFlight -= 1
            state.verdicts[verdict, default: 0] += 1
            for code in codes { state.codes[code, default: 0] += 1 }
        }
    }

    var text: String {
        state.withLock { state in
            var lines: [String] = []
            func family(_ name: String, _ type: String, _ help: String) {
                lines.append("# HELP \(name) \(help)")
                lines.append("# TYPE \(name) \(type)")
            }
            family("notti_media_requests_total", "counter", "HTTP requests answered, by route and status.")
            for (labels, count) in state.requests.sorted(by: { $0.key < $1.key }) { lines.append("notti_media_requests_total{\(labels)} \(count)") }
            family("notti_media_cache_hits_total", "counter", "Verdicts answered from the cache.")
            lines.append("notti_media_cache_hits_total \(state.hits)")
            family("notti_media_cache_misses_total", "counter", "Verdicts that needed a check.")
            lines.append("notti_media_cache_misses_total \(state.misses)")
            family("notti_media_checks_in_flight", "gauge", "Checks (downloads and their judgement) running now.")
            lines.append("notti_media_checks_in_flight \(state.inFlight)")
            family("notti_media_verdicts_total", "counter", "Checks made, by verdict.")
            for (verdict, count) in state.verdicts.sorted(by: { $0.key < $1.key }) { lines.append("notti_media_verdicts_total{verdict=\"\(verdict)\"} \(count)") }
            family("notti_media_verdict_codes_total", "counter", "Findings of the checks made, by code.")
            for (code, count) in state.codes.sorted(by: { $0.key < $1.key }) { lines.append("notti_media_verdict_codes_total{code=\"\(code)\"} \(count)") }
            // The heap in use (malloc's own count, mapped blocks included): what a leak grows. RSS also holds the
            // allocator's free pages, which each thread's arena keeps; the soak (scripts/bench soak) reads both.
            family("notti_media_heap_bytes", "gauge", "Bytes of the heap in use (malloc's count, mapped blocks included).")
            lines.append("notti_media_heap_bytes \(serve_heap_bytes())")
            family("notti_media_request_seconds", "histogram", "Time from a request's whole arrival to its answer.")
            for (index, bound) in Self.buckets.enumerated() {
                lines.append("notti_media_request_seconds_bucket{le=\"\(bound)\"} \(state.latency[index])")
            }
            lines.append("notti_media_request_seconds_bucket{le=\"+Inf\"} \(state.latencyCount)")
            lines.append("notti_media_request_seconds_sum \(state.latencySum)")
            lines.append("notti_media_request_seconds_count \(state.latencyCount)")
            return lines.joined(separator: "\n") + "\n"
        }
    }
}

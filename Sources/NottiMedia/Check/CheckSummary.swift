/// What a campaign manager reads at the end: how many payloads passed and
/// failed, which codes came up, and per distinct media URL its verdict and
/// how many payloads it hits, worst first.
public struct CheckSummary: Sendable {
    public var payloads = 0
    public var passed = 0
    public var failed = 0
    /// True when the run was cancelled before it finished: the counts cover what finished.
    public var interrupted = false
    /// Payloads per diagnostic code.
    public var codeCounts: [String: Int] = [:]
    /// Per media URL and SDK: its verdict and the payloads naming it.
    private var media: [String: (verdict: MediaVerdict, payloads: Int)] = [:]

    public init() {}

    mutating func add<Rendered>(_ record: CheckRecord<Rendered>) {
        payloads += 1
        if record.passed { passed += 1 } else { failed += 1 }
        for (position, diagnostic) in record.diagnostics.enumerated()
        where !record.diagnostics[..<position].contains(where: { $0.code == diagnostic.code }) {
            codeCounts[diagnostic.code, default: 0] += 1
        }
        // A URL may be named twice in one payload (two OneSignal keys): it still counts once for that payload.
        var seen: Set<String> = []
        for verdict in record.media where seen.insert(verdict.key).inserted {
            if let known = media[verdict.key] {
                media[verdict.key] = (known.verdict, known.payloads + 1)
            } else {
                media[verdict.key] = (verdict, 1)
            }
        }
    }

    /// Distinct media URLs, worst first: failures, then warnings, then clean;
    /// within each, the most payloads first, then by URL.
    public var mediaByImpact: [(verdict: MediaVerdict, payloads: Int)] {
        media.values.sorted {
            if $0.verdict.severityRank != $1.verdict.severityRank { return $0.verdict.severityRank > $1.verdict.severityRank }
            if $0.payloads != $1.payloads { return $0.payloads > $1.payloads }
            return $0.verdict.key < $1.verdict.key
        }
    }

    /// Codes by count, most first, then by name.
    public var codesByCount: [(code: String, payloads: Int)] {
        codeCounts.map { ($0.key, $0.value) }.sorted {
            $0.payloads != $1.payloads ? $0.payloads > $1.payloads : $0.code < $1.code
        }
    }

    public var json: JSONValue {
        .object([
            JSONMember("summary", .object([
                JSONMember("payloads", .int(payloads)),
                JSONMember("passed", .int(passed)),
                JSONMember("failed", .int(failed)),
                JSONMember("interrupted", .bool(interrupted)),
                JSONMember("diagnostics", .object(codesByCount.map { JSONMember($0.code, .int($0.payloads)) })),
                JSONMember("media", .array(mediaByImpact.map { entry in
                    guard case .object(var members) = entry.verdict.json else { return .null }
                    members.append(JSONMember("payloads", .int(entry.payloads)))
                    return .object(members)
                })),
            ])),
        ])
    }
}

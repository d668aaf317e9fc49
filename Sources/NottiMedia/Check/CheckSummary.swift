/// What a campaign manager reads at the end: how many payloads passed and
/// failed, which codes came up, and per distinct media URL its verdict and
/// how many payloads it hits, worst first.
public struct CheckSummary: Sendable {
    public var payloads = 0
    public var passed = 0
    public var failed = 0
    /// True when the run was cancelled before it finished: the counts cover what finished.
    public var interrupted = false
    /// Warnings failed payloads too (`--strict`).
    public var strict = false
    /// The shard this run checked (`--shard I/N`), if it checked one.
    public var shard: (index: Int, count: Int)?
    /// A digest of the run's operands: shards of one input carry the same one, so `merge` can tell.
    public var operandsDigest: String?

    /// The digest of a command line's operands, as `operandsDigest` holds it.
    public static func digest(ofOperands operands: [String]) -> String {
        let joined: String = operands.joined(separator: "\u{0}")
        return SHA256.hex(of: Array(joined.utf8))
    }
    /// Payloads per diagnostic code.
    public var codeCounts: [String: Int] = [:]
    /// Per media URL and SDK: its verdict and the payloads naming it.
    private var media: [String: (verdict: MediaVerdict, payloads: Int)] = [:]
    /// Per media host: what every phone pulls from it at send time.
    private var hosts: [String: HostLoad] = [:]
    /// The networks reported on, and per network the payloads whose media misses the deadline there.
    public let networks: [NetworkProfile]
    private var missing: [Int]

    /// What one media host must serve when the campaign goes out: every payload's
    /// phone downloads its media at once.
    public struct HostLoad: Sendable, Equatable {
        public var host: String
        /// Downloads at send time: payloads (phones) requesting media from it.
        public var downloads = 0
        /// Bytes those downloads pull: the sum over payloads of their media's bytes.
        public var bytes = 0
        /// The part of `bytes` a CDN will not cache: all of it comes from the origin.
        public var notCacheableBytes = 0
    }

    /// - Parameter networks: the networks to count missed deadlines on (`NetworkProfile.summarized`).
    public init(networks: [NetworkProfile] = NetworkProfile.presets) {
        self.networks = networks
        missing = Array(repeating: 0, count: networks.count)
    }

    private static func count(_ verdict: MediaVerdict, in load: inout HostLoad) {
        load.downloads += 1
        load.bytes += verdict.bytes ?? 0
        if verdict.notCacheable { load.notCacheableBytes += verdict.bytes ?? 0 }
    }

    mutating func add<Rendered>(_ record: CheckRecord<Rendered>) {
        payloads += 1
        if record.passed { passed += 1 } else { failed += 1 }
        for (position, diagnostic) in record.diagnostics.enumerated()
        where !record.diagnostics[..<position].contains(where: { $0.code == diagnostic.code }) {
            codeCounts[diagnostic.code, default: 0] += 1
        }
        // A URL may be named twice in one payload (two OneSignal keys): it still counts once for that payload.
        var seen: Set<String> = []
        var requested: Set<String> = []
        let several = record.media.count > 1
        // Each count is one hash lookup, changed in place: this runs for every payload of a campaign.
        for verdict in record.media {
            let key = verdict.key
            if several && !seen.insert(key).inserted { continue }
            if let index = media.index(forKey: key) {
                media.values[index].payloads += 1
            } else {
                media[key] = (verdict, 1)
            }
            // One phone requests each distinct URL once, whichever SDK reads it.
            if let host = verdict.host, !several || requested.insert(verdict.url).inserted {
                Self.count(verdict, in: &hosts[host, default: HostLoad(host: host)])
            }
        }
        for index in networks.indices where record.media.contains(where: { $0.misses[index] }) {
            missing[index] += 1
        }
    }

    /// Adds a media verdict named by `payloads` more payloads (a shard's summary, when merging).
    mutating func addMedia(_ verdict: MediaVerdict, payloads: Int) {
        if let known = media[verdict.key] {
            media[verdict.key] = (known.verdict, known.payloads + payloads)
        } else {
            media[verdict.key] = (verdict, payloads)
        }
    }

    /// Adds a host's load (a shard's summary, when merging).
    mutating func addLoad(_ load: HostLoad) {
        var total = hosts[load.host] ?? HostLoad(host: load.host)
        total.downloads += load.downloads
        total.bytes += load.bytes
        total.notCacheableBytes += load.notCacheableBytes
        hosts[load.host] = total
    }

    /// Adds payloads missing media on the network at `index` (a shard's summary, when merging).
    mutating func addMissing(at index: Int, _ payloads: Int) {
        missing[index] += payloads
    }

    /// Media hosts, the most bytes first, then by name.
    public var hostLoads: [HostLoad] {
        hosts.values.sorted { $0.bytes != $1.bytes ? $0.bytes > $1.bytes : $0.host < $1.host }
    }

    /// Per network, the payloads whose media cannot arrive within the deadline there.
    public var payloadsMissing: [(network: NetworkProfile, payloads: Int)] {
        zip(networks, missing).map { ($0, $1) }
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
                JSONMember("strict", .bool(strict)),
                JSONMember("shard", shard.map { .object([JSONMember("index", .int($0.index)), JSONMember("count", .int($0.count))]) } ?? .null),
                JSONMember("operands", .optional(operandsDigest)),
                JSONMember("diagnostics", .object(codesByCount.map { JSONMember($0.code, .int($0.payloads)) })),
                JSONMember("hosts", .array(hostLoads.map { load in
                    .object([
                        JSONMember("host", .string(load.host)), JSONMember("downloads", .int(load.downloads)),
                        JSONMember("bytes", .int(load.bytes)), JSONMember("notCacheableBytes", .int(load.notCacheableBytes)),
                    ])
                })),
                JSONMember("networks", .array(payloadsMissing.map { entry in
                    .object([
                        JSONMember("network", .string(entry.network.name)),
                        JSONMember("kbitsPerSecond", .number(entry.network.kbitsPerSecond.text)),
                        JSONMember("rttMs", .number(entry.network.rttMilliseconds.text)),
                        JSONMember("payloadsMissingMedia", .int(entry.payloads)),
                    ])
                })),
                JSONMember("media", .array(mediaByImpact.map { entry in
                    guard case .object(var members) = entry.verdict.json else { return .null }
                    members.append(JSONMember("payloads", .int(entry.payloads)))
                    return .object(members)
                })),
            ])),
        ])
    }
}

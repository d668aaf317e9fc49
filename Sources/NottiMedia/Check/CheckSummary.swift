/// What a campaign manager reads at the end: how many payloads passed and
/// failed, which codes came up, and per distinct media URL its verdict and
/// how many payloads it hits, worst first.
public struct CheckSummary: Sendable {
    /// Inputs checked: payloads and requests as read (an FCM or platform request is one input, and
    /// one record per platform it reaches). `payloads`, `passed` and `failed` count records.
    public var inputs = 0
    /// Records: one per delivery checked (an APNs payload's one, a request's one per platform).
    public var payloads = 0
    public var passed = 0
    public var failed = 0
    /// True when the run was cancelled before it finished: the counts cover what finished.
    public var interrupted = false
    /// When interrupted: records that finished after the first one still running, so were not written.
    public var finishedOutOfOrder = 0
    /// Warnings failed payloads too (`--strict`).
    package var strict = false
    /// False under `--no-decode`: no file was read by the phone's decoders (said in both outputs).
    package var decoded = true
    /// The shard this run checked (`--shard I/N`), if it checked one.
    package var shard: (index: Int, count: Int)?
    /// A digest of the run's operands: shards of one input carry the same one, so `merge` can tell.
    package var operandsDigest: String?
    /// How long the check took, and when it started (UTC, ISO 8601): its `timings`,
    /// which like a media result's are not deterministic. For a merge, the shards'.
    package var seconds: Double?
    package var startedAt: String?

    /// The digest of a command line's operands, as `operandsDigest` holds it.
    package static func digest(ofOperands operands: [String]) -> String {
        let joined: String = operands.joined(separator: "\u{0}")
        return SHA256.hex(of: Array(joined.utf8))
    }
    /// Payloads per diagnostic code.
    package var codeCounts = CodeCounts()
    /// Per distinct media URL: each profile's verdict on it and the payloads naming it, bounded in memory.
    package let media: MediaTally
    package typealias URLMedia = MediaTally.URLMedia

    /// Per media host: what every phone pulls from it at send time (a list found through `hostSlots`, as `media`).
    private var hosts: [HostLoad] = []
    private var hostSlots: [String: Int] = [:]
    /// The networks reported on, and per network the payloads whose media misses the deadline there.
    package let networks: [NetworkProfile]
    private var missing: [Int]

    /// What one media host must serve when the campaign goes out: every payload's
    /// phone downloads its media at once.
    package struct HostLoad: Sendable, Equatable {
        package var host: String
        /// Downloads at send time: payloads (phones) requesting media from it.
        package var downloads = 0
        /// Bytes those downloads pull: the sum over payloads of their media's bytes.
        package var bytes = 0
        /// The part of `bytes` a CDN will not cache: all of it comes from the origin.
        package var notCacheableBytes = 0
        /// The first of iOS's connection rules this server breaks (`ats_violation`), if any: iPhones refuse it.
        package var atsViolation: String?
        /// Records whose media iPhones refuse on this server (`ats_violation`).
        package var atsViolationRecords = 0
        /// Its certificate's end, seconds since 1970, when within 30 days of the check (`certificate_expiring`).
        package var certificateNotAfter: Int?
        /// Records whose media comes from a server whose certificate ends within 30 days.
        package var certificateExpiringRecords = 0
        /// The first payload file naming it, where a CI format that needs a file puts a finding about the host.
        package var firstFile: String?
    }

    /// One finding about a host (SPEC 10): said once per host and run, with how many records it touches.
    package struct HostFinding: Sendable {
        package var host: String
        package var code: DiagnosticCode
        package var severity: Diagnostic.Severity
        package var message: String
        package var records: Int
        package var firstFile: String?
    }

    /// The findings about hosts, an `ats_violation` before a `certificate_expiring`, hosts in order seen.
    package var hostFindings: [HostFinding] {
        hosts.flatMap { load -> [HostFinding] in
            var found: [HostFinding] = []
            if let rule = load.atsViolation, load.atsViolationRecords > 0 {
                found.append(HostFinding(
                    host: load.host, code: .atsViolation, severity: .error,
                    message: "iPhones refuse the connection to \(load.host) (\(rule)), though curl and Android connect: "
                        + "\(load.atsViolationRecords) record\(load.atsViolationRecords == 1 ? "" : "s") show\(load.atsViolationRecords == 1 ? "s" : "") "
                        + "no media on iOS (each record's JSON has the rule's field and value); \(DiagnosticCode.atsViolation.fix)",
                    records: load.atsViolationRecords, firstFile: load.firstFile))
            }
            if let notAfter = load.certificateNotAfter, load.certificateExpiringRecords > 0 {
                found.append(HostFinding(
                    host: load.host, code: .certificateExpiring, severity: .warning,
                    message: "the certificate of \(load.host) expires on \(CertificateFacts.date(notAfter)) (notAfter "
                        + "\(CertificateFacts.timestamp(notAfter))), within 30 days: a campaign sent after that fails on every phone "
                        + "(\(load.certificateExpiringRecords) record\(load.certificateExpiringRecords == 1 ? "" : "s")); "
                        + DiagnosticCode.certificateExpiring.fix,
                    records: load.certificateExpiringRecords, firstFile: load.firstFile))
            }
            return found
        }
    }

    /// - Parameters:
    ///   - networks: the networks to count missed deadlines on (`NetworkProfile.summarized`).
    ///   - scratchFolder: where the media list goes past a few thousand URLs (nil: memory).
    package init(networks: [NetworkProfile] = NetworkProfile.presets, scratchFolder: String? = nil) {
        media = MediaTally(folder: scratchFolder)
        self.networks = networks
        missing = Array(repeating: 0, count: networks.count)
    }

    private static func count(_ verdict: MediaVerdict, in load: inout HostLoad) {
        load.downloads += 1
        load.bytes += verdict.bytes ?? 0
        if verdict.notCacheable { load.notCacheableBytes += verdict.bytes ?? 0 }
    }

    /// The profiles payloads were checked under, in `--sdk`'s order.
    package var profiles: [SDK] { SDK.allCases.filter { profileSeen[$0.ordinal] } }
    private var profileSeen = Array(repeating: false, count: SDK.allCases.count)
    /// The Android profiles records were checked under (send requests), in `--sdk`'s order.
    package var androidProfiles: [SDK] { SDK.allCases.filter { androidSeen[$0.ordinal] } }
    private var androidSeen = Array(repeating: false, count: SDK.allCases.count)

    /// Inputs with no delivery for `--platform`, not checked (not part of the JSON).
    public package(set) var skipped = 0
    /// Per platform: records, passed, failed (a send request counts once per platform checked).
    public struct PlatformCounts: Sendable, Equatable {
        public var payloads = 0
        public var passed = 0
        public var failed = 0
    }

    /// By `Platform.ordinal`: counted in place for every record, not hashed.
    private var platformCounts = [PlatformCounts](repeating: PlatformCounts(), count: Platform.allCases.count)

    /// The records, passed and failed of one platform.
    public func counts(for platform: Platform) -> PlatformCounts { platformCounts[platform.ordinal] }

    mutating func add(_ record: CheckRecord) {
        payloads += 1
        platformCounts[record.platform.ordinal].payloads += 1
        if record.passed { platformCounts[record.platform.ordinal].passed += 1 } else { platformCounts[record.platform.ordinal].failed += 1 }
        if record.platform == .android { androidSeen[record.sdk.ordinal] = true } else { profileSeen[record.sdk.ordinal] = true }
        if record.passed { passed += 1 } else { failed += 1 }
        for (position, diagnostic) in record.diagnostics.enumerated()
        where !record.diagnostics[..<position].contains(where: {
            $0.code == diagnostic.code && (diagnostic.code != .unrecognised || $0.codeText == diagnostic.codeText)
        }) {
            codeCounts.add(diagnostic)
        }
        // A URL may be named twice in one payload (two OneSignal keys): it still counts once for that payload.
        // Likewise a host's findings count each record once.
        var refusedHosts: Set<Int> = []
        var expiringHosts: Set<Int> = []
        var seen: Set<String> = []
        var requested: Set<String> = []
        let several = record.media.count > 1
        // Each count is one hash lookup, changed in place: this runs for every payload of a campaign.
        for verdict in record.media {
            if several && !seen.insert(verdict.url).inserted { continue }
            let slot = recentSlot(of: verdict)
            let known = media.withRow(slot) { row in
                if !row.countIfSoleProfile(verdict) { row.add(verdict, payloads: 1) }
                return row.hostSlot
            }
            // One phone requests each distinct URL once, whichever SDK reads it.
            if verdict.requestedAtSendTime, let host = verdict.host, !several || requested.insert(verdict.url).inserted {
                let hostSlot = known ?? self.hostSlot(host)
                if known == nil { media.withRow(slot) { $0.hostSlot = hostSlot } }
                Self.count(verdict, in: &hosts[hostSlot])
            }
            if let refused = verdict.refusedConnection {
                // Named once per host, with the first rule seen (a redirect's host too, which no download counts).
                let hostSlot = self.hostSlot(refused.host)
                hosts[hostSlot].atsViolation = hosts[hostSlot].atsViolation ?? refused.rule
                if refusedHosts.insert(hostSlot).inserted {
                    hosts[hostSlot].atsViolationRecords += 1
                    hosts[hostSlot].firstFile = hosts[hostSlot].firstFile ?? Self.file(of: record.source)
                }
            }
            if let expiring = verdict.expiringCertificate {
                let hostSlot = self.hostSlot(expiring.host)
                hosts[hostSlot].certificateNotAfter = hosts[hostSlot].certificateNotAfter ?? expiring.notAfter
                if expiringHosts.insert(hostSlot).inserted {
                    hosts[hostSlot].certificateExpiringRecords += 1
                    hosts[hostSlot].firstFile = hosts[hostSlot].firstFile ?? Self.file(of: record.source)
                }
            }
        }
        for index in networks.indices where record.media.contains(where: { $0.requestedAtSendTime && $0.misses[index] }) {
            missing[index] += 1
        }
    }

    /// The slots of verdicts counted lately, by the verdict object: a record's verdict is mostly
    /// the one its download's memo made once, so most records find their URL's slot without
    /// hashing it. Direct-mapped; each entry holds its verdict, so no other takes its address.
    /// Each holds the tally's `generation` it was made in: a slot of an earlier one was renumbered.
    private var recentSlots = [(verdict: MediaVerdict, slot: Int, generation: Int)?](repeating: nil, count: 64)

    /// The slot of `verdict`'s URL in `media`.
    private mutating func recentSlot(of verdict: MediaVerdict) -> Int {
        let bucket = Int(truncatingIfNeeded: UInt(bitPattern: ObjectIdentifier(verdict)) >> 4) & (recentSlots.count - 1)
        if let recent = recentSlots[bucket], recent.verdict === verdict, recent.generation == media.generation { return recent.slot }
        let slot = media.slot(verdict.url)
        recentSlots[bucket] = (verdict, slot, media.generation)
        return slot
    }

    /// The payload file of a record's source: `path` of `path:7#android` (a line's number, or an array
    /// element's, is digits after the last colon).
    static func file(of source: String) -> String {
        var file = Platform.splitDelivery(source).path
        if let colon = file.lastIndex(of: ":"), Int(file[file.index(after: colon)...]) != nil { file = file[..<colon] }
        return String(file)
    }

    /// The slot of `host` in `hosts`, made when it is new.
    private mutating func hostSlot(_ host: String) -> Int {
        if let slot = hostSlots[host] { return slot }
        hosts.append(HostLoad(host: host))
        hostSlots[host] = hosts.count - 1
        return hosts.count - 1
    }

    /// Adds a shard's counts for one platform (when merging).
    mutating func addPlatform(_ platform: Platform, payloads: Int, passed: Int, failed: Int) {
        platformCounts[platform.ordinal].payloads += payloads
        platformCounts[platform.ordinal].passed += passed
        platformCounts[platform.ordinal].failed += failed
    }

    /// Adds a media verdict named by `payloads` more payloads (a shard's summary, when merging).
    mutating func addMedia(_ verdict: MediaVerdict, payloads: Int) {
        media.withRow(media.slot(verdict.url)) { $0.add(verdict, payloads: payloads) }
    }

    /// Adds a host's load (a shard's summary, when merging).
    mutating func addLoad(_ load: HostLoad) {
        let slot = hostSlot(load.host)
        hosts[slot].downloads += load.downloads
        hosts[slot].bytes += load.bytes
        hosts[slot].notCacheableBytes += load.notCacheableBytes
        hosts[slot].atsViolation = hosts[slot].atsViolation ?? load.atsViolation
        hosts[slot].atsViolationRecords += load.atsViolationRecords
        hosts[slot].certificateNotAfter = hosts[slot].certificateNotAfter ?? load.certificateNotAfter
        hosts[slot].certificateExpiringRecords += load.certificateExpiringRecords
        hosts[slot].firstFile = hosts[slot].firstFile ?? load.firstFile
    }

    /// Adds payloads missing media on the network at `index` (a shard's summary, when merging).
    mutating func addMissing(at index: Int, _ payloads: Int) {
        missing[index] += payloads
    }

    /// Media hosts, the most bytes first, then by name.
    package var hostLoads: [HostLoad] {
        hosts.sorted { $0.bytes != $1.bytes ? $0.bytes > $1.bytes : $0.host < $1.host }
    }

    /// Per network, the payloads whose media cannot arrive within the deadline there.
    public var payloadsMissing: [(network: NetworkProfile, payloads: Int)] {
        zip(networks, missing).map { ($0, $1) }
    }

    /// Codes by count, most first, then by name.
    package var codesByCount: [(code: String, payloads: Int)] { codeCounts.byCount }

    /// The summary record, `{"summary": {...}}`, with every media URL: built whole (a library
    /// caller's value; `writeJSON` is what the tool prints, a URL at a time).
    public var json: JSONValue {
        var text = ""
        writeJSON { text += $0 }
        return (try? JSONParser.parse(Array(text.utf8))) ?? .null
    }

    /// Writes the summary record in parts, the media list an entry at a time: a campaign
    /// with a URL per recipient is never held whole.
    package func writeJSON(_ write: (String) -> Void) {
        var head = JSONWriter.string(headJSON)
        // The media list is the summary's last member: written after the rest, without it.
        head.removeLast(2)
        write(head + #","media":["#)
        var first = true
        media.list { entry in
            write(first ? entry.json : "," + entry.json)
            first = false
        }
        write("]}}")
    }

    private var headJSON: JSONValue {
        .object([
            JSONMember("summary", .object([
                JSONMember("inputs", .int(inputs)),
                JSONMember("payloads", .int(payloads)),
                JSONMember("passed", .int(passed)),
                JSONMember("failed", .int(failed)),
                JSONMember("platforms", .object(Platform.allCases.map { platform in
                    let counts = counts(for: platform)
                    return JSONMember(platform.rawValue, .object([
                        JSONMember("payloads", .int(counts.payloads)), JSONMember("passed", .int(counts.passed)),
                        JSONMember("failed", .int(counts.failed)),
                    ]))
                })),
                JSONMember("interrupted", .bool(interrupted)),
                JSONMember("strict", .bool(strict)),
            ] + (decoded ? [] : [JSONMember("decoded", .bool(false))]) + [
                JSONMember("shard", shard.map { .object([JSONMember("index", .int($0.index)), JSONMember("count", .int($0.count))]) } ?? .null),
                JSONMember("operands", .optional(operandsDigest)),
                JSONMember("timings", seconds == nil && startedAt == nil ? .null : .object([
                    JSONMember("seconds", seconds.map { .number(NumberText.decimal(($0 * 1000).rounded() / 1000)) } ?? .null),
                    JSONMember("startedAt", .optional(startedAt)),
                ])),
                JSONMember("diagnostics", .object(codesByCount.map { JSONMember($0.code, .int($0.payloads)) })),
                JSONMember("hosts", .array(hostLoads.map { load in
                    .object([
                        JSONMember("host", .string(load.host)), JSONMember("downloads", .int(load.downloads)),
                        JSONMember("bytes", .int(load.bytes)), JSONMember("notCacheableBytes", .int(load.notCacheableBytes)),
                        JSONMember("atsViolation", .optional(load.atsViolation)),
                        JSONMember("atsViolationRecords", .int(load.atsViolationRecords)),
                        JSONMember("certificateExpires", load.certificateNotAfter.map { .string(CertificateFacts.timestamp($0)) } ?? .null),
                        JSONMember("certificateExpiringRecords", .int(load.certificateExpiringRecords)),
                        JSONMember("firstFile", .optional(load.firstFile)),
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
            ])),
        ])
    }
}

/// What `merge` needs to join the JSON outputs of a sharded `check`: the
/// reports read back from their lines, and the shards' summaries added up into
/// the summary one unsharded run would have printed.
extension Report {
    /// A report read back from one line of `check --format json`, with what the
    /// text and JUnit outputs show: source, position, SDK, outcome, findings.
    /// (Media facts and content stay in the line, which `merge` copies as it is.)
    /// - Returns: nil when `json` is not a report.
    package init?(json: JSONValue, strict: Bool) {
        guard case .string(let source)? = json["source"], case .string(let outcomeText)? = json["outcome"],
              let outcome = Outcome(rawValue: outcomeText), case .array(let findings)? = json["diagnostics"]
        else { return nil }
        var diagnostics: [Diagnostic] = []
        for finding in findings {
            guard case .string(let severityText)? = finding["severity"], let severity = Diagnostic.Severity(rawValue: severityText),
                  case .string(let code)? = finding["code"], case .string(let message)? = finding["message"]
            else { return nil }
            var diagnostic = Diagnostic(severity, code: code, message, line: finding["line"]?.intValue, column: finding["column"]?.intValue)
            diagnostic.entry = finding["entry"]?.stringValue
            diagnostics.append(diagnostic)
        }
        let sdk = json["sdk"]?.stringValue.flatMap(SDK.init(rawValue:)) ?? .notti
        let reason = json["reason"]?.stringValue.flatMap(DiagnosticCode.init(rawValue:))
        self.init(
            source: source, sdk: sdk, outcome: outcome, reason: reason, media: .none, diagnostics: diagnostics,
            contentSource: json["content"].map { .value($0) } ?? .none, attachments: [], strict: strict)
        index = json["index"]?.intValue
        if case .bool(true)? = json["sourceIsLine"] { sourceIsLine = true }
        if case .bool(true)? = json["sdkDetected"] { sdkDetected = true }
        platform = json["platform"]?.stringValue.flatMap(Platform.init(rawValue:)) ?? .ios
    }
}

extension CheckSummary {
    /// The shard and operands a summary line (`{"summary": {...}}`) names, and its payload count.
    package struct ShardTag: Sendable, Equatable {
        package var index: Int
        package var count: Int
        package var operands: String
        package var payloads: Int
        package var interrupted: Bool
    }

    /// Reads the shard tag of a summary record; nil when it is not one.
    package static func shardTag(of record: JSONValue) -> ShardTag? {
        guard let summary = record["summary"], case .string(let operands)? = summary["operands"],
              let payloads = summary["payloads"]?.intValue
        else { return nil }
        let interrupted = summary["interrupted"] == .bool(true)
        guard let shard = summary["shard"], shard != .null else {
            return ShardTag(index: 1, count: 1, operands: operands, payloads: payloads, interrupted: interrupted)
        }
        guard let index = shard["index"]?.intValue, let count = shard["count"]?.intValue else { return nil }
        return ShardTag(index: index, count: count, operands: operands, payloads: payloads, interrupted: interrupted)
    }

    /// The summary one unsharded run prints, from its shards' summary records:
    /// counts add up, each media URL's payloads add up, each host's load and each
    /// network's misses add up.
    /// - Returns: nil when a record is not a summary.
    package static func merged(from records: [JSONValue], scratchFolder: String? = nil) -> CheckSummary? {
        let summaries = records.compactMap { $0["summary"] }
        guard summaries.count == records.count, let first = summaries.first else { return nil }
        var networks: [NetworkProfile] = []
        if case .array(let listed)? = first["networks"] {
            for entry in listed {
                guard let name = entry["network"]?.stringValue,
                      let network = NetworkProfile(parsing: name)
                        ?? NetworkProfile(parsing: "\(entry["kbitsPerSecond"]?.numberText ?? "")/\(entry["rttMs"]?.numberText ?? "")")
                else { return nil }
                networks.append(NetworkProfile(name: name, kbitsPerSecond: network.kbitsPerSecond, rttMilliseconds: network.rttMilliseconds))
            }
        }
        var merged = CheckSummary(networks: networks, scratchFolder: scratchFolder)
        merged.strict = first["strict"] == .bool(true)
        merged.decoded = first["decoded"] != .bool(false)
        merged.operandsDigest = first["operands"]?.stringValue
        for summary in summaries {
            merged.payloads += summary["payloads"]?.intValue ?? 0
            // A shard written before inputs were counted apart: its records are its inputs.
            merged.inputs += summary["inputs"]?.intValue ?? summary["payloads"]?.intValue ?? 0
            merged.passed += summary["passed"]?.intValue ?? 0
            merged.failed += summary["failed"]?.intValue ?? 0
            merged.interrupted = merged.interrupted || summary["interrupted"] == .bool(true)
            for platform in Platform.allCases {
                guard let counts = summary["platforms"]?[platform.rawValue], (counts["payloads"]?.intValue ?? 0) > 0 else { continue }
                merged.addPlatform(
                    platform, payloads: counts["payloads"]?.intValue ?? 0, passed: counts["passed"]?.intValue ?? 0,
                    failed: counts["failed"]?.intValue ?? 0)
            }
            if case .object(let codes)? = summary["diagnostics"] {
                for code in codes { merged.codeCounts.add(codeText: code.key, payloads: code.value.intValue ?? 0) }
            }
            if case .array(let media)? = summary["media"] {
                for entry in media {
                    guard case .array(let profiles)? = entry["profiles"] else { return nil }
                    for profile in profiles {
                        guard let verdict = MediaVerdict(json: profile), let payloads = profile["payloads"]?.intValue else { return nil }
                        merged.addMedia(verdict, payloads: payloads)
                    }
                }
            }
            if case .array(let hosts)? = summary["hosts"] {
                for entry in hosts {
                    guard let host = entry["host"]?.stringValue else { return nil }
                    merged.addLoad(HostLoad(
                        host: host, downloads: entry["downloads"]?.intValue ?? 0, bytes: entry["bytes"]?.intValue ?? 0,
                        notCacheableBytes: entry["notCacheableBytes"]?.intValue ?? 0, atsViolation: entry["atsViolation"]?.stringValue,
                        atsViolationRecords: entry["atsViolationRecords"]?.intValue ?? 0,
                        certificateNotAfter: entry["certificateExpires"]?.stringValue.flatMap(CertificateFacts.seconds(fromTimestamp:)),
                        certificateExpiringRecords: entry["certificateExpiringRecords"]?.intValue ?? 0,
                        firstFile: entry["firstFile"]?.stringValue))
                }
            }
            if case .array(let listed)? = summary["networks"] {
                for (index, entry) in listed.enumerated() where index < networks.count {
                    merged.addMissing(at: index, entry["payloadsMissingMedia"]?.intValue ?? 0)
                }
            }
            // The check's own time: the shards' seconds add up (as a JUnit report's suites
            // do), and it started when the first shard did.
            if let timings = summary["timings"] {
                if let seconds = timings["seconds"]?.numberText.flatMap(Double.init) { merged.seconds = (merged.seconds ?? 0) + seconds }
                if let started = timings["startedAt"]?.stringValue, merged.startedAt.map({ started < $0 }) ?? true {
                    merged.startedAt = started
                }
            }
        }
        return merged
    }
}

extension JSONValue {
    /// A number's literal text, or nil.
    var numberText: String? {
        if case .number(let text) = self { return text }
        return nil
    }
}

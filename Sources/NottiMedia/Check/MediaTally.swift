/// The summary's media list (SPEC 13): per distinct media URL, each profile's verdict and
/// the records naming it, listed worst first, in memory bounded whatever the number of URLs.
///
/// Counting stays in a table of at most `tableBound` URLs, so a campaign that repeats a few
/// URLs counts each record in place. When the table is full its rows go, as one line each,
/// to a `LineSorter` by URL (on disk past 1 MB, in the run's scratch folder); at the end
/// the lines of one URL (a URL counted again after its row left) are added up, and each URL's
/// entry is sorted once more, by impact. A campaign with a URL per recipient so holds about
/// `tableBound` rows and two sorters' buffers, where it held every URL's verdict objects.
///
/// Used by the writer thread (counting) and then by the outputs (`list`), never at once.
package final class MediaTally: @unchecked Sendable {
    /// One distinct media URL of the run: one download, judged by each profile
    /// that read it (one, unless `--sdk auto` met several).
    package struct URLMedia: Sendable {
        package var url: String
        /// Each profile's verdict and its payloads, in `--sdk`'s order.
        package var profiles: [(verdict: MediaVerdict, payloads: Int)] = []
        /// The slot of the host phones request the URL from (one URL, one host), once counted:
        /// no second hash per record.
        var hostSlot: Int?
        /// The profile of `profiles[0]` while it is the only one: compared without reading
        /// (and so copying) the verdict out of the list, per record.
        private var soleProfile: (sdk: SDK, platform: Platform)?

        package init(url: String) { self.url = url }

        /// Payloads naming the URL, under any profile.
        package var payloads: Int { profiles.reduce(0) { $0 + $1.payloads } }
        /// The worst of its profiles' verdicts (the first in `--sdk`'s order among equals).
        package var worst: MediaVerdict {
            profiles.map(\.verdict).max { $0.severityRank < $1.severityRank || ($0.severityRank == $1.severityRank && $0.sdk.ordinal > $1.sdk.ordinal) }!
        }

        /// Counts one more payload for `verdict` when it is the URL's one profile, in place; false when it is not.
        mutating func countIfSoleProfile(_ verdict: MediaVerdict) -> Bool {
            guard profiles.count == 1, soleProfile?.sdk == verdict.sdk, soleProfile?.platform == verdict.platform else { return false }
            profiles[0].payloads += 1
            return true
        }

        package mutating func add(_ verdict: MediaVerdict, payloads: Int) {
            if let index = profiles.firstIndex(where: { $0.verdict.sdk == verdict.sdk && $0.verdict.platform == verdict.platform }) {
                profiles[index].payloads += payloads
            } else {
                profiles.append((verdict, payloads))
                soleProfile = profiles.count == 1 ? (verdict.sdk, verdict.platform) : nil
                // iOS's profiles first, then Android's, each in --sdk's order.
                profiles.sort { ($0.verdict.platform == .android ? 1 : 0, $0.verdict.sdk.ordinal) < ($1.verdict.platform == .android ? 1 : 0, $1.verdict.sdk.ordinal) }
            }
        }

        /// The summary's JSON entry: the worst verdict's fields and every payload naming it, then
        /// each profile's own verdict and payloads.
        package var json: JSONValue {
            guard case .object(var members) = worst.json else { return .null }
            members.append(JSONMember("payloads", .int(payloads)))
            members.append(JSONMember("profiles", .array(profiles.map { profile in
                guard case .object(var members) = profile.verdict.json else { return .null }
                members.append(JSONMember("payloads", .int(profile.payloads)))
                return .object(members)
            })))
            return .object(members)
        }

        /// An entry read back from its JSON (a sorted line, or a shard's summary).
        package init?(json: JSONValue) {
            guard case .string(let url)? = json["url"], case .array(let listed)? = json["profiles"] else { return nil }
            self.url = url
            for profile in listed {
                guard let verdict = MediaVerdict(json: profile), let payloads = profile["payloads"]?.intValue else { return nil }
                add(verdict, payloads: payloads)
            }
        }
    }

    /// One entry of the list, as the outputs read it.
    package struct Listed {
        /// The summary's JSON entry, as `--format json` writes it.
        package let json: String
        package let url: String
        package let payloads: Int
        /// Each profile's payloads, in the entry's order.
        package let profilePayloads: [Int]
        /// Equal for URLs whose downloads have the same content and the same verdicts (SPEC 13's rows).
        package let signature: String
        /// The entry, read back.
        package var media: URLMedia? { (try? JSONParser.parse(Array(json.utf8))).flatMap(URLMedia.init(json:)) }
    }

    private let tableBound: Int
    private var table: [URLMedia] = []
    private var slots: [String: Int] = [:]
    /// Rows that left the table, by URL: `url \t order \t entry line`.
    private let byURL: LineSorter
    /// Rows that left the table so far, for their order among equal URLs.
    private var spilled = 0
    /// The finished list, by impact (see `entryLine`); made by `finish`.
    private var byImpact: SortedLines?
    private let impactSorter: LineSorter
    /// Set by `finish`: distinct URLs, and every byte the run downloaded, once per distinct URL (the largest
    /// of its profiles' figures).
    private var distinctURLs = 0
    private var downloadedBytes = 0

    /// - Parameters:
    ///   - folder: where the sorters' runs go (the run's scratch folder); nil keeps them in memory.
    ///   - tableBound: the most URLs counted in place.
    ///   - runBytes: the sorters' memory before they write a run (small in tests, to make runs).
    package init(folder: String?, tableBound: Int = 2_048, runBytes: Int = 1 << 20) {
        self.tableBound = max(1, tableBound)
        byURL = LineSorter(folder: folder, runBytes: runBytes)
        impactSorter = LineSorter(folder: folder, runBytes: runBytes)
    }

    /// The table slot of `url`, made when it is new (the table's rows leave first when it is full).
    package func slot(_ url: String) -> Int {
        if let slot = slots[url] { return slot }
        if table.count >= tableBound { spillTable() }
        table.append(URLMedia(url: url))
        slots[url] = table.count - 1
        return table.count - 1
    }

    /// The row at `slot`, changed in place.
    package func withRow<T>(_ slot: Int, _ body: (inout URLMedia) -> T) -> T { body(&table[slot]) }

    /// Bumped whenever slots are renumbered (the table left): a caller's remembered slots are stale.
    private(set) var generation = 0

    private func spillTable() {
        for row in table {
            byURL.add(Array("\(Self.escaped(row.url))\t\(Self.fixed(spilled))\t".utf8) + Self.entryLine(row))
            spilled += 1
        }
        table.removeAll(keepingCapacity: true)
        slots.removeAll(keepingCapacity: true)
        generation += 1
    }

    /// The list, worst first (failures, then warnings, then clean; within each the most
    /// payloads first, then by URL). The first call ends the counting.
    package func list(_ body: (Listed) -> Void) {
        finish()
        byImpact?.forEach { line in if let listed = Self.listed(line) { body(listed.listed) } }
    }

    /// Distinct URLs and the bytes downloaded for them; the first call ends the counting.
    package var totals: (urls: Int, bytes: Int) {
        finish()
        return (distinctURLs, downloadedBytes)
    }

    /// Ends the counting: the lines of one URL (counted again after its row left the
    /// table) added up, then each URL's entry sorted by impact.
    private func finish() {
        guard byImpact == nil else { return }
        spillTable()
        var url: [UInt8] = []
        var entries: [[UInt8]] = []
        func endURL() {
            if entries.count == 1 {
                // A URL's only line goes on as it is, not parsed again.
                impactSorter.add(entries[0])
            } else if var combined = entries.first.flatMap(Self.row) {
                for row in entries.dropFirst().compactMap(Self.row) {
                    for profile in row.profiles { combined.add(profile.verdict, payloads: profile.payloads) }
                }
                impactSorter.add(Self.entryLine(combined))
            }
            entries = []
        }
        byURL.drain { line in
            guard let tab = line.firstIndex(of: 0x09), let second = line[(tab + 1)...].firstIndex(of: 0x09) else { return }
            if !line[..<tab].elementsEqual(url) {
                endURL()
                url = Array(line[..<tab])
            }
            entries.append(Array(line[(second + 1)...]))
        }
        endURL()
        let sorted = impactSorter.sorted()
        var (urls, bytes) = (0, 0)
        sorted.forEach { line in
            urls += 1
            bytes += Self.listed(line)?.bytes ?? 0
        }
        (distinctURLs, downloadedBytes) = (urls, bytes)
        byImpact = sorted
    }

    // MARK: - Lines

    /// `rank payloads url \t bytes \t profile payloads \t signature \t entry JSON`: sorted by their
    /// bytes, the list's order (the worst first, the most payloads, then the URL).
    static func entryLine(_ row: URLMedia) -> [UInt8] {
        let rank = 9 - row.worst.severityRank
        let key = "\(rank)\(fixed(Int.max - row.payloads))\(escaped(row.url))"
        let bytes = row.profiles.compactMap(\.verdict.bytes).max() ?? 0
        let counts = row.profiles.map { String($0.payloads) }.joined(separator: ",")
        let signature = row.profiles.map {
            "\($0.verdict.profileName) \($0.verdict.sha256 ?? "-") \($0.verdict.reason?.rawValue ?? "attached") "
                + "\($0.verdict.httpStatus.map(String.init) ?? "") \($0.verdict.type ?? "") \($0.verdict.bytes.map(String.init) ?? "") "
                + $0.verdict.warnings.map(\.codeText).joined(separator: ",")
        }.joined(separator: "|")
        return Array("\(key)\t\(bytes)\t\(counts)\t\(escaped(signature))\t\(JSONWriter.string(row.json))".utf8)
    }

    private static func row(_ entryLine: [UInt8]) -> URLMedia? {
        let parts = entryLine.split(separator: 0x09, maxSplits: 4, omittingEmptySubsequences: false)
        guard parts.count == 5, let json = try? JSONParser.parse(Array(parts[4])) else { return nil }
        return URLMedia(json: json)
    }

    private static func listed(_ line: [UInt8]) -> (listed: Listed, bytes: Int)? {
        let parts = line.split(separator: 0x09, maxSplits: 4, omittingEmptySubsequences: false)
        guard parts.count == 5, parts[0].count >= 20, let bytes = Int(String(decoding: parts[1], as: UTF8.self)),
              let inverse = Int(String(decoding: parts[0].dropFirst().prefix(19), as: UTF8.self))
        else { return nil }
        let listed = Listed(
            json: String(decoding: parts[4], as: UTF8.self), url: unescaped(String(decoding: parts[0].dropFirst(20), as: UTF8.self)),
            payloads: Int.max - inverse,
            profilePayloads: String(decoding: parts[2], as: UTF8.self).split(separator: ",").compactMap { Int($0) },
            signature: String(decoding: parts[3], as: UTF8.self))
        return (listed, bytes)
    }

    /// A number as 19 digits, so that bytes sort as numbers do.
    private static func fixed(_ number: Int) -> String {
        let digits = String(number)
        return String(repeating: "0", count: max(0, 19 - digits.count)) + digits
    }

    /// Text with no tab or newline (and no lone backslash), as a line's field.
    static func escaped(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == 0x09 || $0 == 0x0A || $0 == 0x5C }) else { return text }
        var out = ""
        for character in text.unicodeScalars {
            switch character {
            case "\\": out += "\\\\"
            case "\t": out += "\\t"
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(character)
            }
        }
        return out
    }

    static func unescaped(_ text: String) -> String {
        guard text.contains("\\") else { return text }
        var out = ""
        var escaping = false
        for character in text.unicodeScalars {
            if escaping {
                out.unicodeScalars.append(character == "t" ? "\t" : character == "n" ? "\n" : character)
                escaping = false
            } else if character == "\\" {
                escaping = true
            } else {
                out.unicodeScalars.append(character)
            }
        }
        return out
    }
}

import Foundation
import Testing
@testable import NottiMedia

/// docs/sdks.md's side-by-side table of the eight extensions says what the code does.
@Suite struct SDKTableTests {
    /// The table's rows, by the SDK in the first column, each cell's text.
    static func readmeRows() throws -> [String: [String]] {
        let readme = try String(contentsOf: Paths.packageRoot.appendingPathComponent("docs/sdks.md"), encoding: .utf8)
        var rows: [String: [String]] = [:]
        for line in readme.split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
                .map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count == 10, let name = cells.first?.trimmingCharacters(in: CharacterSet(charactersIn: "`")),
                  SDK(rawValue: name) != nil
            else { continue }
            rows[name] = cells
        }
        return rows
    }

    /// Tables with an entry per SDK (each profile's policy, other SDKs' key roots) are indexed by `ordinal`.
    @Test func ordinalsAreThePositionsInAllCases() {
        #expect(SDK.allCases.map(\.ordinal) == Array(SDK.allCases.indices))
        let table = PolicyTable(FetchOptions(maxBytes: 1234))
        for sdk in SDK.allCases {
            #expect(table[sdk] == sdk.profile.policy(FetchOptions(maxBytes: 1234)))
        }
    }

    @Test func everyProfileHasARowThatMatchesIt() throws {
        let rows = try Self.readmeRows()
        #expect(Set(rows.keys) == Set(SDK.allCases.map(\.rawValue)))
        for sdk in SDK.allCases {
            let profile = sdk.profile
            let row = try #require(rows[sdk.rawValue])
            #expect(row[1].contains(profile.mediaKeys[0].joined(separator: ".")), "\(sdk): where the URL is")
            #expect((row[2] == "refused by the SDK") == profile.refusesHTTPItself && (row[2] == "ATS") != profile.refusesHTTPItself, "\(sdk): http")
            switch profile.sizeCap {
            case .none: #expect(row[3] == "none", "\(sdk): cap")
            case .streamed(let bytes): #expect(bytes == 10_485_760 && row[3] == "10 MiB, streamed", "\(sdk): cap")
            case .announced(let bytes): #expect(bytes == 50_000_000 && row[3] == "50,000,000, announced only", "\(sdk): cap")
            }
            #expect(row[4] == "\(Int(profile.deadlineSeconds)) s", "\(sdk): deadline")
            #expect(row[7].hasPrefix("yes") == (profile.failurePolicy != .single), "\(sdk): several")
            switch profile.failurePolicy {
            case .single: #expect(row[8].hasPrefix("unchanged"), "\(sdk): failure")
            case .perEntry: #expect(row[8] == "per entry", "\(sdk): failure")
            case .allOrNothing: #expect(row[8].hasPrefix("all or nothing"), "\(sdk): failure")
            }
            switch profile.identifier {
            case .fixed(let name): #expect(row[9] == "`\(name)`" || (name.isEmpty && row[9] == "`\"\"`"), "\(sdk): identifier")
            case .entry: #expect(row[9] == "the key" || row[9] == "`url_id`, else `\"\"`", "\(sdk): identifier")
            case .suggestedFilename: #expect(row[9] == "the suggested file name", "\(sdk): identifier")
            }
        }
    }
}

/// docs/platforms.md's side-by-side table of Android's rules matches the Android profiles.
@Suite struct AndroidTableTests {
    @Test func everyAndroidProfileHasARowThatMatchesIt() throws {
        let readme = try String(contentsOf: Paths.packageRoot.appendingPathComponent("docs/platforms.md"), encoding: .utf8)
        var rows: [String: [String]] = [:]
        for line in readme.split(separator: "\n") where line.hasPrefix("| android | `") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast().map { $0.trimmingCharacters(in: .whitespaces) }
            rows[cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`"))] = cells
        }
        let profiles = SDKProfile.androidProfiles
        #expect(Set(rows.keys) == Set(profiles.map(\.sdk.rawValue)))
        for profile in profiles {
            let row = try #require(rows[profile.sdk.rawValue])
            #expect(profile.platform == .android)
            #expect(row[2].contains(profile.mediaKeys[0].last ?? "?"), "\(profile.sdk): where the picture is")
            switch profile.sizeCap {
            case .streamed(let bytes): #expect(bytes == 1_048_576 && row[3] == "1 MiB, streamed")
            case .none: #expect(row[3] == "none (the tool's 52,428,800)")
            case .announced: Issue.record("no Android profile caps announced lengths only")
            }
            #expect(row[4].hasPrefix("\(Int(profile.deadlineSeconds)) s"), "\(profile.sdk): deadline")
            #expect(profile.maxRedirects == 20)
        }
    }
}

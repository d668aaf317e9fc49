import Foundation
import Testing

/// Past one machine (SPEC section 14): shards of one input, `--shard auto`
/// from the CI engine's variables, and `merge` back into one run's output.
@Suite struct ShardMergeTests {
    let server = TestServer.shared

    /// A JSON Lines input of `count` payloads over a few media (one failing, one
    /// warning, one invalid line), and a folder of payload files.
    private func campaign(_ count: Int, in folder: URL) throws -> String {
        let media = ["/media/logo.png", "/media/photo.jpg", "/status/404", "/media/badge.webp", "/media/spinner.gif"]
        var lines: [String] = []
        for index in 0..<count {
            lines.append(index == 7 ? "{broken" : payload(url: server.url(media[index % media.count] + "?shard-test")))
        }
        let path = folder.appendingPathComponent("campaign.jsonl").path
        try Data(lines.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    private func masked(_ text: String) -> String {
        text.replacingOccurrences(of: #""elapsedMs":[0-9]+"#, with: "\"elapsedMs\":0", options: .regularExpression)
            .replacingOccurrences(of: #""timings":\{[^}]*\}"#, with: "\"timings\":{}", options: .regularExpression)
            .replacingOccurrences(of: #" (time|timestamp)="[^"]*""#, with: "", options: .regularExpression)
    }

    @Test(arguments: [2, 3, 7])
    func mergingNShardsGivesWhatOneRunPrints(shards: Int) throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try campaign(23, in: folder)
        let common = ["check", "--cacert", Paths.testCA, "--out", folder.appendingPathComponent("out").path, input]
        var files: [String] = []
        for index in 1...shards {
            let result = try CLI.run(common + ["--format", "json", "--shard", "\(index)/\(shards)"])
            let file = folder.appendingPathComponent("shard-\(index).json")
            try Data(result.stdout.utf8).write(to: file)
            files.append(file.path)
        }
        files.shuffle()  // merge takes them in any order
        for format in ["json", "text", "junit"] {
            let whole = try CLI.run(common + ["--format", format])
            let merged = try CLI.run(["merge", "--format", format] + files)
            #expect(merged.status == whole.status, "\(format): \(merged.stderr)")
            #expect(!whole.stdout.isEmpty)
            #expect(masked(merged.stdout) == masked(whole.stdout), "\(format) differs")
        }
    }

    @Test func everyRecordCarriesItsIndexAndTheSummaryItsShardAndOperands() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try campaign(10, in: folder)
        let result = try CLI.run(["check", "--format", "json", "--shard", "2/3", "--cacert", Paths.testCA, "--out", folder.path, input])
        let records = result.stdout.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }
        #expect(records.dropLast().map { $0["index"] as? Int } == [1, 4, 7])
        let summary = try #require(records.last?["summary"] as? [String: Any])
        #expect(summary["shard"] as? [String: Int] == ["index": 2, "count": 3])
        #expect((summary["operands"] as? String)?.count == 64)
    }

    @Test func aMissingRepeatedOrForeignShardIsAnErrorNamingIt() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try campaign(9, in: folder)
        let other = folder.appendingPathComponent("other.jsonl")
        try Data(payload(url: nil).utf8).write(to: other)
        func shard(_ spec: String, of path: String, named name: String) throws -> String {
            let result = try CLI.run(["check", "--format", "json", "--shard", spec, "--cacert", Paths.testCA, "--out", folder.path, path])
            let file = folder.appendingPathComponent(name).path
            try Data(result.stdout.utf8).write(to: URL(fileURLWithPath: file))
            return file
        }
        let one = try shard("1/3", of: input, named: "1.json")
        let two = try shard("2/3", of: input, named: "2.json")
        let three = try shard("3/3", of: input, named: "3.json")
        let foreign = try shard("3/3", of: other.path, named: "foreign.json")
        let cases: [([String], String)] = [
            ([one, three], "notti-media: shard 2/3 is missing: give all 3 shards' outputs\n"),
            ([one, two, two, three], "notti-media: shard 2/3 is given twice: \(two) and \(two)\n"),
            ([one, two, foreign], "notti-media: \(foreign) is a shard of another input than \(one) (their operands differ)\n"),
            ([one, two, input], "notti-media: \(input) is not what check --format json writes (its last line is not a summary with the operands)\n"),
        ]
        for (files, message) in cases {
            let result = try CLI.run(["merge", "--format", "json"] + files)
            #expect(result.status == 2)
            #expect(result.stdout.isEmpty, "nothing merged")
            #expect(result.stderr == message)
        }
    }

    @Test(arguments: [
        (["CI_NODE_INDEX": "2", "CI_NODE_TOTAL": "3"], [String](), "2/3"),
        (["JOB_COMPLETION_INDEX": "0"], ["--shard-count", "4"], "1/4"),
        (["JOB_COMPLETION_INDEX": "3"], ["--shard-count", "4"], "4/4"),
    ])
    func shardAutoReadsTheEnginesVariables(environment: [String: String], extra: [String], expected: String) throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try campaign(8, in: folder)
        let result = try CLI.run(
            ["check", "--format", "json", "--shard", "auto", "--out", folder.path, "--cacert", Paths.testCA] + extra + [input],
            environment: environment)
        let last = try #require(result.stdout.split(separator: "\n").last)
        let summary = ((try JSONSerialization.jsonObject(with: Data(last.utf8))) as? [String: Any])?["summary"] as? [String: Any]
        let shard = try #require(summary?["shard"] as? [String: Int])
        #expect("\(shard["index"]!)/\(shard["count"]!)" == expected)
    }

    @Test(arguments: [
        ([String: String](), [String](), "--shard auto needs CI_NODE_INDEX and CI_NODE_TOTAL"),
        (["JOB_COMPLETION_INDEX": "1"], [String](), "needs --shard-count N"),
        (["JOB_COMPLETION_INDEX": "4"], ["--shard-count", "4"], "JOB_COMPLETION_INDEX=4 is not in 0..<4"),
        (["CI_NODE_INDEX": "0", "CI_NODE_TOTAL": "3"], [String](), "do not make a shard"),
    ])
    func shardAutoWithoutUsableVariablesIsAUsageError(environment: [String: String], extra: [String], message: String) throws {
        // Run through env -u so the variables a case leaves out are really unset.
        let unset = ["CI_NODE_INDEX", "CI_NODE_TOTAL", "JOB_COMPLETION_INDEX"].filter { environment[$0] == nil }.flatMap { ["-u", $0] }
        let result = try CLI.run(
            executable: "/usr/bin/env",
            unset + [CLI.binary, "check", "--shard", "auto"] + extra + ["-"],
            environment: environment.merging(["XDG_CACHE_HOME": CLI.cacheHome.path]) { $1 })
        #expect(result.status == 2)
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }

    @Test func aShardNeverBlocksOnThePayloadFilesOfOtherShards() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // A named pipe blocks whoever opens it: the other shard's files are links to one.
        let fifo = folder.appendingPathComponent("trap.fifo").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let payloads = folder.appendingPathComponent("payloads")
        try FileManager.default.createDirectory(at: payloads, withIntermediateDirectories: true)
        for index in 0..<6 {
            let file = payloads.appendingPathComponent(String(format: "p%02d.json", index))
            if index % 2 == 0 {
                try Data(payload(url: nil).utf8).write(to: file)
            } else {
                try FileManager.default.createSymbolicLink(atPath: file.path, withDestinationPath: fifo)
            }
        }
        let start = Date()
        let result = try CLI.run(["check", "--format", "json", "--shard", "1/2", payloads.path])
        #expect(Date().timeIntervalSince(start) < 10, "never blocked on another shard's file")
        #expect(result.status == 0)
        let sources = result.stdout.split(separator: "\n").dropLast().compactMap {
            ((try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any])?["source"] as? String
        }
        #expect(sources == ["p00.json", "p02.json", "p04.json"].map { payloads.path + "/" + $0 })
    }

    @Test func theOneMachineRecipeRunsShardsInParallelAndMergesThem() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try campaign(12, in: folder)
        // The README's recipe for one machine, as a user would type it.
        let script = """
            seq 1 4 | xargs -P 4 -I{} sh -c '"$0" check --shard {}/4 --format json --cacert "$1" --out "$2/out" "$3" > "$2/shard-{}.json"' \
                "$NOTTI" "$CA" "$WORK" "$INPUT"
            "$NOTTI" merge --format text "$WORK"/shard-*.json
            """
        let result = try CLI.run(
            executable: "/bin/bash", ["-c", script],
            environment: ["NOTTI": CLI.binary, "CA": Paths.testCA, "WORK": folder.path, "INPUT": input, "XDG_CACHE_HOME": CLI.cacheHome.path])
        let whole = try CLI.run(["check", "--cacert", Paths.testCA, "--out", folder.appendingPathComponent("out").path, input])
        #expect(result.stdout == whole.stdout)
        #expect(result.status == whole.status)
    }
}

/// A code another version wrote is kept as written when `merge` reads it back (`DiagnosticCode.unrecognised`).
@Suite struct MergeUnknownCodeTests {
    @Test func aCodeOfAnotherVersionIsKeptAsWritten() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("one.jsonl")
        try Data((payload(url: "http://cdn.example.com/x.png") + "\n").utf8).write(to: input)
        let shard = try CLI.run(["check", input.path, "--format", "json", "--shard", "1/1", "--out", folder.appendingPathComponent("out").path])
        // As a newer version would have written it: a code this one does not know.
        let newer = shard.stdout.replacingOccurrences(of: "\"not_https\"", with: "\"from_a_newer_version\"")
        #expect(newer != shard.stdout)
        let file = folder.appendingPathComponent("shard.json")
        try Data(newer.utf8).write(to: file)
        let text = try CLI.run(["merge", file.path])
        #expect(text.stdout.contains(": error: from_a_newer_version: "), "\(text.stdout)")
        let json = try CLI.run(["merge", "--format", "json", file.path])
        #expect(json.stdout.contains("\"code\":\"from_a_newer_version\""))
        #expect(!json.stdout.contains("unrecognised"))
    }
}

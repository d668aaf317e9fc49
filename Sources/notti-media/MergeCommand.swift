import Glibc
import NottiMedia

/// `notti-media merge FILE...`: the JSON outputs of one input's shards joined
/// into what one unsharded `check` prints. Shard I holds the positions that are
/// I-1 modulo N, so the records come back in input order by taking one from
/// each shard in turn: a streaming merge, memory flat.
struct MergeCommand {
    let options: Options

    func run() -> Int32 {
        do {
            return try merge()
        } catch {
            return Tool.report(error)
        }
    }

    private struct Shard {
        var path: String
        var tag: CheckSummary.ShardTag
        var summary: JSONValue
    }

    private func merge() throws -> Int32 {
        let shards = try readShards()
        let records = shards.map(\.summary)
        let scratch = try ScratchFolder(environment: ProcessFacts.environment())
        defer { scratch.remove() }
        guard let summary = CheckSummary.merged(from: records, scratchFolder: scratch.path) else {
            throw UsageError("the shards' summaries cannot be merged: \(shards.map(\.path).joined(separator: ", "))")
        }
        return try withExtendedLifetime(scratch) {
            let format = try CheckCommand.makeFormat(options, scratch: scratch)
            let pullers = try shards.map { shard throws(LocalError) in try LinePuller(path: shard.path) }
            let total = shards.reduce(0) { $0 + $1.tag.payloads }
            // Records, not positions: a send request's two records share their position.
            var written = 0
            var index = 0
            // Each shard's next record, read ahead: a position's records are all of one shard's run of that index.
            var ahead: [(line: [UInt8], record: JSONValue)?] = Array(repeating: nil, count: shards.count)
            func pull(_ shard: Int) throws -> (line: [UInt8], record: JSONValue)? {
                if let next = ahead[shard] { return next }
                guard let line = try pullers[shard].next(), let record = try? JSONParser.parse(line), record["summary"] == nil else { return nil }
                ahead[shard] = (line, record)
                return ahead[shard]
            }
            while written < total {
                let shard = index % shards.count
                guard let (line, record) = try pull(shard) else {
                    throw UsageError("\(shards[shard].path) ends before the record at position \(index): was that shard interrupted?")
                }
                guard record["index"]?.intValue == index else {
                    throw UsageError("\(shards[shard].path) has position \(record["index"]?.intValue.map(String.init) ?? "none") "
                        + "where position \(index) belongs: not a shard of this input")
                }
                ahead[shard] = nil
                written += 1
                // The next record of this shard may be this position's second (a send request's Android record).
                if let next = try pull(shard), next.record["index"]?.intValue == index {} else { index += 1 }
                if options.summaryOnly { continue }
                // JSON: the line as the shard wrote it, byte for byte. Text and JUnit: rendered from it.
                let rendered: String?
                if options.format == .json {
                    rendered = String(decoding: line, as: UTF8.self)
                } else {
                    guard let report = Report(json: record, strict: summary.strict) else {
                        throw UsageError("\(shards[shard].path): the record at position \(index) is not a report")
                    }
                    rendered = format.renderer.render(report)
                }
                if let rendered { format.sink.write(rendered) }
                if Signals.receivedSignal != nil { break }
            }
            try format.sink.finish(summary)
            return summary.failed > 0 ? ExitCode.failed : ExitCode.success
        }
    }

    /// Each FILE's summary (its last line), checked to be one whole set of shards of one input.
    private func readShards() throws -> [Shard] {
        var shards: [Shard] = []
        for path in options.operands {
            if path == "-" {
                // Each FILE is read twice (its summary, then its records): a pipe cannot be.
                if StandardDescriptors.stdinWasClosed { throw LocalError(ReadFailure.message("-", EBADF)) }
                throw UsageError("merge reads each FILE twice, so standard input (-) cannot be one: save that shard's output to a file")
            }
            guard let last = try LinePuller.lastLine(of: path), let record = try? JSONParser.parse(last),
                  let tag = CheckSummary.shardTag(of: record), let summary = record["summary"]
            else {
                throw UsageError("\(path) is not what check --format json writes (its last line is not a summary with the operands)")
            }
            shards.append(Shard(path: path, tag: tag, summary: .object([JSONMember("summary", summary)])))
        }
        let first = shards[0]
        for shard in shards.dropFirst() {
            if shard.tag.operands != first.tag.operands {
                throw UsageError("\(shard.path) is a shard of another input than \(first.path) (their operands differ)")
            }
            if shard.tag.count != first.tag.count {
                throw UsageError("\(shard.path) is shard \(shard.tag.index)/\(shard.tag.count), \(first.path) is shard "
                    + "\(first.tag.index)/\(first.tag.count): not one set of shards")
            }
        }
        var byIndex: [Int: Shard] = [:]
        for shard in shards {
            if let twin = byIndex[shard.tag.index] {
                throw UsageError("shard \(shard.tag.index)/\(shard.tag.count) is given twice: \(twin.path) and \(shard.path)")
            }
            byIndex[shard.tag.index] = shard
        }
        let count = first.tag.count
        if let missing = (1...count).first(where: { byIndex[$0] == nil }) {
            throw UsageError("shard \(missing)/\(count) is missing: give all \(count) shards' outputs")
        }
        if let interrupted = shards.first(where: { $0.tag.interrupted }) {
            throw UsageError("\(interrupted.path) is from an interrupted run: run that shard again")
        }
        return (1...count).map { byIndex[$0]! }
    }
}

import NottiMedia

/// `--format json`: one report per payload per line, in input order, then a
/// final `{"summary": {...}}` record.
struct JSONLinesFormat: CheckRenderer, CheckSink {
    var summaryOnly: Bool

    func render(_ report: Report) -> String? {
        summaryOnly ? nil : JSONWriter.string(report.json)
    }

    func write(_ rendered: String) {
        Console.out(rendered)
    }

    func finish(_ summary: CheckSummary) {
        summary.writeJSON { Console.outPart($0) }
        Console.outPart("\n")
    }
}

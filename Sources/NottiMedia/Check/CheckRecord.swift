/// One checked payload as the writer needs it: its verdict for the summary
/// and its output, already rendered by the worker that finished it.
public struct CheckRecord: Sendable {
    /// Position in the input (after sharding), which fixes the output order.
    public var sequence: Int
    public var source: String
    /// Passed under the run's strictness.
    public var passed: Bool
    /// The profile the payload was checked under (under `--sdk auto`, the one detected).
    public var sdk: SDK = .notti
    /// The phone it is about.
    public var platform: Platform = .ios
    /// True for an input with no delivery for `--platform`: nothing is written or counted for it.
    public var skipped = false
    /// The input's other records, written right after this one (a send request's Android record).
    public var companions: [CheckRecord] = []
    public var diagnostics: [Diagnostic]
    /// The verdicts of the media URLs this payload named.
    package var media: [MediaVerdict]
    /// The attached files.
    package var attachments: [Attachment]
    /// What the run's outputs make of the report (rendered on a worker thread).
    public var rendered: Rendering

    /// What the caller's outputs make of one report, on the worker that finished it:
    /// the text its format prints, and the report itself where an output keeps it
    /// (the preview draws cards from it).
    ///
    /// One concrete type, not a generic parameter of the pipeline: the library is
    /// built without cross-module optimization (it must build as a dependency), so a
    /// pipeline generic over the caller's type ran unspecialized, looking up generic
    /// metadata for every record (46% more instructions on the 100,000-line campaign).
    public struct Rendering: Sendable {
        public var line: String?
        /// The report, boxed: records move through the pipeline's queues by value, and a
        /// report inline made every move of every record a copy of a few hundred bytes.
        private var boxed: ReportBox?
        public var report: Report? { boxed?.report }

        public init(line: String?, report: Report?) {
            self.line = line
            boxed = report.map(ReportBox.init)
        }
    }

    private final class ReportBox: Sendable {
        let report: Report
        init(_ report: Report) { self.report = report }
    }
}

extension CheckRecord: InputOrdered {}

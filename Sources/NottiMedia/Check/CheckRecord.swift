/// One checked payload as the writer needs it: its verdict for the summary
/// and its outputs, already rendered by the worker that finished it.
public struct CheckRecord: Sendable {
    /// Position in the input (after sharding), which fixes the output order.
    public var sequence: Int
    public var source: String
    /// Passed under the run's strictness.
    public var passed: Bool
    public var diagnostics: [Diagnostic]
    /// The verdict of the media URL this payload named, if any.
    public var media: MediaVerdict?
    /// The attached file, when there is one.
    public var attachment: Attachment?
    /// One rendering per output the run writes (nil: nothing for this record).
    public var outputs: [String?]
}

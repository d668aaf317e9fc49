/// One distinct media URL, downloaded once and sniffed: what every payload
/// naming it is judged from. A plain immutable value: the transfer's facts,
/// the sniffed type, the leading bytes and the working file. No verdict is
/// made here (the rules are in `Decision/`), nothing is locked (what a run makes
/// of it once is its `DownloadMemo`) and nothing touches the disk (placing is
/// `AttachmentPlacement`'s). A class only so a campaign shares one by
/// reference: a million payloads judge it.
///
/// The bytes are in `source`: this run's working file (a file with no name in
/// the attachment folder until an attachment is placed from it) or, after a 304,
/// the file an earlier run placed.
package final class MediaDownload: Sendable {
    /// The transfer's facts: final URL, redirects, status, Content-Type, bytes, hash, time.
    package let facts: MediaFacts
    /// Where the bytes are (see above).
    let source: WorkingFile
    /// The attachment folder: every attachment is `<folder>/<sha256>.<ext>`.
    let folder: String
    /// What libmagic says the bytes are.
    package let sniffedMime: String
    /// The file's first bytes, for the magic-number tables some SDKs type files by.
    package let leadingBytes: [UInt8]
    /// For a GIF, its frames (counted to 2): Android shows the first alone.
    let frames: Int?
    /// The policy it was downloaded under (the run's fetch policy), which `--cache` keys it by.
    let fetchedUnder: MediaPolicy

    /// The final response's Content-Disposition header, as sent.
    var contentDisposition: String? { facts.transfer?.contentDisposition }

    package init(
        facts: MediaFacts, source: WorkingFile, folder: String, sniffedMime: String, leadingBytes: [UInt8],
        frames: Int? = nil, fetchedUnder: MediaPolicy? = nil
    ) {
        self.frames = frames
        self.facts = facts
        self.fetchedUnder = fetchedUnder ?? facts.policy
        self.source = source
        self.folder = folder
        self.sniffedMime = sniffedMime
        self.leadingBytes = leadingBytes
    }

    /// The same bytes with other facts (judged under another policy, or revalidated).
    func with(facts: MediaFacts) -> MediaDownload {
        MediaDownload(
            facts: facts, source: source, folder: folder, sniffedMime: sniffedMime, leadingBytes: leadingBytes,
            frames: frames, fetchedUnder: fetchedUnder)
    }

    /// Where an attachment of these bytes named `fileExtension` lives: a pure function
    /// of the content, so judging can name the file before it exists.
    func attachmentPath(fileExtension: String) -> String {
        "\(folder)/\(facts.sha256 ?? "").\(fileExtension)"
    }
}

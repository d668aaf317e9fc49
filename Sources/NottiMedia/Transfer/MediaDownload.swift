import Glibc

/// One distinct media URL, downloaded once and sniffed: what every payload
/// naming it is judged from. Immutable, and shared by reference: a campaign
/// judges one download for millions of payloads, under each one's SDK.
///
/// The bytes are in `source`: this run's working file (a file with no name in
/// the attachment folder until an attachment is placed from it) or, after a 304,
/// the file an earlier run placed. Judging never touches the disk; the
/// attachments some record lists are placed from it afterwards (`AttachmentPlacement`).
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
    /// The final response's Content-Disposition header, as sent.
    var contentDisposition: String? { facts.transfer?.contentDisposition }
    /// Notti's verdict on it (`Decision/NottiRule.swift`), made once.
    let notti: NottiRule.Verdict
    /// Android's verdict on it (`Decision/BitmapFactoryRule.swift`), made once, not per record.
    let android: EntryVerdict
    /// What other policies made of it (`MediaResult.judged(under:)`), a few at most.
    private let judgedUnder = Guarded<[(key: MediaPolicy, value: MediaResult)]>([])
    /// What type rules made of it (`judged(as:)`), a few at most.
    private let judgedByRule = Guarded<[(key: TypeRuleKey, value: EntryVerdict)]>([])
    /// The extensions its bytes were already placed under (`sha256.ext`), shared
    /// with the copies `with(facts:)` makes: each name is placed once per run.
    let placed: PlacedNames
    /// The policy it was downloaded under (the run's fetch policy), which `--cache` keys it by.
    let fetchedUnder: MediaPolicy

    package init(
        facts: MediaFacts, source: WorkingFile, folder: String, sniffedMime: String, leadingBytes: [UInt8],
        frames: Int? = nil, fetchedUnder: MediaPolicy? = nil, placed: PlacedNames = PlacedNames()
    ) {
        self.frames = frames
        self.facts = facts
        self.fetchedUnder = fetchedUnder ?? facts.policy
        self.source = source
        self.folder = folder
        self.sniffedMime = sniffedMime
        self.leadingBytes = leadingBytes
        self.placed = placed
        // Both depend on the download alone: made once, however many records name the URL.
        notti = NottiRule.verdict(facts: facts, folder: folder, sniffedMime: sniffedMime)
        android = BitmapFactoryRule.verdict(facts: facts, folder: folder, sniffedMime: sniffedMime, frames: frames)
    }

    /// An SDK's type rule's verdict on this download for entries alike in `key`, made by `make` the first time.
    func judged(as key: TypeRuleKey, _ make: () -> EntryVerdict) -> EntryVerdict {
        // A few at most: one per SDK and type hint that names the URL; bounded against a payload that varies them.
        judgedByRule.value(for: key, bound: 16, make)
    }

    /// This download as `policy` judges it, made by `make` the first time a policy asks.
    func judged(under policy: MediaPolicy, _ make: () -> MediaResult) -> MediaResult {
        judgedUnder.value(for: policy, make)
    }

    /// The same download with other facts (judged under another policy).
    func with(facts: MediaFacts) -> MediaDownload {
        MediaDownload(
            facts: facts, source: source, folder: folder, sniffedMime: sniffedMime, leadingBytes: leadingBytes,
            frames: frames, fetchedUnder: fetchedUnder, placed: placed)
    }

    /// Whether an attachment of this download was placed in this run.
    var wasPlaced: Bool { !placed.isEmpty }

    /// Where an attachment of these bytes named `fileExtension` lives: a pure function
    /// of the content, so judging can name the file before it exists.
    static func attachmentPath(folder: String, sha256: String, fileExtension: String) -> String {
        "\(folder)/\(sha256).\(fileExtension)"
    }

}

/// The names a download's attachments were placed under in this run.
package final class PlacedNames: Sendable {
    private let names = Guarded<Set<String>>([])

    package init() {}

    /// Whether any name was placed.
    var isEmpty: Bool { names.withLock { (names: inout Set<String>) in names.isEmpty } }

    /// Runs `make` unless `name` was made already; a failed `make` is tried again next time.
    func once(_ name: String, _ make: () throws(Errno) -> Void) throws(Errno) -> Bool {
        // Held while placing: two payloads placing one name at once would race on link/copy.
        try names.withLock { (names: inout Set<String>) throws(Errno) -> Bool in
            guard !names.contains(name) else { return false }
            try make()
            names.insert(name)
            return true
        }
    }
}

/// What a type rule's verdict on a download depends on besides the download: the SDK,
/// and the entry's type field and identifier.
struct TypeRuleKey: Equatable, Sendable {
    var sdk: SDK
    var typeField: String?
    var identifier: String?
}

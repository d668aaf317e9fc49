/// What one download found: the transfer, the sniffed type, the hash and the decoder's facts. Made by
/// `MediaDownloader` (or read back from `--cache`) and only read after: the judge (`Decision/`) keeps its
/// own notes on its verdict (its typing), and the report's `media` object is built at
/// assembly (`MediaOutput`) from these facts and those notes.
public struct MediaFacts: Sendable {
    // Copy-on-write (`CopyOnWrite`): every payload naming a URL carries these
    // facts, and a campaign copies them many times a payload. Measured this
    // round, 1,000,000 lines, 3 alternating runs: 2.06 s with it, 3.05 s with the
    // fields stored plainly (jq 3.16 s): it keeps the campaign target (at most
    // jq's time) with a margin, so it stays.
    private struct Fields: Sendable {
        var url: String
        /// What the download found out; nil before one (a URL that failed its checks).
        var transfer: TransferFacts?
        var urlExtension: String?
        var sniffedMime: String?
        var dimensions: Dimensions?
        var decoded: DecodedMedia?
        var bytes: Int?
        var sha256: String?
        var policy: MediaPolicy
        var host: String?
        var cacheState: String?
        var deviceAnswers: [DeviceAnswer] = []
    }

    private var storage: CopyOnWrite<Fields>

    /// With `--device-headers`, what the server answered each platform's own request (SPEC 20).
    package var deviceAnswers: [DeviceAnswer] {
        get { storage.box.fields.deviceAnswers }
        set { storage.unique().fields.deviceAnswers = newValue }
    }

    /// The URL as the payload gave it.
    public var url: String {
        get { storage.box.fields.url }
        set { storage.unique().fields.url = newValue }
    }
    public var finalURL: String? { storage.box.fields.transfer?.finalURL }
    public var redirects: Int? { storage.box.fields.transfer?.redirects }
    public var httpStatus: Int? { storage.box.fields.transfer?.httpStatus }
    public var declaredMime: String? { storage.box.fields.transfer?.declaredMime }
    package var urlExtension: String? {
        get { storage.box.fields.urlExtension }
        set { storage.unique().fields.urlExtension = newValue }
    }
    /// What libmagic says the bytes are (set with them, by the downloader).
    public var sniffedMime: String? {
        get { storage.box.fields.sniffedMime }
        set { storage.unique().fields.sniffedMime = newValue }
    }
    /// The picture's or video's size, as the decoder reads it (SPEC 15, 17).
    public var dimensions: Dimensions? {
        get { storage.box.fields.dimensions }
        set { storage.unique().fields.dimensions = newValue }
    }
    /// What the phone's decoder made of the whole file (SPEC 17); nil when no decoder read it.
    package var decoded: DecodedMedia? {
        get { storage.box.fields.decoded }
        set { storage.unique().fields.decoded = newValue }
    }
    public var bytes: Int? {
        get { storage.box.fields.bytes }
        set { storage.unique().fields.bytes = newValue }
    }
    public var sha256: String? {
        get { storage.box.fields.sha256 }
        set { storage.unique().fields.sha256 = newValue }
    }
    public var elapsedMilliseconds: Int? { storage.box.fields.transfer?.elapsedMilliseconds }
    /// libcurl's phase times for the fetch (not deterministic, like `elapsedMilliseconds`).
    package var timings: FetchTimings? { storage.box.fields.transfer?.timings }
    /// The final response's caching headers, as served.
    package var http: HTTPFacts? { storage.box.fields.transfer?.http }
    package var policy: MediaPolicy {
        get { storage.box.fields.policy }
        set { storage.unique().fields.policy = newValue }
    }
    // What a stricter profile's policy needs to judge the same download again
    // (`MediaResult.judged(under:)`); not part of the report.
    var announcedBytes: Int? { storage.box.fields.transfer?.announcedBytes }
    /// Read through the box: `transfer?.expiringCertificate` copied the whole transfer's facts for every record.
    var expiringCertificate: ExpiringCertificate? { storage.box.fields.transfer?.expiringCertificate }
    var httpHop: RedirectHop? { storage.box.fields.transfer?.httpHop }
    var refusedHop: RedirectHop? { storage.box.fields.transfer?.refusedHop }
    var tooLargeAnnounced: Bool {
        get { storage.box.fields.transfer?.tooLargeAnnounced ?? false }
        set { storage.unique().fields.transfer?.tooLargeAnnounced = newValue }
    }
    /// The URL's host, once the URL passed its checks (a phone requests it).
    var host: String? {
        get { storage.box.fields.host }
        set { storage.unique().fields.host = newValue }
    }
    /// With `--cache`: `fetched` (downloaded and stored) or `revalidated` (a 304 reused the stored copy).
    package var cacheState: String? {
        get { storage.box.fields.cacheState }
        set { storage.unique().fields.cacheState = newValue }
    }

    /// What the download found out; nil before one.
    package var transfer: TransferFacts? {
        get { storage.box.fields.transfer }
        set { storage.unique().fields.transfer = newValue }
    }

    package init(url: String, policy: MediaPolicy) {
        storage = CopyOnWrite(Fields(url: url, policy: policy))
    }

    /// The facts of a URL that passed its checks, before its download: its extension, and the host a phone requests.
    package init(checked url: MediaURL, policy: MediaPolicy) {
        storage = CopyOnWrite(Fields(url: url.string, urlExtension: url.pathExtension, policy: policy, host: url.host))
    }
}

/// What a server answered one platform's own request for a URL (`--device-headers`, SPEC 20):
/// servers that block bots answer phones differently from the tool.
package struct DeviceAnswer: Sendable, Equatable {
    package var platform: Platform
    /// The request's `User-Agent`.
    package var userAgent: String
    package var httpStatus: Int?
    /// What libmagic says the body is; nil without one.
    package var sniffedMime: String?
    package var bytes: Int?
    /// Why there is no answer (the connection's failure), if so.
    package var failure: String?

    /// As people read it: `HTTP 403, text/html, 162 bytes`, or the failure.
    package var described: String {
        if let failure { return failure }
        return [httpStatus.map { "HTTP \($0)" }, sniffedMime, bytes.map { "\($0) bytes" }].compactMap { $0 }.joined(separator: ", ")
    }

    package var json: JSONValue {
        .object([
            JSONMember("platform", .string(platform.rawValue)), JSONMember("userAgent", .string(userAgent)),
            JSONMember("httpStatus", .optional(httpStatus)), JSONMember("sniffedMime", .optional(sniffedMime)),
            JSONMember("bytes", .optional(bytes)), JSONMember("failure", .optional(failure)),
        ])
    }

    /// The request headers each platform's own download sends: a phone's app, not a tool.
    package static let userAgents: [(Platform, String)] = [
        (.ios, "NottiApp/1 CFNetwork/1494.0.7 Darwin/23.4.0"),
        (.android, "Dalvik/2.1.0 (Linux; U; Android 14; Pixel 8 Build/UQ1A.240205.004)"),
    ]
}

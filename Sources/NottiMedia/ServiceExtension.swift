import Glibc

/// A Notification Service Extension's media path for one payload, headless: the
/// library's one door (what `process`, `fix`, a dependent package and each new
/// caller use). It picks the SDK's profile, reads the media entries, checks each
/// URL, and hands back the content with the attachments, or unchanged when
/// anything fails.
///
/// Two halves, the same ones `CheckPipeline` streams many payloads through:
/// `MediaDownloader` (Transfer/: each distinct URL downloaded once, facts and no
/// verdict), then `DeliveryCheck.report` for each delivery: the pure judge of
/// Decision/, the report assembled, and placement, the only step that makes
/// attachment files. docs/design.md draws it.
///
/// One instance owns one libcurl handle: use it from one thread at a time.
public final class ServiceExtension {
    public let options: FetchOptions
    public let selection: SDKSelection
    /// Absolute path of the folder attachments are stored in, by content hash.
    public let outputDirectory: String
    /// The download half: facts of each URL, no verdict.
    package let downloader: MediaDownloader

    /// An extension that stores attachments in `outputDirectory`.
    /// - Parameters:
    ///   - options: what the user set for every download (limits, trust, http).
    ///   - selection: whose extension to reproduce, or `auto`.
    ///   - outputDirectory: where attachments go; created when missing.
    /// - Throws: `ServiceExtensionError` when the folder, libcurl or libmagic is unusable.
    public convenience init(
        options: FetchOptions = FetchOptions(), selection: SDKSelection = .unspecified, outputDirectory: String
    ) throws(ServiceExtensionError) {
        try self.init(options: options, selection: selection, outputDirectory: outputDirectory, ownedPaths: .run)
    }

    /// - Parameters:
    ///   - ownedPaths: the registry partial downloads are tracked in (`.run`: the process's).
    ///   - cache: `--cache`'s stored verdicts, to revalidate.
    ///   - decoder: the run's decode worker (started on the first file it decodes).
    package init(
        options: FetchOptions, selection: SDKSelection, outputDirectory: String,
        ownedPaths: OwnedPaths, cache: RevalidationCache? = nil, decoder: DecodeWorker = DecodeWorker()
    ) throws(ServiceExtensionError) {
        downloader = try MediaDownloader(
            options: options, outputDirectory: outputDirectory, ownedPaths: ownedPaths, cache: cache, decoder: decoder)
        self.options = options
        self.selection = selection
        self.outputDirectory = downloader.outputDirectory
    }

    /// Runs the extension's path for one payload: plan, download, judge, place.
    /// The working files of its downloads are removed before it returns.
    /// - Returns: the report, or nil when `cancellation` stopped it (nothing is left on disk).
    public func handle(_ payload: Payload, source: String, strict: Bool = false, cancellation: Cancellation? = nil) -> Report? {
        let plan = PayloadPlan(payload, selection: selection.forAPNsPayload, options: options)
        return reports([(plan, source)], fetchPolicy: { _ in selection.fetchPolicy(options) }, strict: strict, cancellation: cancellation)?.first
    }

    /// Every delivery of `payload` under `platforms`, each through the path: an APNs
    /// payload's one report, a send request's two (iOS, then Android; SPEC 15), each URL
    /// downloaded once, under the loosest policy of the records that name it.
    /// - Returns: the reports (none when `platforms` leaves nothing), or nil when `cancellation` stopped it.
    /// - Throws: `PayloadError` for a send request FCM refuses (`message.data` not all strings).
    package func handleDeliveries(
        _ payload: Payload, source: String, platforms: PlatformSelection, strict: Bool = false, cancellation: Cancellation? = nil
    ) throws(PayloadError) -> (isRequest: Bool, reports: [Report])? {
        let deliveries = Deliveries(
            payload, request: try SendRequest.parse(payload), source: source, selection: selection, options: options, platforms: platforms)
        let apnsPolicy = selection.fetchPolicy(options)
        return reports(
            deliveries.list.map { ($0.plan, $0.source) }, fetchPolicy: { deliveries.fetchPolicy(for: $0, apnsPolicy: apnsPolicy) },
            strict: strict, cancellation: cancellation
        ).map { (deliveries.isRequest, $0) }
    }

    /// Each plan's report: every distinct URL they fetch downloaded once under
    /// its `fetchPolicy`, then judged and placed; the working files go before it returns.
    /// - Returns: nil when `cancellation` stopped it (nothing is left on disk).
    private func reports(
        _ plans: [(plan: PayloadPlan, source: String)], fetchPolicy: (MediaURL) -> MediaPolicy, strict: Bool, cancellation: Cancellation?
    ) -> [Report]? {
        defer {
            downloader.rememberUnplacedDownloads()
            downloader.releaseWorkingFiles()
        }
        var results = MediaResults()
        for (plan, _) in plans {
            for url in plan.fetches where results[url.string] == nil {
                guard let result = downloader.download(url, policy: fetchPolicy(url), cancellation: cancellation) else { return nil }
                results[url.string] = result
            }
        }
        let placement = downloader.placement
        return plans.map { DeliveryCheck.report($0.plan, source: $0.source, results: results, strict: strict, placement: placement) }
    }
}

public struct ServiceExtensionError: Error, Sendable {
    public var message: String
}

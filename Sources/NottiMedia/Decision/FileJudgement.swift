extension EntryJudge {
    /// A file this machine made (a `fix` rendition) judged as a record under `profile` and `policy` judges a
    /// download of the same bytes: the one judge (`judge`: the profile's rule, the decoder's findings, the
    /// send-time risks), given the file as its server will answer it: at `url`, HTTP 200, with its type's
    /// Content-Type, and the type field `typeField` the rewritten payload states (Braze's `ab.att.type`).
    /// - Parameter decoded: what the decode worker made of the whole file.
    /// - Returns: the verdict; nil when `url` is not one the tool would download.
    package static func judge(
        file path: String, servedAt url: String, sniffedMime: String, bytes: Int, sha256: String, decoded: DecodedMedia?,
        typeField: String?, profile: SDKProfile, policy: MediaPolicy, network: NetworkProfile? = nil
    ) -> EntryVerdict? {
        guard case .valid(let served) = MediaURL.check(.string(url), allowHTTP: policy.allowHTTP) else { return nil }
        var transfer = TransferFacts(finalURL: url)
        transfer.httpStatus = 200
        transfer.declaredMime = MediaType(sniffedMime: sniffedMime).map(Lints.contentType(for:)) ?? sniffedMime
        var facts = MediaFacts(checked: served, policy: policy)
        facts.transfer = transfer
        facts.bytes = bytes
        facts.sha256 = sha256
        facts.sniffedMime = sniffedMime
        facts.decoded = decoded
        facts.dimensions = decoded?.dimensions
        let download = MediaDownload(
            facts: facts, source: WorkingFile(placedAt: path), folder: FilePaths.parent(path),
            sniffedMime: sniffedMime, leadingBytes: (try? MediaDownloader.leadingBytes(ofFileAt: path)) ?? [],
            frames: sniffedMime == "image/gif" ? GIFFrames.count(ofFileAt: path) : nil)
        let planned = PayloadPlan.PlannedEntry(
            entry: MediaEntry(key: profile.platform == .android ? "image" : "media", value: .string(url), typeField: typeField),
            step: .fetch(served))
        return judge(
            planned, profile: profile, results: [url: .downloaded(download)], policy: policy, network: network,
            requestedAtSendTime: true
        ).verdict
    }
}

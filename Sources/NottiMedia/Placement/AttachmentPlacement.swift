/// The step after the report: makes the files its attachments name, and
/// nothing else. Judging names `<sha256>.<ext>` in the attachment folder;
/// placing links (or copies) the download's bytes there, once per name per
/// run, so `--out` holds exactly what the records list (SPEC 5).
package struct AttachmentPlacement: Sendable {
    let ownedPaths: OwnedPaths
    /// `--cache`: a download's row is written when its first attachment is placed,
    /// naming that file, so a later 304 finds the bytes.
    let cache: RevalidationCache?

    /// Places each attachment from the download that holds its bytes.
    /// - Returns: nil, or the first failure: the URL whose download it was, its facts, the message.
    package func place(_ attachments: [Attachment], from results: MediaResults) -> (url: String, facts: MediaFacts, message: String)? {
        for attachment in attachments {
            for (url, result) in results {
                guard case .fetched(let download, let memo) = result, download.facts.sha256 == attachment.sha256 else { continue }
                do {
                    if try place(attachment, from: download, placed: memo.placed) { remember(download, placedAt: attachment.filePath) }
                } catch {
                    return (url, download.facts,
                            "cannot store the attachment at \(attachment.filePath): \(error.message); \(DiagnosticCode.writeError.fix)")
                }
                break
            }
        }
        return nil
    }

    /// Makes `attachment`'s file exist: a hard link to the bytes (a copy where
    /// links cannot be made), once per name per run.
    /// - Returns: true the first time this name is placed (the cache records it then).
    /// - Throws: the errno when the file cannot be made, or a non-file holds its name.
    private func place(_ attachment: Attachment, from download: MediaDownload, placed: PlacedNames) throws(Errno) -> Bool {
        try placed.once(attachment.fileExtension) { () throws(Errno) in
            try download.source.place(at: attachment.filePath, ownedPaths: ownedPaths)
        }
    }

    private func remember(_ download: MediaDownload, placedAt path: String) {
        // A revalidated download's row is the one it came from: rewriting it would cost every rerun a write per URL.
        guard let cache, download.facts.cacheState != "revalidated", let http = download.facts.http,
              http.etag != nil || http.lastModified != nil else { return }
        cache.store(
            url: download.facts.url, policy: download.fetchedUnder.cacheKey, etag: http.etag, lastModified: http.lastModified,
            record: download.cacheRecord(placedPath: path))
    }
}

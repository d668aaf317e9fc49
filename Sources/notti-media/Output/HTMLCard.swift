import NottiMedia

/// One payload drawn as an iOS notification banner, with the expanded
/// (long-press) view and, for a failure, why. Runs on worker threads.
///
/// Every string from a payload is untrusted: it is escaped, never interpreted.
struct HTMLCard: Sendable {
    /// The folder beside the page that holds the media, e.g. `report-media`.
    let mediaFolderName: String

    func render(_ report: Report) -> String {
        let content = report.content
        let title = content?["title"]?.stringValue
        let subtitle = content?["subtitle"]?.stringValue
        let body = content?["body"]?.stringValue
        let attachment = report.attachment
        let hasWarnings = report.diagnostics.contains { $0.severity == .warning }
        let status = report.passed ? "passed" : "failed"
        let searchable = [report.source, title, subtitle, body].compactMap { $0 }.joined(separator: " ").lowercased()
        let label = title ?? body ?? report.source

        var html = "<li class=\"card \(status)\(hasWarnings ? " warned" : "")\" data-status=\"\(status)\""
        html += " data-warnings=\"\(hasWarnings ? 1 : 0)\" data-text=\"\(markupEscape(searchable))\">\n"
        html += "<article aria-label=\"\(markupEscape(label))\">\n"
        html += "<p class=\"source\"><span class=\"badge \(status)\">\(report.passed ? (hasWarnings ? "passed, with warnings" : "passed") : "failed")</span> "
        html += "<code>\(markupEscape(report.source))</code> <span class=\"outcome\">\(markupEscape(outcomeText(report)))</span></p>\n"
        html += "<div class=\"banner\">\n<div class=\"icon\" aria-hidden=\"true\">N</div>\n<div class=\"text\">\n"
        html += "<p class=\"meta\"><span class=\"app\">NOTTI</span><span class=\"when\">now</span></p>\n"
        if let title { html += "<h3 class=\"title\">\(markupEscape(title))</h3>\n" }
        if let subtitle { html += "<p class=\"subtitle\">\(markupEscape(subtitle))</p>\n" }
        if let body { html += "<p class=\"body\">\(markupEscape(body))</p>\n" }
        if title == nil && subtitle == nil && body == nil {
            html += "<p class=\"body empty\">(no alert text: iOS shows nothing, and the extension does not run)</p>\n"
        }
        html += "</div>\n"
        if let attachment { html += thumbnail(attachment, label: label) }
        html += "</div>\n"
        if let attachment {
            html += "<details class=\"expanded\"><summary>Expanded view (long press)</summary>\n<div class=\"large\">"
            html += fullMedia(attachment, label: label)
            html += "</div>\n"
            if let title { html += "<h3 class=\"title\">\(markupEscape(title))</h3>\n" }
            if let subtitle { html += "<p class=\"subtitle\">\(markupEscape(subtitle))</p>\n" }
            if let body { html += "<p class=\"full-body\">\(markupEscape(body))</p>\n" }
            html += "</details>\n"
        }
        if !report.diagnostics.isEmpty {
            html += "<section class=\"why\"><h4>\(report.passed ? "Warnings" : "Why")</h4>\n<ul>\n"
            for diagnostic in report.diagnostics {
                html += "<li class=\"\(diagnostic.severity.rawValue)\"><strong>\(diagnostic.severity.rawValue)</strong> "
                html += "<code>\(markupEscape(diagnostic.code))</code> \(markupEscape(diagnostic.message))</li>\n"
            }
            html += "</ul></section>\n"
        }
        html += "</article>\n</li>"
        return html
    }

    /// The attachment's file beside the page: named by hash, never by anything in the payload.
    private func source(_ attachment: Attachment) -> String {
        "\(markupEscape(mediaFolderName))/\(markupEscape(String(attachment.filePath.split(separator: "/").last ?? "")))"
    }

    private func thumbnail(_ attachment: Attachment, label: String) -> String {
        switch attachment.kind {
        case .video: "<video class=\"thumb\" src=\"\(source(attachment))\" muted preload=\"metadata\" aria-label=\"\(markupEscape(label))\"></video>\n"
        case .audio: "<span class=\"thumb audio\" role=\"img\" aria-label=\"audio: \(markupEscape(label))\">&#9835;</span>\n"
        default: "<img class=\"thumb\" src=\"\(source(attachment))\" alt=\"\(markupEscape(label))\">\n"
        }
    }

    private func fullMedia(_ attachment: Attachment, label: String) -> String {
        switch attachment.kind {
        case .video: "<video src=\"\(source(attachment))\" controls playsinline preload=\"metadata\" aria-label=\"\(markupEscape(label))\"></video>"
        case .audio: "<audio src=\"\(source(attachment))\" controls preload=\"metadata\" aria-label=\"\(markupEscape(label))\"></audio>"
        default: "<img src=\"\(source(attachment))\" alt=\"\(markupEscape(label))\">"
        }
    }

    private func outcomeText(_ report: Report) -> String {
        switch report.outcome {
        case .attached:
            return report.attachments.map { "attached \($0.fileExtension) · \($0.size) bytes" }.joined(separator: ", ")
        case .unchanged: return "delivered without media (\(report.reason?.rawValue ?? ""))"
        case .invalidPayload: return "not delivered: invalid payload"
        }
    }
}

import NottiMedia

/// One payload drawn as its phone's notification (an iOS banner with its expanded,
/// long-press view; an Android notification with its big picture) and, for a
/// failure, why. Pictures are the renditions `PreviewPictures` drew; a video or a
/// sound is described, not copied beside the page.
///
/// Every string from a payload is untrusted: it is escaped, never interpreted.
struct HTMLCard: Sendable {
    /// The folder beside the page that holds the renditions, e.g. `report-media`.
    let mediaFolderName: String

    /// Codes after which iOS never runs the extension: the push shows, its media never does.
    static let extensionSkipped: Set<DiagnosticCode> = [.mutableContentMissing, .noAlert]

    /// - Parameter drawn: the renditions of the attached picture; nil when the card shows none.
    func render(_ report: Report, drawn: PreviewPictures.Drawn? = nil) -> String {
        let content = report.content
        let title = content?["title"]?.stringValue
        let subtitle = content?["subtitle"]?.stringValue
        let body = content?["body"]?.stringValue
        // The SDK's own id of the push (iOS keeps it in userInfo; an Android record has the data the app receives).
        let idKey = Self.notificationIDKey(report.sdk)
        let notificationID = idKey.flatMap { key in (content?["userInfo"] ?? content?["data"])?.value(at: key.path).flatMap(Self.text) }
        // A certificate about to end is the host's, said once at the top of the page (SPEC 10), not on every card.
        let diagnostics = report.diagnostics.filter { $0.code != .certificateExpiring }
        let hasWarnings = diagnostics.contains { $0.severity == .warning }
        let status = report.passed ? "passed" : "failed"
        let skipped = report.diagnostics.first { Self.extensionSkipped.contains($0.code) }
        // The card is the phone: media only when the extension ran and attached it.
        let shown = report.attachment
        let mediaURLs = report.media.all.flatMap { [$0.url, $0.finalURL].compactMap { $0 } }
        let searchable = ([report.source, title, subtitle, body, notificationID, report.sdk.rawValue, report.sdk.displayName] + mediaURLs)
            .compactMap { $0 }.joined(separator: " ").lowercased()
        let label = title ?? body ?? report.source

        // A send request's two records come one after the other: the grid draws them side by side.
        let android = report.platform == .android
        let device = android ? "Android" : report.source.hasSuffix("#ios") ? "iPhone" : nil
        var html = "<li class=\"card \(status)\(hasWarnings ? " warned" : "")\(android ? " android" : "")\" data-status=\"\(status)\""
        html += " data-warnings=\"\(hasWarnings ? 1 : 0)\" data-text=\"\(markupEscape(searchable))\">\n"
        html += "<article aria-label=\"\(markupEscape(label))\">\n"
        html += "<p class=\"source\"><span class=\"badge \(status)\">\(report.passed ? (hasWarnings ? "passed, with warnings" : "passed") : "failed")</span> "
        html += "<code>\(markupEscape(report.source))</code> <span class=\"outcome\">\(markupEscape(outcomeText(report)))</span></p>\n"
        html += "<div class=\"banner\">\n<div class=\"icon\" aria-hidden=\"true\">\(markupEscape(String(report.sdk.displayName.prefix(1))))</div>\n<div class=\"text\">\n"
        html += "<p class=\"meta\"><span class=\"app\">APP</span>\(device.map { "<span class=\"device\">\($0)</span>" } ?? "")<span class=\"when\">now</span></p>\n"
        if let title { html += "<h3 class=\"title\">\(markupEscape(title))</h3>\n" }
        if let subtitle { html += "<p class=\"subtitle\">\(markupEscape(subtitle))</p>\n" }
        if let body { html += "<p class=\"body\">\(markupEscape(body))</p>\n" }
        if title == nil && subtitle == nil && body == nil {
            html += "<p class=\"body empty\">(no alert text: iOS shows nothing, and the extension does not run)</p>\n"
        }
        html += "</div>\n"
        let decoded = shown.flatMap { shown in report.media.all.first { $0.sha256 == shown.sha256 }?.decoded }
        if shown != nil, android {
            // Android draws the big picture below the text, across the notification; Expo's builder the
            // large icon alone, a small square beside the text (SPEC 20).
            html += report.showsLargeIcon ? largeIcon(drawn, label: label) : bigPicture(drawn, label: label)
        } else if let shown {
            html += thumbnail(shown, drawn: drawn, decoded: decoded, label: label)
        }
        html += "</div>\n"
        if let shown, !android {
            html += "<details class=\"expanded\"><summary>Expanded view (long press)</summary>\n<div class=\"large\">"
            html += fullMedia(shown, drawn: drawn, decoded: decoded, label: label)
            html += "</div>\n"
            if let title { html += "<h3 class=\"title\">\(markupEscape(title))</h3>\n" }
            if let subtitle { html += "<p class=\"subtitle\">\(markupEscape(subtitle))</p>\n" }
            if let body { html += "<p class=\"full-body\">\(markupEscape(body))</p>\n" }
            html += "</details>\n"
        } else if let phone = phoneLine(report, skipped: skipped) {
            html += "<p class=\"phone\">\(markupEscape(phone))</p>\n"
        }
        // Attached, and the phone cannot draw or play it (SPEC 17): said under the attachment.
        if shown != nil, let failing = report.diagnostics.first(where: { $0.code.failsAnAttachment }) {
            html += "<p class=\"phone\">Attached, but not shown on the phone: \(markupEscape(failing.code.plainLanguage))</p>\n"
        }
        html += facts(report, notificationID: idKey.map { ($0.name, notificationID) })
        if !diagnostics.isEmpty {
            html += "<section class=\"why\"><h4>\(report.passed ? "Warnings" : "Why")</h4>\n<ul>\n"
            for diagnostic in diagnostics {
                html += "<li class=\"\(diagnostic.severity.rawValue)\"><strong>\(diagnostic.severity.rawValue)</strong> "
                html += "<code>\(markupEscape(diagnostic.codeText))</code> <span class=\"plain\">\(markupEscape(DiagnosticCode.plainLanguage(for: diagnostic, sdk: report.sdk)))</span>"
                html += "<br><span class=\"message\">\(markupEscape(diagnostic.message))</span></li>\n"
            }
            html += "</ul></section>\n"
        }
        html += "</article>\n</li>"
        return html
    }

    /// Why the phone shows no media, in words, and the media's own verdict beside it.
    private func phoneLine(_ report: Report, skipped: Diagnostic?) -> String? {
        if report.outcome == .invalidPayload { return "Not delivered: \(DiagnosticCode.invalidPayload.plainLanguage)" }
        if report.outcome == .rejected {
            return "Nothing arrives on the phone: \(DiagnosticCode.plainLanguage(for: DiagnosticCode.payloadTooLarge.rawValue))"
        }
        if let skipped {
            guard report.media.all.isEmpty == false else { return nil }
            // The media's own verdict, judged although no phone requests it.
            let fine = report.mediaVerdicts.allSatisfy { $0.reason == nil } ? report.mediaVerdicts.first : nil
            let verdict = fine.map { "the file is fine (\($0.type ?? "?"), \(ByteText.human($0.bytes ?? 0))), but the phone never fetches it" }
                ?? "and the media has problems of its own (below)"
            return "Media not shown on the phone: \(skipped.code.plainLanguage) \(verdict.prefix(1).uppercased() + verdict.dropFirst())."
        }
        guard let reason = report.reason, reason != .noMedia else { return nil }
        if reason == .atsViolation, let broken = report.media.all.lazy.compactMap({ $0.transfer?.connectionViolation(under: $0.policy) }).first {
            return "iPhones refuse this server: \(broken.violation.detail) (curl and Android connect)."
        }
        let plain = report.diagnostics.first { $0.code == reason && $0.severity == .error }
            .map { DiagnosticCode.plainLanguage(for: $0, sdk: report.sdk) } ?? DiagnosticCode.plainLanguage(for: reason.rawValue)
        return "Media not shown on the phone: \(plain)"
    }

    /// The facts a campaign manager searches by: SDK, notification id, every media URL and where it led.
    private func facts(_ report: Report, notificationID: (key: String, value: String?)?) -> String {
        var html = "<dl class=\"facts\">\n<div><dt>SDK</dt><dd>\(markupEscape(report.sdk.displayName))</dd></div>\n"
        if let (key, value) = notificationID {
            html += "<div><dt>\(markupEscape(key))</dt><dd>\(value.map { "<code>\(markupEscape($0))</code>" } ?? "none")</dd></div>\n"
        }
        for output in report.media.outputs where !output.facts.url.isEmpty {
            let media = output.facts
            html += "<div class=\"url\"><dt>media\(output.identifier.map { " (\(markupEscape($0)))" } ?? "")</dt><dd><code>\(markupEscape(media.url))</code>"
            if let final = media.finalURL, final != media.url {
                html += " → <code>\(markupEscape(final))</code>"
            }
            if let bytes = media.bytes { html += " · \(ByteText.human(bytes))" }
            html += "</dd></div>\n"
        }
        return html + "</dl>\n"
    }

    /// Where the SDK keeps the push's id, for the ones whose key is known: Notti's
    /// `notification_id`, OneSignal's `custom.i`. Others: no row (their ids are not modelled).
    static func notificationIDKey(_ sdk: SDK) -> (name: String, path: [String])? {
        switch sdk {
        case .notti: ("notification_id", ["notification_id"])
        case .onesignal: ("custom.i", ["custom", "i"])
        case .braze, .fcm, .airship, .clevertap, .iterable, .batch, .expo: nil
        }
    }

    private static func text(_ value: JSONValue) -> String? {
        switch value {
        case .string(let text): text
        case .number(let text): text
        default: nil
        }
    }

    /// A rendition beside the page: named by content hash, never by anything in the payload.
    private func source(_ name: String) -> String {
        "\(markupEscape(mediaFolderName))/\(markupEscape(name))"
    }

    /// What a browser can draw of the bytes: by what they are (the sniffed MIME type), not
    /// by the name the SDK gave them (an mp3 attached as .jpg is no picture).
    private static func drawnKind(_ attachment: Attachment) -> MediaType.Kind? {
        let mime = attachment.mimeType
        if mime.hasPrefix("image/") { return .image }
        if mime.hasPrefix("video/") { return .video }
        if mime.hasPrefix("audio/") { return .audio }
        return nil
    }

    /// Whether the attachment is a picture attached as one: the card draws its renditions.
    static func picture(_ attachment: Attachment) -> Bool {
        attachment.kind == .image && drawnKind(attachment) == .image
    }

    /// Nothing to draw, and why, where the picture would be. The banner's thumbnail is drawn as the phone
    /// draws it, empty (the why is its tooltip and accessible name: in a 38-point box the words were
    /// clipped to a stray MIME label); the larger views say why in words.
    private func undrawable(_ why: String, label: String, style: String) -> String {
        if style == "thumb" {
            return "<span class=\"thumb undrawable\" role=\"img\" aria-label=\"\(markupEscape(label)): \(markupEscape(why))\" "
                + "title=\"\(markupEscape(why))\"></span>\n"
        }
        return "<span class=\"\(style) undrawable\" role=\"img\" aria-label=\"\(markupEscape(label))\">\(markupEscape(why))</span>\n"
    }

    private func mismatch(_ attachment: Attachment) -> String {
        "\(attachment.mimeType) attached as .\(attachment.fileExtension): nothing to draw"
    }

    private func bigPicture(_ drawn: PreviewPictures.Drawn?, label: String) -> String {
        if case .pictures(let names)? = drawn, let name = names[.androidAsStored] ?? names[.android] {
            return "<img class=\"big-picture\" src=\"\(source(name))\" alt=\"\(markupEscape(label))\">\n"
        }
        if case .notDrawn(let why)? = drawn { return undrawable(why, label: label, style: "big-picture") }
        return undrawable("nothing to draw", label: label, style: "big-picture")
    }

    /// The picture as the large icon: the square from its middle, beside the text.
    private func largeIcon(_ drawn: PreviewPictures.Drawn?, label: String) -> String {
        if case .pictures(let names)? = drawn, let name = names[.androidAsStored] ?? names[.android] {
            return "<img class=\"large-icon\" src=\"\(source(name))\" alt=\"\(markupEscape(label)) (large icon)\">\n"
        }
        if case .notDrawn(let why)? = drawn { return undrawable(why, label: label, style: "thumb") }
        return undrawable("nothing to draw", label: label, style: "thumb")
    }

    /// A video's or a sound's facts, where the phone would show its player: the page does not copy the file.
    private func streamFacts(_ decoded: DecodedMedia?, kind: MediaType.Kind) -> String {
        var parts = [kind == .video ? "video" : "audio"]
        if let decoded {
            if let codec = decoded.videoCodec ?? decoded.audioCodec { parts.append(codec) }
            if let width = decoded.width, let height = decoded.height { parts.append("\(width)×\(height)") }
            if let seconds = decoded.durationSeconds { parts.append("\(NumberText.decimal((seconds * 10).rounded() / 10)) s") }
        }
        return parts.joined(separator: " · ")
    }

    private func thumbnail(_ attachment: Attachment, drawn: PreviewPictures.Drawn?, decoded: DecodedMedia?, label: String) -> String {
        guard let kind = Self.drawnKind(attachment), kind == attachment.kind else {
            return undrawable(mismatch(attachment), label: label, style: "thumb")
        }
        switch (kind, drawn) {
        case (.video, _):
            return "<span class=\"thumb stream\" role=\"img\" aria-label=\"\(markupEscape(streamFacts(decoded, kind: .video))): \(markupEscape(label))\">&#9654;</span>\n"
        case (.audio, _):
            return "<span class=\"thumb stream\" role=\"img\" aria-label=\"audio: \(markupEscape(label))\">&#9835;</span>\n"
        case (_, .pictures(let names)?) where names[.iosThumbnail] != nil:
            return "<img class=\"thumb\" src=\"\(source(names[.iosThumbnail]!))\" alt=\"\(markupEscape(label))\">\n"
        case (_, .notDrawn(let why)?): return undrawable(why, label: label, style: "thumb")
        default: return undrawable("nothing to draw", label: label, style: "thumb")
        }
    }

    private func fullMedia(_ attachment: Attachment, drawn: PreviewPictures.Drawn?, decoded: DecodedMedia?, label: String) -> String {
        guard let kind = Self.drawnKind(attachment), kind == attachment.kind else {
            return undrawable(mismatch(attachment), label: label, style: "")
        }
        switch (kind, drawn) {
        case (.video, _), (.audio, _):
            return "<p class=\"stream\">\(kind == .video ? "&#9654;" : "&#9835;") \(markupEscape(streamFacts(decoded, kind: kind)))"
                + " <span class=\"muted\">(the page describes it; it keeps no copy of the file)</span></p>"
        case (_, .pictures(let names)?) where names[.iosExpanded] != nil:
            return "<img src=\"\(source(names[.iosExpanded]!))\" alt=\"\(markupEscape(label))\">"
        case (_, .notDrawn(let why)?): return undrawable(why, label: label, style: "")
        default: return undrawable("nothing to draw", label: label, style: "")
        }
    }

    private func outcomeText(_ report: Report) -> String {
        switch report.outcome {
        case .attached:
            return report.attachments.map { "attached \($0.fileExtension) · \(ByteText.human($0.size))" }.joined(separator: ", ")
        case .unchanged: return "delivered without media (\(report.reason?.rawValue ?? ""))"
        case .invalidPayload: return "not delivered: invalid payload"
        case .rejected: return "not delivered: APNs rejects the payload"
        }
    }
}

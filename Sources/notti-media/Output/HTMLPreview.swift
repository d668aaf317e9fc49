import Glibc
import NottiMedia

/// `check --html FILE`: a page that shows every push as the phone would, with
/// its pictures in `FILE`-without-extension + `-media/` (small renditions of
/// each attached picture as each phone draws it, named by content hash and
/// referenced relatively; never the downloaded files), so the two can be zipped
/// and opened anywhere. No network resources: styles and the filter script are inline.
///
/// Cards stream to two spools in the run's scratch folder as records arrive, the
/// failed pushes' and the passing ones' (the header's totals, and how many passing
/// cards fit, are known only at the end), so memory stays flat.
final class HTMLPreview: @unchecked Sendable {
    let pagePath: String
    let mediaFolder: String
    let card: HTMLCard
    // Used by the writer thread only, then by `finish`.
    private let spool: Spool
    private let passingSpool: Spool
    /// Where each passing card ends in `passingSpool`, and the renditions it shows: those past
    /// the page's bound are left out at the end, and their renditions with them.
    private var passingCards: [(end: Int, pictures: [String])] = []
    /// The renditions the failed pushes' cards show (always on the page).
    private var failingPictures: Set<String> = []
    /// The input being added: where its cards go, its records still to come, its passing cards' renditions.
    private var inputPart = CardSelection.Part.none
    private var companionsLeft = 0
    private var inputPictures: [String] = []
    /// The renditions the cards show, drawn by the decode workers (on the fetch threads: `drawPictures`).
    private let pictures: PreviewPictures
    /// `--errors-only`: a passing push gets no card, so its pictures are not drawn.
    private let errorsOnly: Bool
    /// Which pushes get a card (writer thread).
    private var selection: CardSelection
    /// Files an earlier page stored in the media folder: what this page does not reference goes at the end.
    private let earlierMedia: Set<String>
    private var warned = 0
    /// What the header says about the run: when, which tool, profile, limits, options.
    private let context: PreviewContext

    /// Checks the page's path and makes its media folder (and the page's folder)
    /// before any download.
    /// - Throws: `UsageError` when `path` is a folder; `LocalError` when a folder cannot be made.
    init(path: String, spool: Spool, passingSpool: Spool, context: PreviewContext, decoder: DecodeWorker, errorsOnly: Bool = false) throws {
        selection = CardSelection(errorsOnly: errorsOnly)
        self.errorsOnly = errorsOnly
        let page = FilePaths.standardized(path)
        try FileTarget.check(page, option: "html")
        let folder = FilePaths.deletingExtension(page) + "-media"
        // Like --out, the page's folder is created when missing (`--html out/report.html` on a clean clone).
        if let error = FilePaths.makeFolders(folder, mode: 0o777) {
            throw LocalError("--html: cannot create \(folder): \(error.message)")
        }
        earlierMedia = try Self.earlierMedia(in: folder)
        pictures = PreviewPictures(folder: folder, decoder: decoder, earlier: earlierMedia)
        self.pagePath = page
        self.mediaFolder = folder
        self.card = HTMLCard(mediaFolderName: FilePaths.lastComponent(folder))
        self.spool = spool
        self.passingSpool = passingSpool
        self.context = context
    }

    /// What the media folder holds before the run: only files the tool names by
    /// content hash (renditions, `<sha256>-<rendition>.jpg`, or the downloaded files
    /// pages of version 0.3 and earlier stored, `<sha256>.<ext>`), regular files.
    /// - Throws: `UsageError` when anything else is there: the folder is refused, never cleaned.
    private static func earlierMedia(in folder: String) throws(UsageError) -> Set<String> {
        do {
            // Renditions, or the downloaded files pages of 0.3 and earlier stored (`<sha256>.<ext>`).
            return try ContentHashName.names(inFolder: folder) { name in
                PreviewPictures.isRenditionName(name) || ContentHashName.isHashDotExtension(name, uppercaseExtension: true)
            }
        } catch {
            switch error {
            case .notAFolder:
                throw UsageError("--html: \(folder) is not a folder the tool made for the page's media; move it away")
            case .unlistable(let why):
                throw UsageError("--html: cannot list \(folder): \(why.message)")
            case .holds(let name):
                throw UsageError("--html: \(folder) holds \(name), which the tool did not put there; "
                    + "the page's media folder must hold only the page's media: move it away, or write the page elsewhere")
            }
        }
    }

    /// Draws the pictures a card of `report` shows, the first time their content is seen: called on
    /// the fetch thread that rendered the record, before the record reaches the writer, so that the
    /// decode workers draw while other records are written (one slow picture held back every record
    /// after it when the writer drew). Whether the card is kept is the writer's to say; a drawing
    /// no kept card shows is removed at the end, as before.
    func drawPictures(_ report: Report) {
        if errorsOnly && report.passed { return }
        _ = drawn(report)
    }

    /// Adds a record's card when the page keeps it, with the pictures `drawPictures` drew (drawing
    /// any it did not). Runs on the writer thread, in input order.
    func add(_ record: CheckRecord, report: Report) {
        if record.diagnostics.contains(where: { $0.severity == .warning }) { warned += 1 }
        // A request's records arrive one after the other, the first carrying the rest as companions:
        // they share one place, so their cards stay side by side.
        let part: CardSelection.Part
        if companionsLeft > 0 {
            companionsLeft -= 1
            part = inputPart
        } else {
            part = selection.place(record)
            inputPart = part
            companionsLeft = record.companions.count
            inputPictures = []
        }
        guard part != .none else { return }
        let drawn = drawn(report)
        let names: [String] = if case .pictures(let names)? = drawn { Array(names.values) } else { [] }
        let html = card.render(report, drawn: drawn)
        if part == .failing {
            spool.writeLine(html)
            failingPictures.formUnion(names)
        } else {
            passingSpool.writeLine(html)
            inputPictures += names
            if companionsLeft == 0 { passingCards.append((passingSpool.bytesWritten, inputPictures)) }
        }
    }

    /// The renditions of the picture the card shows, as its platform draws it; nil when it shows no picture.
    private func drawn(_ report: Report) -> PreviewPictures.Drawn? {
        guard let shown = report.attachment, HTMLCard.picture(shown) else { return nil }
        let decoded = report.media.all.first { $0.sha256 == shown.sha256 }?.decoded
        let renditions: [PreviewPictures.Rendition] = if report.platform == .android {
            // As the record's verdict says the phone decodes it: BitmapFactory ignores the orientation.
            [report.diagnostics.contains { $0.code == .orientationIgnored } ? .androidAsStored : .android]
        } else {
            [.iosThumbnail, .iosExpanded]
        }
        return pictures.draw(shown, decoded: decoded, as: renditions)
    }

    /// Writes the page to a new file beside it, then renames it into place, so
    /// no half page is ever left and no file of someone else's is overwritten
    /// on the way.
    /// - Throws: `LocalError` when the page or its media cannot be written.
    func finish(_ summary: CheckSummary) throws(LocalError) {
        if let failure = pictures.writeFailure { throw LocalError("--html: \(failure)") }
        // The passing cards that fit after the failed ones; after the run the folder holds exactly
        // what the page references (renditions drawn for a card left out go with it).
        let passingKept = selection.passingKept
        let passingEnd = passingKept == 0 ? 0 : passingCards[passingKept - 1].end
        let shownPictures = passingCards.prefix(passingKept).reduce(into: failingPictures) { $0.formUnion($1.pictures) }
        for name in earlierMedia.union(pictures.referenced).subtracting(shownPictures) { unlink("\(mediaFolder)/\(name)") }
        let folder = FilePaths.parent(pagePath)
        // Created exclusively with the user's usual mode (0666 less the umask), as the page will be.
        let temporary = "\(folder)/.notti-media-page-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).partial"
        let descriptor: Int32
        switch OwnedPaths.run.createFile(temporary, mode: 0o666) {
        case .success(let made): descriptor = made
        case .failure(let error): throw LocalError("--html: cannot write \(pagePath): \(error.message)")
        }
        guard let page = fdopen(descriptor, "w") else {
            close(descriptor)
            OwnedPaths.run.remove(temporary)
            throw LocalError("--html: cannot write \(pagePath)")
        }
        // Every byte the run downloaded, once per distinct URL, whatever its verdict (a file too large
        // for iOS was still downloaded whole): what the page's "downloaded" says.
        let bytes = summary.media.totals.bytes
        fputs(Self.head, page)
        fputs(Self.header(summary, warned: warned, bytes: bytes, context: context, leftOut: selection.note), page)
        var spoolError: LocalError?
        do {
            try spool.readBack { fwrite($0.baseAddress, 1, $0.count, page) }
            try passingSpool.readBack(upTo: passingEnd) { fwrite($0.baseAddress, 1, $0.count, page) }
        } catch {
            spoolError = error
        }
        fputs("</ol>\n</main>\n" + Self.script + "</body>\n</html>\n", page)
        var failure: Errno? = ferror(page) != 0 ? Errno(errno) : nil
        if fclose(page) != 0 && failure == nil { failure = Errno(errno) }
        if spoolError == nil && failure == nil && rename(temporary, pagePath) == 0 {
            OwnedPaths.run.release(temporary)
            return
        }
        let why = spoolError?.message ?? (failure ?? Errno(errno)).message
        OwnedPaths.run.remove(temporary)
        throw LocalError("--html: cannot write \(pagePath): \(why)")
    }

    private static func header(_ summary: CheckSummary, warned: Int, bytes: Int, context: PreviewContext, leftOut: String?) -> String {
        """
            <header>
            <h1>notti-media: \(markupEscape(TextFormat.counted(summary))) as the phone shows them\(summary.interrupted ? " (interrupted)" : "")</h1>
            <dl class="run">
            <div><dt>made</dt><dd>\(markupEscape(context.made))</dd></div>
            <div><dt>by</dt><dd>\(markupEscape(context.tool))</dd></div>
            <div><dt>SDK profile</dt><dd>\(markupEscape(context.sdk))</dd></div>
            <div><dt>limits</dt><dd>\(markupEscape(context.limits(seen: summary.profiles, android: summary.androidProfiles)))</dd></div>
            <div><dt>options</dt><dd>\(markupEscape(context.options))</dd></div>
            </dl>
            <dl class="totals">
            <div><dt>passed</dt><dd>\(summary.passed)</dd></div>
            <div class="bad"><dt>failed</dt><dd>\(summary.failed)</dd></div>
            <div class="warn"><dt>with warnings</dt><dd>\(warned)</dd></div>
            <div><dt>payloads</dt><dd>\(summary.inputs)</dd></div>
            <div><dt>records</dt><dd>\(summary.payloads)</dd></div>
            <div><dt>distinct media</dt><dd>\(summary.media.totals.urls)</dd></div>
            <div><dt>downloaded by this check</dt><dd>\(ByteText.human(bytes))</dd></div>
            </dl>
            \(hostFindings(summary))
            \(riskTables(summary))
            <form class="filters" hidden role="search" onsubmit="return false">
            <fieldset><legend>Show</legend>
            <label><input type="radio" name="show" value="all" checked> all</label>
            <label><input type="radio" name="show" value="failed"> failed</label>
            <label><input type="radio" name="show" value="warnings"> warnings</label>
            </fieldset>
            <label>Find <input type="search" name="find" placeholder="title, body, media URL, notification id or file"></label>
            </form>
            </header>
            <main>
            <h2>Failed pushes first, then passing ones, each in input order</h2>
            \(leftOut.map { "<p class=\"left-out\" role=\"note\">\(markupEscape($0))</p>" } ?? "")
            <ol class="cards">

            """
    }

    /// The findings about hosts (SPEC 10), once each at the top of the page: no card repeats them.
    private static func hostFindings(_ summary: CheckSummary) -> String {
        let found = summary.hostFindings
        guard !found.isEmpty else { return "" }
        var html = "<section class=\"host-findings why\" aria-label=\"media hosts\"><h2>Media hosts</h2>\n<ul>\n"
        for finding in found {
            html += "<li class=\"\(finding.severity.rawValue)\"><strong>\(finding.severity.rawValue)</strong> "
                + "<code>\(markupEscape(finding.code.rawValue))</code> <span class=\"plain\">\(markupEscape(finding.code.plainLanguage))</span>"
                + "<br><span class=\"message\">\(markupEscape(finding.message))</span></li>\n"
        }
        return html + "</ul></section>"
    }

    /// Send time, as pictures people read faster than numbers: per media host what
    /// every phone pulls from it at once (and how much no CDN will cache), and per
    /// network how many pushes arrive without their media.
    private static func riskTables(_ summary: CheckSummary) -> String {
        let hosts = summary.hostLoads
        guard !hosts.isEmpty else { return "" }
        let most = max(1, hosts.map(\.bytes).max() ?? 1)
        func percent(_ part: Int, of whole: Int) -> Int { whole == 0 ? 0 : Int((Double(part) * 100 / Double(whole)).rounded()) }
        var html = "<section class=\"risk\"><h2>At send time, every recipient's phone downloads at once</h2>\n"
        html += "<table class=\"hosts\"><thead><tr><th>media host</th><th>phones' downloads at send time</th><th>bytes pulled at send time</th><th>not cacheable</th><th></th></tr></thead><tbody>\n"
        for load in hosts {
            let refused = load.atsViolation.map { " <span class=\"refused\">iPhones refuse this server: \(markupEscape($0))</span>" } ?? ""
            html += "<tr><td><code>\(markupEscape(load.host))</code>\(refused)</td><td>\(load.downloads)</td><td>\(ByteText.human(load.bytes))</td>"
            html += "<td>\(ByteText.human(load.notCacheableBytes))</td><td class=\"bars\" aria-hidden=\"true\">"
            html += "<span class=\"bar\" style=\"width: \(percent(load.bytes, of: most))%\">"
            html += "<span class=\"bar origin\" style=\"width: \(percent(load.notCacheableBytes, of: load.bytes))%\"></span></span></td></tr>\n"
        }
        html += "</tbody></table>\n"
        html += "<table class=\"networks\"><thead><tr><th>network</th><th>pushes without media</th><th></th></tr></thead><tbody>\n"
        for (network, payloads) in summary.payloadsMissing {
            html += "<tr><td>\(markupEscape(network.name)) <span class=\"muted\">\(markupEscape(network.description))</span></td>"
            html += "<td>\(payloads) of \(summary.payloads)</td><td class=\"bars\" aria-hidden=\"true\">"
            html += "<span class=\"bar miss\" style=\"width: \(percent(payloads, of: summary.payloads))%\"></span></td></tr>\n"
        }
        return html + "</tbody></table></section>\n"
    }

    private static let head = """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src 'self' file:; media-src 'self' file:; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
        <title>notti-media preview</title>
        <style>
        :root { color-scheme: light dark; --bg: #f2f2f7; --card: #ffffff; --banner: rgba(245,245,247,.96); --text: #1c1c1e;
          --muted: #6e6e73; --line: #d1d1d6; --bad: #d70015; --warn: #b25000; --good: #248a3d; }
        @media (prefers-color-scheme: dark) { :root { --bg: #000000; --card: #1c1c1e; --banner: rgba(44,44,46,.96);
          --text: #f2f2f7; --muted: #aeaeb2; --line: #3a3a3c; --bad: #ff6961; --warn: #ffb340; --good: #30d158; } }
        * { box-sizing: border-box; }
        body { margin: 0; background: var(--bg); color: var(--text);
          font: 15px/1.35 -apple-system, system-ui, "Segoe UI", Roboto, "Helvetica Neue", sans-serif; }
        header, main { max-width: 1280px; margin: 0 auto; padding: 16px; }
        .run { display: flex; flex-wrap: wrap; gap: 4px 18px; margin: 0 0 12px; font-size: 13px; color: var(--muted); }
        .run div { display: flex; gap: 6px; } .run dt { font-weight: 600; } .run dd { margin: 0; }
        h1 { font-size: 20px; margin: 8px 0 12px; }
        h2 { font-size: 15px; color: var(--muted); font-weight: 600; margin: 4px 0 8px; }
        .totals { display: flex; flex-wrap: wrap; gap: 8px; margin: 0 0 12px; }
        .totals div { background: var(--card); border-radius: 12px; padding: 8px 12px; min-width: 96px; }
        .totals dt { font-size: 12px; color: var(--muted); }
        .totals dd { margin: 0; font-size: 20px; font-weight: 700; }
        .totals .bad dd { color: var(--bad); } .totals .warn dd { color: var(--warn); }
        .filters { display: flex; flex-wrap: wrap; gap: 12px; align-items: center; }
        .filters fieldset { border: 0; padding: 0; margin: 0; display: flex; gap: 10px; }
        .filters legend { float: left; margin-right: 8px; color: var(--muted); }
        .filters > label { display: flex; gap: 8px; align-items: center; flex: 1 1 320px; }
        .filters input[type=search] { font: inherit; padding: 6px 10px; border-radius: 10px; border: 1px solid var(--line);
          background: var(--card); color: var(--text); flex: 1; min-width: 0; max-width: 520px; }
        .cards { list-style: none; padding: 0; margin: 0; display: grid; gap: 14px;
          grid-template-columns: repeat(auto-fill, minmax(min(100%, 380px), 1fr)); align-items: start; }
        .phone { margin: 8px 0 0; padding: 8px 10px; border-radius: 10px; background: var(--bg); font-size: 13px; }
        .facts { margin: 8px 0 0; font-size: 12px; color: var(--muted); display: grid; gap: 2px; }
        .facts div { display: flex; gap: 6px; min-width: 0; } .facts dt { font-weight: 600; flex: none; }
        .facts dd { margin: 0; min-width: 0; overflow-wrap: anywhere; }
        .why .plain { font-weight: 500; } .why .message { color: var(--muted); }
        .risk { margin: 0 0 14px; display: flex; flex-wrap: wrap; gap: 8px 24px; align-items: flex-start; }
        .risk h2 { flex-basis: 100%; margin: 4px 0 0; }
        .risk table { border-collapse: collapse; background: var(--card); border-radius: 12px; font-size: 13px; }
        .risk th, .risk td { text-align: left; padding: 4px 10px; } .risk th { color: var(--muted); font-weight: 600; }
        .risk .bars { width: 160px; } .risk .muted { color: var(--muted); font-size: 12px; }
        .risk .refused { color: var(--bad); font-size: 12px; display: block; }
        .bar { display: block; height: 10px; border-radius: 5px; background: var(--good); min-width: 2px; }
        .bar.origin { background: var(--bad); } .bar.miss { background: var(--warn); }
        .card, .card article, .why li, .source code { min-width: 0; overflow-wrap: anywhere; }
        .card article { background: var(--card); border-radius: 18px; padding: 12px; border-left: 4px solid var(--good); }
        .card.failed article { border-left-color: var(--bad); } .card.warned article { border-left-color: var(--warn); }
        .source { margin: 0 0 8px; font-size: 12px; color: var(--muted); overflow-wrap: anywhere; }
        .badge { font-weight: 700; color: var(--good); } .badge.failed { color: var(--bad); }
        .banner { display: flex; gap: 10px; align-items: flex-start; background: var(--banner); border-radius: 16px;
          padding: 10px 12px; box-shadow: 0 1px 3px rgba(0,0,0,.18); }
        .icon { flex: none; width: 38px; height: 38px; border-radius: 9px; background: linear-gradient(135deg,#ff9500,#ff2d55);
          color: #fff; font-weight: 800; display: grid; place-items: center; font-size: 20px; }
        .text { flex: 1; min-width: 0; }
        .meta { display: flex; justify-content: space-between; margin: 0; font-size: 12px; color: var(--muted); }
        .title { margin: 1px 0 0; font-size: 15px; font-weight: 650; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
        .subtitle { margin: 0; font-weight: 500; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
        .body { margin: 0; display: -webkit-box; -webkit-box-orient: vertical; -webkit-line-clamp: 4; line-clamp: 4;
          overflow: hidden; overflow-wrap: anywhere; }
        .body.empty { color: var(--muted); font-style: italic; }
        .thumb { flex: none; width: 38px; height: 38px; border-radius: 7px; object-fit: cover; background: var(--line); }
        .android .banner { flex-wrap: wrap; border-radius: 12px; }
        .big-picture { flex-basis: 100%; width: 100%; aspect-ratio: 416 / 284; object-fit: cover; border-radius: 8px; background: var(--line); }
        .large-icon { flex: none; width: 44px; height: 44px; border-radius: 6px; object-fit: cover; background: var(--line); }
        .device { margin-left: 6px; font-size: 11px; color: var(--muted); }
        .thumb.stream { display: grid; place-items: center; font-size: 20px; }
        .stream { margin: 8px 0 0; } .stream .muted { color: var(--muted); font-size: 12px; }
        .undrawable { display: grid; place-items: center; font-size: 9px; line-height: 1.1; text-align: center; overflow: hidden; color: var(--bad); }
        .large .undrawable, .big-picture.undrawable { font-size: 13px; padding: 1em; }
        .expanded { margin-top: 8px; }
        .expanded summary { cursor: pointer; color: var(--muted); font-size: 13px; }
        .large img, .large video { display: block; width: 100%; max-height: 420px; object-fit: contain; border-radius: 14px;
          background: #000; margin-top: 8px; }
        .large audio { width: 100%; margin-top: 8px; }
        .full-body { white-space: pre-wrap; overflow-wrap: anywhere; margin: 2px 0 0; }
        .why { margin-top: 10px; font-size: 13px; }
        .why h4 { margin: 0 0 4px; font-size: 13px; }
        .why ul { margin: 0; padding-left: 18px; }
        .why li { margin: 2px 0; overflow-wrap: anywhere; }
        .why .error strong { color: var(--bad); } .why .warning strong { color: var(--warn); }
        code { font: 12px ui-monospace, SFMono-Regular, Menlo, monospace; }
        [hidden] { display: none !important; }
        </style>
        </head>
        <body>

        """

    /// Progressive enhancement: without it, every card shows and the filters stay hidden.
    private static let script = """
        <script>
        (function () {
          var form = document.querySelector(".filters"), cards = document.querySelectorAll(".card");
          form.hidden = false;
          function apply() {
            var show = form.querySelector("input[name=show]:checked").value;
            var find = form.elements.find.value.trim().toLowerCase();
            cards.forEach(function (card) {
              var keep = (show === "all" || (show === "failed" && card.dataset.status === "failed")
                || (show === "warnings" && card.dataset.warnings === "1"))
                && (!find || card.dataset.text.indexOf(find) >= 0);
              card.hidden = !keep;
            });
          }
          form.addEventListener("input", apply);
          // A link can carry a search: report.html#find=n-1001 opens on that push.
          var hash = decodeURIComponent(location.hash.slice(1));
          if (hash.indexOf("find=") === 0) { form.elements.find.value = hash.slice(5); apply(); }
        })();
        </script>

        """
}

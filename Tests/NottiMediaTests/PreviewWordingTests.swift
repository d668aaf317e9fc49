import Foundation
import Testing

/// What the preview page says in words, and counts (SPEC 11).
@Suite struct PreviewWordingTests {
    let server = TestServer.shared

    /// The page for `lines` (static HTML: the cards are in the file, the script only filters them).
    private func page(_ lines: [String], _ extra: [String] = []) throws -> String {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let page = folder.appendingPathComponent("report.html")
        _ = try CLI.run(["check", "-", "--cacert", Paths.testCA, "--html", page.path, "--out", folder.appendingPathComponent("out").path] + extra,
                        stdin: lines.joined(separator: "\n") + "\n")
        return try String(contentsOf: page, encoding: .utf8)
    }

    private func braze(_ url: String, type: String) -> String {
        #"{"aps": {"alert": "x", "mutable-content": 1}, "ab": {"att": {"url": "\#(url)", "type": "\#(type)"}}}"#
    }

    @Test func downloadedCountsEveryByteFetchedWhateverTheVerdict() throws {
        // 539 B attached, and 5,266,800 B of mp3 downloaded whole that iOS then refuses (over 5 MiB).
        let html = try page([payload(url: server.url("/media/logo.png")), payload(url: server.url("/repeat/1260/tone.mp3"))])
        // Labelled apart from the bytes phones pull at send time (SPEC 10).
        #expect(html.contains("<div><dt>downloaded by this check</dt><dd>5.3 MB</dd></div>"), "\(html.components(separatedBy: "downloaded").dropFirst().first?.prefix(60) ?? "")")
    }

    @Test func errorsOnlyLeavesNoNoteAboutPassedPushesItWasAskedToDrop() throws {
        let lines = [payload(url: server.url("/status/404")), payload(url: server.url("/media/logo.png")), payload(url: nil)]
        let html = try page(lines, ["--errors-only"])
        #expect(!html.contains("Left out"))
        #expect(!html.contains("failed pushes (--errors-only)"))
        #expect(html.components(separatedBy: "<li class=\"card ").count - 1 == 1)
    }

    @Test func plainLinesSayWhatThePhoneDoes() throws {
        let html = try page([
            braze(server.url("/media/badge.webp"), type: "webp"),
            payload(url: server.url("/media/badge.webp")),
            payload(url: server.url("/media/photo.jpg?type=image/png")),
        ], ["--sdk", "auto"])
        let cards = Array(html.components(separatedBy: "<li class=\"card ").dropFirst())
        #expect(cards.count == 3)
        #expect(cards[0].contains("The phone cannot show this kind of file"), "Braze: iOS refuses a .webp attachment")
        #expect(!cards[0].contains("may not be able"))
        #expect(cards[1].contains("The phone may not be able to show this kind of file"), "Notti attaches it as jpg: it may not render")
        #expect(cards[2].contains("the SDK reads the bytes, so the phone still shows it"))
        #expect(!cards[2].contains("may show it wrong"))
    }

    @Test func theIDRowIsTheSDKsOwnKey() throws {
        let oneSignal = #"{"aps": {"alert": "x", "mutable-content": 1}, "custom": {"i": "os-42"}, "att": {"a": "\#(server.url("/media/logo.png"))"}}"#
        let html = try page([oneSignal, braze(server.url("/media/logo.png"), type: "png")], ["--sdk", "auto"])
        let cards = Array(html.components(separatedBy: "<li class=\"card ").dropFirst())
        #expect(cards[0].contains("<dt>custom.i</dt><dd><code>os-42</code></dd>"))
        #expect(!cards[0].contains("<dt>notification_id</dt>"))
        #expect(!cards[1].contains("<dt>notification_id</dt>"), "Braze's id is not notification_id")
    }

    @Test func audioAttachedAsAPictureIsNotDrawnAsABrokenImage() throws {
        let html = try page([braze(server.url("/media/tone.mp3"), type: "jpg")], ["--sdk", "braze"])
        let card = html.components(separatedBy: "<li class=\"card ").dropFirst().first ?? ""
        #expect(card.contains("audio/mpeg attached as .jpg: nothing to draw"))
        #expect(!card.contains("<img"))
        // The banner's thumbnail is empty, as the phone draws it: the why is its tooltip, not clipped words.
        #expect(card.contains(#"<span class="thumb undrawable" role="img" aria-label=""#), "\(card.prefix(1500))")
        #expect(card.contains(#"title="audio/mpeg attached as .jpg: nothing to draw"></span>"#), "\(card.prefix(1500))")
    }
}

import Foundation
import Testing

/// `check --html`: the page as headless Chromium renders it.
@Suite struct PreviewTests {
    let server = TestServer.shared

    private func makePreview(_ lines: [String]) throws -> (dom: String, page: URL, folder: URL, result: CLI.Result) {
        let folder = Paths.temporaryFolder()
        // A folder that does not exist yet, as `--html out/report.html` on a clean clone.
        let page = folder.appendingPathComponent("out/report.html")
        let result = try CLI.run(
            ["check", "--cacert", Paths.testCA, "--html", page.path, "-"], stdin: lines.joined(separator: "\n"))
        return (try Browser.renderedDOM(of: page.path), page, folder, result)
    }

    @Test func onePushACardFailuresMarkedMediaBesideThePage() throws {
        let lines = [
            payload(url: server.url("/media/logo.png")), payload(url: server.url("/media/spinner.gif")),
            payload(url: server.url("/media/clip.mp4")), payload(url: server.url("/media/tone.mp3")),
            payload(url: server.url("/status/404")), payload(url: "http://cdn.example.com/x.png"),
            payload(url: server.url("/media/logo.png")), "{not json",
        ]
        let (dom, _, folder, result) = try makePreview(lines)
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(result.status == 1)
        #expect(Browser.count("<li class=\"card ", in: dom) == 8)
        #expect(Browser.count("<li class=\"card failed", in: dom) == 3)
        // A video and a sound are described, not copied beside the page.
        #expect(Browser.count("<video", in: dom) == 0 && Browser.count("<audio", in: dom) == 0)
        #expect(dom.contains("video · h264 · 64×48 · 1 s"), "the clip's decoded facts where its player would be")
        let sources = Browser.captures("src=\"([^\"]+)\"", in: dom)
        #expect(!sources.isEmpty)
        for source in sources {
            #expect(source.hasPrefix("report-media/"), "\(source) is not beside the page")
            #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("out/" + source).path), "\(source) is missing")
        }
        // The two pictures' renditions, each once however many cards show it; never a downloaded file.
        let logo = try Paths.sha256(ofFile: Paths.fixture("media/logo.png")), spinner = try Paths.sha256(ofFile: Paths.fixture("media/spinner.gif"))
        let expected = Set([logo, spinner].flatMap { ["\($0)-ios-thumbnail.jpg", "\($0)-ios-expanded.jpg"] })
        #expect(Set(Paths.contents(of: folder.appendingPathComponent("out/report-media"))) == expected)
        #expect(dom.contains("http_error"))
        #expect(dom.contains("<form class=\"filters\" role=\"search\""), "the inline script ran and showed the filters")
    }

    @Test func aHostileTitleIsShownAsTextAndCreatesNoElement() throws {
        let hostile = #"{"aps":{"alert":{"title":"<img src=x onerror=alert(1)>","body":"<script>alert(2)</script>"},"mutable-content":1},"notification_id":"n","notti_image_url":"\#(server.url("/media/logo.png"))"}"#
        let (dom, _, folder, _) = try makePreview([hostile])
        defer { try? FileManager.default.removeItem(at: folder) }
        let summary = try Browser.summary(of: dom)
        #expect(summary.titles.contains("<img src=x onerror=alert(1)>"), "shown as those characters")
        let attributes = summary.elements.map { $0["attrs"] as? [String: Any] ?? [:] }
        #expect(!attributes.contains { $0["onerror"] != nil }, "no element made from the title")
        #expect(!attributes.contains { $0["src"] as? String == "x" })
        #expect(summary.elements.filter { $0["tag"] as? String == "script" }.count == 1, "only the page's own script")
        #expect(summary.elements.filter { $0["tag"] as? String == "img" }.count == 2, "the thumbnail and the expanded image")
    }

    @Test func aCardShowsNoMediaWhenThePhoneWouldNotAndSaysWhy() throws {
        let logo = server.url("/media/logo.png")
        let noMutable = #"{"aps": {"alert": {"title": "No extension"}}, "notification_id": "n-quiet", "notti_image_url": "\#(logo)"}"#
        let failed = payload(url: server.url("/status/404"))
        let (dom, _, folder, _) = try makePreview([noMutable, failed, payload(url: logo)])
        defer { try? FileManager.default.removeItem(at: folder) }
        let cards = Array(dom.components(separatedBy: "<li class=\"card ").dropFirst())
        #expect(cards.count == 3)
        #expect(!cards[0].contains("<img") && !cards[0].contains("<video") && !cards[0].contains("<audio"), "no media without mutable-content")
        #expect(cards[0].contains("Media not shown on the phone: iOS never runs the extension for this push"))
        #expect(cards[0].contains("The file is fine (png, 539 B), but the phone never fetches it."))
        #expect(!cards[1].contains("<img"), "no media when the download failed")
        #expect(cards[1].contains("Media not shown on the phone: The media server answered with an error instead of the file."))
        #expect(cards[2].contains("<img class=\"thumb\""), "the phone shows this one")
        #expect(cards[0].contains("<code>\(logo)</code>"), "the media URL is on the card")
        #expect(cards[0].contains("<code>n-quiet</code>"), "and the notification_id")
    }

    @Test func findSearchesMediaURLsAndNotificationIDs() throws {
        let quiet = #"{"aps": {"alert": {"title": "A"}, "mutable-content": 1}, "notification_id": "n-find-me", "notti_image_url": "\#(server.url("/media/logo.png"))"}"#
        let lines = [payload(url: server.url("/media/photo.jpg")), quiet, payload(url: server.url("/media/spinner.gif"))]
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let page = folder.appendingPathComponent("report.html")
        _ = try CLI.run(["check", "--cacert", Paths.testCA, "--html", page.path, "-"], stdin: lines.joined(separator: "\n"))
        for (find, visible) in [("n-find-me", 1), ("spinner.gif", 1), ("/media/", 3), ("notti", 3)] {
            let dom = try Browser.renderedDOM(of: page.path, fragment: "#find=" + find)
            let shown = Browser.count("<li class=\"card [^\"]*\" data-status=\"[a-z]+\" data-warnings=\"[01]\" data-text=\"[^\"]*\">", in: dom)
            #expect(shown == visible, "Find '\(find)' shows \(shown) cards")
        }
    }

    @Test func thePageSaysHowItWasMadeInHumanUnits() throws {
        let (dom, _, folder, _) = try makePreview([payload(url: server.url("/media/clip.mp4"))])
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(dom.contains("<dt>by</dt><dd>notti-media "))
        #expect(dom.contains("<dt>SDK profile</dt><dd>Notti (FCM send requests: auto)</dd>"))
        #expect(dom.contains("<dt>limits</dt><dd>Notti: at most 10 MiB, 20 s; iOS: audio 5 MiB, image 10 MiB, video 50 MiB per attachment</dd>"))
        #expect(dom.contains("<dd>2.9 KB</dd>"), "2,860 bytes downloaded, in human units")
        #expect(dom.contains("attached mp4 · 2.9 KB"))
    }

    @Test func thePageNamesNoNetworkResource() throws {
        let (_, page, folder, _) = try makePreview([payload(url: server.url("/media/photo.jpg"))])
        defer { try? FileManager.default.removeItem(at: folder) }
        let html = try String(contentsOf: page, encoding: .utf8)
        let references = Browser.captures("(?:src|href)=\"([^\"]*)\"", in: html)
        #expect(references.allSatisfy { !$0.contains("//") }, "\(references)")
        #expect(!html.contains("@import") && !html.contains("url("))
    }
}

/// SPEC 11: a campaign of any size gives a page a browser opens at once.
@Suite struct LargePreviewTests {
    let server = TestServer.shared

    /// More failures than the page holds: no passing card takes a failing one's place, wherever it stands.
    @Test func failuresPastTheBoundLeaveOutEveryPassingCardFirst() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("campaign.jsonl")
        let lines = (0..<10).map { _ in payload(url: nil) } + (0..<2_600).map { payload(url: "ftp://media.example/\($0).png") }
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: file)
        let page = folder.appendingPathComponent("report.html")
        let result = try CLI.run(["check", file.path, "--html", page.path, "--out", folder.path, "--summary-only"])
        #expect(result.status == 1)
        let html = try String(contentsOf: page, encoding: .utf8)
        #expect(html.components(separatedBy: "<li class=\"card failed").count - 1 == 2_500)
        #expect(html.components(separatedBy: "<li class=\"card passed").count - 1 == 0)
        #expect(html.contains("Left out, and counted above: 100 failed and 10 passed pushes"))
    }

    @Test func twentyThousandPushesGiveABoundedPageThatSaysWhatItLeftOut() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("campaign.jsonl")
        let good = payload(url: server.url("/media/logo.png"))
        let bad = payload(url: server.url("/status/404"))
        // Every tenth push fails: 2,000 failed, 18,000 passed, two distinct media verdicts.
        let lines = (0..<20_000).map { $0 % 10 == 9 ? bad : good }
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: file)
        let page = folder.appendingPathComponent("report.html")
        let result = try CLI.run(["check", file.path, "--cacert", Paths.testCA, "--html", page.path, "--out", folder.path, "--summary-only"])
        #expect(result.status == 1)
        let html = try String(contentsOf: page, encoding: .utf8)
        let cards = html.components(separatedBy: "<li class=\"card ").count - 1
        // Every failed push first (2,000), then passed ones while the page has room for 2,500 cards:
        // the bound leaves out passing cards first (SPEC 11).
        #expect(cards == 2_500)
        #expect(html.contains("This page shows 2500 cards"))
        #expect(html.contains("Left out, and counted above: 17500 passed pushes"), "\(html.prefix(6000))")
        #expect(html.components(separatedBy: "<li class=\"card failed").count - 1 == 2_000)
        let lastFailed = try #require(html.range(of: "<li class=\"card failed", options: .backwards)).lowerBound
        let firstPassed = try #require(html.range(of: "<li class=\"card passed")).lowerBound
        #expect(lastFailed < firstPassed, "every failing card before any passing one")
        // The renditions of the passing cards left out are not kept beside the page.
        let media = try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("report-media").path)
        #expect(Set(media) == Set(Browser.captures("src=\"report-media/([^\"]*)\"", in: html)))
        #expect(html.contains("--errors-only"))
        let bytes = try FileManager.default.attributesOfItem(atPath: page.path)[.size] as? Int ?? 0
        #expect(bytes < 10_000_000)
        let errorsOnly = try CLI.run(
            ["check", file.path, "--cacert", Paths.testCA, "--html", page.path, "--out", folder.path, "--summary-only", "--errors-only"])
        #expect(errorsOnly.status == 1)
        let failedPage = try String(contentsOf: page, encoding: .utf8)
        #expect(failedPage.components(separatedBy: "<li class=\"card failed").count - 1 == 2_000)
        #expect(failedPage.components(separatedBy: "<li class=\"card passed").count - 1 == 0)
    }
}

extension PreviewTests {
    @Test func aSendRequestIsTwoCardsSideBySideTheAndroidOneAsAndroidDrawsIt() throws {
        let image = server.url("/media/logo.png")
        let request = #"{"message": {"notification": {"title": "Sale", "body": "50% off", "image": "\#(image)"}, "apns": {"payload": {"aps": {"mutable-content": 1}}}, "data": {"notification_id": "n-1"}}}"#
        let tooLarge = #"{"message": {"notification": {"title": "Big", "body": "b", "image": "\#(server.url("/bytes/1048577"))"}, "apns": {"payload": {"aps": {"mutable-content": 1}}}, "data": {"notification_id": "n-2"}}}"#
        let (dom, _, folder, _) = try makePreview([request, tooLarge])
        defer { try? FileManager.default.removeItem(at: folder) }
        let cards = Array(dom.components(separatedBy: "<li class=\"card ").dropFirst())
        // The failing request's two cards first (SPEC 11), side by side; then the passing one's.
        #expect(cards.count == 4)
        #expect(cards[0].contains("<span class=\"device\">iPhone</span>") && !cards[0].contains(" android\""))
        #expect(cards[0].contains("<h3 class=\"title\">Big</h3>"))
        #expect(cards[2].contains("<span class=\"device\">iPhone</span>") && !cards[2].contains(" android\""))
        #expect(cards[3].contains(" android\"") && cards[3].contains("<span class=\"device\">Android</span>"))
        #expect(cards[3].contains("<img class=\"big-picture\""), "the big picture below the text")
        #expect(cards[3].contains("<h3 class=\"title\">Sale</h3>"))
        #expect(!cards[1].contains("<img"), "no picture when Android refuses it")
        #expect(cards[1].contains("Media not shown on the phone"))
        #expect(dom.contains("Firebase Messaging: no cap of its own, 30 s; Firebase Messaging on Android: at most 1 MiB, 5 s;"),
                "each profile's limits, Android's too (a request without --sdk is judged under auto: Firebase's on iOS)")
    }
}

extension PreviewTests {
    /// SPEC 20: Expo's Android builder shows the picture as the large icon, and the card draws it so.
    @Test func anExpoMessagesAndroidCardDrawsTheLargeIconNotABigPicture() throws {
        let image = server.url("/media/photo.jpg")
        let expo = #"{"to": "ExponentPushToken[x]", "title": "Deal", "body": "Today only", "mutableContent": true, "richContent": {"image": "\#(image)"}}"#
        let (dom, _, folder, _) = try makePreview([expo])
        defer { try? FileManager.default.removeItem(at: folder) }
        let cards = Array(dom.components(separatedBy: "<li class=\"card ").dropFirst())
        #expect(cards.count == 2)
        #expect(cards[1].contains(" android\"") && cards[1].contains("<img class=\"large-icon\""), "a small square beside the text")
        #expect(!cards[1].contains("big-picture"))
        #expect(cards[1].contains("large_icon_only"), "the 64×48 photo loses a quarter to the square crop")
        #expect(cards[0].contains("<img class=\"thumb\""), "the iPhone attaches it as any picture")
    }
}

import Foundation
import Testing
@testable import NottiMedia

/// SPEC 5, 7, 11, 12: the verdict is the phone's. One download judged by each
/// SDK, iOS's own attachment checks, and nothing on disk that no record names.
@Suite struct PhoneVerdictTests {
    let server = TestServer.shared

    /// Each profile's media members for `url`, as its extension reads them.
    static func media(_ sdk: String, _ url: String) -> String {
        switch sdk {
        case "notti": #""notti_image_url": "\#(url)", "notification_id": "n-1""#
        case "braze": #""ab": {"att": {"url": "\#(url)", "type": "\#(url.hasSuffix(".mp3") ? "mp3" : "png")"}}"#
        case "fcm": #""fcm_options": {"image": "\#(url)"}"#
        case "onesignal": #""att": {"hero": "\#(url)"}"#
        case "airship": #""com.urbanairship.media_attachment": {"url": "\#(url)"}"#
        case "clevertap": #""ct_mediaUrl": "\#(url)", "ct_mediaType": "\#(url.hasSuffix(".mp3") ? "audio" : "image")""#
        case "iterable": #""itbl": {"attachment-url": "\#(url)"}"#
        case "batch": #""com.batch": {"at": {"u": "\#(url)", "t": "\#(url.hasSuffix(".mp3") ? "audio/mpeg" : "image/png")"}}"#
        default: fatalError(sdk)
        }
    }

    static let profiles = ["notti", "braze", "fcm", "onesignal", "airship", "clevertap", "iterable", "batch"]

    /// An attached picture, an mp3 iOS refuses (6,002,480 bytes, over 5 MiB) and a 404, for `sdk`.
    func threeOutcomes(_ sdk: String, tag: String) -> [String] {
        [
            server.url("/u/\(tag)/media/logo.png"),
            server.url("/u/\(tag)/repeat/1436/tone.mp3"),
            server.url("/u/\(tag)/status/404"),
        ].map { sdkPayload(Self.media(sdk, $0)) }
    }

    @Test(arguments: profiles)
    func processLeavesExactlyWhatTheReportNames(sdk: String) throws {
        let outcomes = threeOutcomes(sdk, tag: "process-\(sdk)")
        let attached = try ProcessRun.profile(sdk, outcomes[0])
        #expect(attached.outcome == "attached")
        #expect(attached.filesLeft.count == 1, "one attachment, one file: \(attached.filesLeft)")
        let refused = try ProcessRun.profile(sdk, outcomes[1])
        #expect(refused.outcome == "unchanged")
        #expect(refused.reason == "too_large")
        #expect(refused.message("too_large").contains("over iOS's 5242880-byte limit for audio"))
        #expect(refused.filesLeft.isEmpty, "a refused download leaves nothing: \(refused.filesLeft)")
        let failed = try ProcessRun.profile(sdk, outcomes[2])
        #expect(failed.reason == "http_error")
        #expect(failed.filesLeft.isEmpty)
    }

    @Test(arguments: profiles + ["auto"])
    func checkLeavesExactlyWhatTheRecordsName(sdk: String) throws {
        let out = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: out) }
        let lines = sdk == "auto"
            ? Self.profiles.flatMap { threeOutcomes($0, tag: "check-auto") }
            : threeOutcomes(sdk, tag: "check-\(sdk)")
        let result = try CLI.run(
            ["check", "-", "--format", "json", "--sdk", sdk, "--cacert", Paths.testCA, "--out", out.path],
            stdin: lines.joined(separator: "\n") + "\n")
        #expect(result.status == 1, "\(result.stderr)")
        let records = OutFolder.records(ofJSONLines: result.stdout)
        #expect(records.count == lines.count)
        #expect(records.filter { $0["outcome"] as? String == "attached" }.count == lines.count / 3)
        OutFolder.expectHoldsExactly(out, namedBy: records)
        #expect(!OutFolder.namedFiles(records).isEmpty)
    }

    @Test func twoProfilesNamingTheSameBytesDifferentlyUnderAutoGetOneFileEach() throws {
        let out = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: out) }
        let logo = server.url("/u/two-names/media/logo.png")
        let lines = [
            sdkPayload(Self.media("notti", logo)),
            sdkPayload(#""ab": {"att": {"url": "\#(logo)", "type": "gif"}}"#),
        ]
        let result = try CLI.run(
            ["check", "-", "--format", "json", "--sdk", "auto", "--cacert", Paths.testCA, "--out", out.path],
            stdin: lines.joined(separator: "\n") + "\n")
        let records = OutFolder.records(ofJSONLines: result.stdout)
        OutFolder.expectHoldsExactly(out, namedBy: records)
        let names = Paths.contents(of: out)
        #expect(names.count == 2 && names.contains { $0.hasSuffix(".png") } && names.contains { $0.hasSuffix(".gif") }, "\(names)")
        #expect(try server.requestCounts()["/u/two-names/media/logo.png"] == 1, "one download judged by both")
    }

    // MARK: The extension that never runs

    @Test(arguments: [
        (#"{"aps": {"alert": "x"}, "notification_id": "n-1", "notti_image_url": "URL"}"#, "mutable_content_missing"),
        (#"{"aps": {"mutable-content": 1, "badge": 3}, "notification_id": "n-1", "notti_image_url": "URL"}"#, "no_alert"),
    ])
    func theExtensionThatNeverRunsAttachesNothing(template: String, reason: String) throws {
        let tag = "never-\(reason)"
        let text = template.replacingOccurrences(of: "URL", with: server.url("/u/\(tag)/media/logo.png"))
        let run = try ProcessRun.fetch("", payloadText: text)
        #expect(run.result.status == 0)
        #expect(run.outcome == "unchanged")
        #expect(run.reason == reason)
        #expect(run.attachments.isEmpty)
        #expect(run.filesLeft.isEmpty, "nothing stored: \(run.filesLeft)")
        #expect(run.media["sniffedMime"] as? String == "image/png", "the media's own verdict is still given")
        #expect(run.media["bytes"] as? Int == 539)

        let check = try CLI.run(["check", "-", "--format", "json", "--cacert", Paths.testCA, "--out", Paths.temporaryFolder().path], stdin: text + "\n")
        let summary = try #require(OutFolder.summary(ofJSONLines: check.stdout))
        #expect((summary["hosts"] as? [Any])?.isEmpty == true, "no phone requests it at send time")
        #expect((summary["media"] as? [[String: Any]])?.first?["verdict"] as? String == "attached", "the file itself is fine")
    }

    // MARK: iOS's attachment limits at the band edges

    // Every band edge is judged in process (JudgeTableTests); end to end, real files padded to
    // the edges: within, between the readings, and over (nothing stored).
    @Test(arguments: [
        ("notti", "tone.mp3", 5_242_880, "attached", ["exceeds_ios_limit"]),
        ("notti", "logo.png", 10_485_760, "attached", ["exceeds_ios_limit"]),
        ("braze", "tone.mp3", 5_242_881, "unchanged", ["too_large"]),
    ])
    func iOSLimitsAtTheBandEdges(sdk: String, file: String, bytes: Int, outcome: String, codes: [String]) throws {
        let url = server.url("/padded/\(bytes)/\(file)")
        let members = sdk == "notti" ? Self.media("notti", url)
            : #""ab": {"att": {"url": "\#(url)", "type": "\#((file as NSString).pathExtension)"}}"#
        let run = try ProcessRun.profile(sdk, sdkPayload(members))
        #expect(run.outcome == outcome)
        #expect(run.diagnosticCodes == codes)
        if outcome == "attached" { #expect(run.attachments.first?["size"] as? Int == bytes) }
        if codes == ["too_large"] { #expect(run.filesLeft.isEmpty) }
    }

    @Test func aVideoOverTheGlobalBoundIsNotReadPastIt() throws {
        let run = try ProcessRun.profile("braze", sdkPayload(#""ab": {"att": {"url": "\#(server.url("/bytes/60000000?mode=nolength"))", "type": "mp4"}}"#))
        #expect(run.reason == "too_large")
        #expect(run.media["bytes"] is NSNull)
        #expect((run.media["limits"] as? [String: Any])?["maxBytes"] as? Int == 52_428_800)
    }

    // MARK: The summary

    @Test func theAutoSummaryCountsEachDistinctURLOnce() throws {
        let tag = "auto-count"
        let shared = server.url("/u/\(tag)/media/logo.png")
        var lines = Self.profiles.map { sdkPayload(Self.media($0, shared)) }
        lines += ["photo.jpg", "spinner.gif"].map { sdkPayload(Self.media("braze", server.url("/u/\(tag)/media/\($0)"))) }
        lines.append(sdkPayload(Self.media("onesignal", server.url("/u/\(tag)/status/404"))))
        let result = try CLI.run(
            ["check", "-", "--sdk", "auto", "--cacert", Paths.testCA, "--out", Paths.temporaryFolder().path],
            stdin: lines.joined(separator: "\n") + "\n")
        let fetched = try server.requestCounts().filter { $0.key.hasPrefix("/u/\(tag)/") }
        #expect(fetched.count == 4)
        #expect(fetched.values.allSatisfy { $0 == 1 })
        #expect(result.stdout.contains("media: \(fetched.count) distinct URLs"), "\(result.stdout)")
    }

    @Test func aBundleFileIsAWarningInTheSummaryNotAFailure() throws {
        let result = try CLI.run(
            ["check", "-", "--sdk", "onesignal", "--out", Paths.temporaryFolder().path],
            stdin: sdkPayload(#""att": {"hero": "banner.png"}"#) + "\n")
        #expect(result.status == 0, "\(result.stdout)")
        #expect(result.stdout.contains("BUNDLE file in the app"))
        #expect(!result.stdout.contains("FAIL bundle_resource"))
    }
}

/// SPEC 15, both platforms: `media.dimensions` from libmagic's description of the file.
@Suite struct DimensionsTests {
    let server = TestServer.shared

    @Test(arguments: [("logo.png", 48, 48), ("photo.jpg", 64, 48), ("spinner.gif", 32, 32), ("badge.webp", 48, 48)])
    func theReportGivesTheFixturesRealSize(file: String, width: Int, height: Int) throws {
        let run = try ProcessRun.fetch(server.url("/media/\(file)"))
        #expect(run.media["dimensions"] as? [String: Int] == ["width": width, "height": height])
    }

    /// SPEC 15: the decoder's size, for video too; audio has none.
    @Test func aVideoHasItsFrameSizeAndAudioNone() throws {
        let video = try ProcessRun.fetch(server.url("/media/clip.mp4"))
        #expect(video.media["dimensions"] as? [String: Int] == ["width": 64, "height": 48])
        let audio = try ProcessRun.fetch(server.url("/media/tone.mp3"))
        #expect(audio.media["dimensions"] is NSNull)
    }
}

/// Placing never writes through what stands at an attachment's name (SPEC 9).
@Suite struct PlacementTests {
    let server = TestServer.shared

    @Test func aLinkOrFolderAtTheAttachmentsNameIsAWriteErrorAndUntouched() throws {
        let out = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: out) }
        let someones = out.appendingPathComponent("someones.txt")
        try Data("someone's".utf8).write(to: someones)
        // logo.png's content-hash name, taken by a link to someone's file.
        let name = "ad83e46a4895f5560fdc8a6a51fe30c3528aaad38d06b99a572f6808a669fb2b.png"
        try FileManager.default.createSymbolicLink(atPath: out.appendingPathComponent(name).path, withDestinationPath: someones.path)
        let before = TreeSnapshot(out)
        let result = try CLI.run(["process", "-", "--report", "--cacert", Paths.testCA, "--out", out.path], stdin: payload(url: server.url("/media/logo.png")))
        #expect(result.json["reason"] as? String == "write_error")
        #expect(result.status == 2, "a local failure")
        #expect(try String(contentsOf: someones, encoding: .utf8) == "someone's")
        #expect(TreeSnapshot(out) == before, "the link, its target and nothing else")
    }
}

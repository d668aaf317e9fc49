import Testing
@testable import NottiMedia

/// The pure judge, in process: made-up downloads judged by every profile's rule and
/// the phone's model (`SDKProfile.judge`), no network. The end-to-end tests keep what a
/// user sees; these keep each rule's table.
@Suite struct JudgeTableTests {
    /// A download as the fetcher would have made it.
    struct Made: Sendable, CustomTestStringConvertible {
        var url: String
        var sniffed: String
        var declared: String? = nil
        var disposition: String? = nil
        var bytes = 2_000
        var leading: [UInt8] = []
        var frames: Int? = nil
        /// What the decode worker made of the bytes (SPEC 17); nil: not decoded.
        var decoded: DecodedMedia? = nil
        var testDescription: String { "\(url) (\(sniffed))" }
    }

    static func judge(_ made: Made, profile: SDKProfile, typeField: String? = nil, identifier: String? = nil) throws -> EntryVerdict {
        try judge(download(made, profile: profile), profile: profile, typeField: typeField, identifier: identifier)
    }

    /// A download as the fetcher would have made it under `profile`'s policy, and no verdict made of it yet.
    static func download(_ made: Made, profile: SDKProfile) -> MediaResult {
        var transfer = TransferFacts(finalURL: made.url)
        transfer.httpStatus = 200
        transfer.declaredMime = made.declared
        transfer.contentDisposition = made.disposition
        var facts = MediaFacts(url: made.url, policy: profile.policy(FetchOptions()))
        if case .valid(let url) = MediaURL.check(.string(made.url), key: "url", allowHTTP: false) {
            facts.urlExtension = url.pathExtension
            facts.host = url.host
        }
        facts.transfer = transfer
        facts.bytes = made.bytes
        facts.sha256 = String(repeating: "ab", count: 32)
        facts.decoded = made.decoded
        return .downloaded(MediaDownload(
            facts: facts, source: WorkingFile(placedAt: "/nonexistent"), folder: "/out", sniffedMime: made.sniffed,
            leadingBytes: made.leading, frames: made.frames))
    }

    /// `profile`'s verdict on an entry naming `result`'s URL.
    static func judge(_ result: MediaResult, profile: SDKProfile, typeField: String? = nil, identifier: String? = nil) throws -> EntryVerdict {
        try judged(result, profile: profile, typeField: typeField, identifier: identifier).verdict
    }

    /// `profile`'s whole judgement of an entry naming `result`'s URL, as a record's report gets it.
    static func judged(_ result: MediaResult, profile: SDKProfile, typeField: String? = nil, identifier: String? = nil) throws -> JudgedEntry {
        let address = result.facts.url
        guard case .valid(let url) = MediaURL.check(.string(address), key: "url", allowHTTP: false) else {
            throw JudgeTableError.notAURL
        }
        let entry = MediaEntry(key: "url", value: .string(address), identifier: identifier, typeField: typeField)
        return EntryJudge.judge(PayloadPlan.PlannedEntry(entry: entry, step: .fetch(url)), profile: profile, results: [address: result],
                                policy: profile.policy(FetchOptions()), network: nil, requestedAtSendTime: true)
    }

    enum JudgeTableError: Error { case notAURL }

    /// "attached EXT [warnings]" or "failed CODE".
    static func describe(_ verdict: EntryVerdict) -> String {
        switch verdict {
        case .attached(let attachment, _, _, let warnings):
            (["attached \(attachment.fileExtension)"] + warnings.map(\.codeText)).joined(separator: " ")
        case .failed(_, _, let reason, _): "failed \(reason.rawValue)"
        case .bundleResource: "bundle"
        }
    }

    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    static let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0]

    @Test(arguments: [
        // Notti sniffs: five types, else jpg with a warning; iOS's limit on the sniffed kind.
        ("notti", Made(url: "https://m.example/a.png", sniffed: "image/png", declared: "image/png"), nil as String?, "attached png"),
        ("notti", Made(url: "https://m.example/a.webp", sniffed: "image/webp", declared: "image/webp"), nil, "attached jpg unsupported_type"),
        ("notti", Made(url: "https://m.example/a.jpg", sniffed: "image/jpeg", declared: "image/png"), nil, "attached jpg type_mismatch"),
        ("notti", Made(url: "https://m.example/t.mp3", sniffed: "audio/mpeg", bytes: 6_000_000), nil, "failed too_large"),
        ("notti", Made(url: "https://m.example/t.mp3", sniffed: "audio/mpeg", bytes: 5_100_000), nil, "attached mp3 exceeds_ios_limit"),
        // Braze: the payload's type is the extension; iOS types by it.
        ("braze", Made(url: "https://m.example/a", sniffed: "image/png"), "jpg", "attached jpg type_mismatch"),
        ("braze", Made(url: "https://m.example/a", sniffed: "image/webp"), "webp", "failed unsupported_type"),
        ("braze", Made(url: "https://m.example/a", sniffed: "image/jpeg", bytes: 6_000_000), "mp3", "failed too_large"),
        // Firebase: the suggested file name's extension, else the Content-Type's image/ part.
        ("fcm", Made(url: "https://m.example/p/a.png", sniffed: "image/png"), nil, "attached png"),
        ("fcm", Made(url: "https://m.example/p/a", sniffed: "image/svg+xml", declared: "image/svg+xml"), nil, "failed unsupported_type"),
        ("fcm", Made(url: "https://m.example/p/x", sniffed: "image/gif", disposition: "attachment; filename=\"b.gif\""), nil, "attached gif"),
        // OneSignal: the filename query parameter first, from its own list.
        ("onesignal", Made(url: "https://m.example/x?filename=c.png", sniffed: "image/png"), nil, "attached png"),
        ("onesignal", Made(url: "https://m.example/x.PNG", sniffed: "image/png"), nil, "failed unsupported_type"),
        // CleverTap: the media type names the extension.
        ("clevertap", Made(url: "https://m.example/x", sniffed: "image/png"), "image", "attached jpg type_mismatch"),
        // Batch: the hint alone types it.
        ("batch", Made(url: "https://m.example/x", sniffed: "image/png"), "image/png", "attached png"),
        ("batch", Made(url: "https://m.example/x", sniffed: "image/png"), "image/webp", "failed unsupported_type"),
        // Airship: the file name, else the Content-Type, else its magic bytes.
        ("airship", Made(url: "https://m.example/x", sniffed: "image/png", leading: png), nil, "attached png"),
        ("airship", Made(url: "https://m.example/x", sniffed: "image/jpeg", leading: jpeg), nil, "attached jpeg"),
    ])
    func eachIOSRuleTypesTheFileAsItsSDKDoes(sdk: String, made: Made, typeField: String?, expected: String) throws {
        let profile = try #require(SDK(rawValue: sdk)).profile
        let got = Self.describe(try Self.judge(made, profile: profile, typeField: typeField))
        #expect(got == expected, "\(got)")
    }

    /// "TYPE from SOURCE as IDENTIFIER", or "refused from SOURCE (sdkType)".
    static func naming(_ verdict: EntryVerdict) -> String {
        let decision = verdict.typing?.named
        let source = decision?.source ?? "?"
        if let attachment = verdict.attachment {
            return "\(attachment.fileExtension) from \(source) as \(attachment.identifier)"
                + (attachment.typeHint.map { " hint \($0)" } ?? "")
        }
        return "refused from \(source) (\(decision?.fileExtension ?? "none"))"
    }

    // Each SDK's rule names the file from its own source (moved here from the end-to-end
    // profile tests, which keep one case each): the response's headers are made up.
    @Test(arguments: [
        // Firebase: the Content-Disposition name wins over the URL's; a name without an extension gets
        // the Content-Type's preferred one; none of those: the text after image/, which iOS may not know.
        ("fcm", Made(url: "https://m.example/photo.jpg", sniffed: "image/png", declared: "image/png",
                     disposition: "attachment; filename=\"banner.png\""), nil as String?,
         "png from the Content-Disposition file name as "),
        ("fcm", Made(url: "https://m.example/banner.png", sniffed: "image/png"), nil, "png from the URL's file name as "),
        ("fcm", Made(url: "https://m.example/banner", sniffed: "image/gif", declared: "image/gif"), nil, "gif from the URL's file name as "),
        ("fcm", Made(url: "https://m.example/banner", sniffed: "image/png", declared: "image/x-png"), nil, "refused from the Content-Type (x-png)"),
        ("fcm", Made(url: "https://m.example/banner", sniffed: "image/png", declared: "image/png/evil"), nil, "refused from the Content-Type (none)"),
        // CleverTap: ct_mediaType, else three exact Content-Types.
        ("clevertap", Made(url: "https://m.example/x", sniffed: "image/png", declared: "image/png"), "image", "jpg from ct_mediaType as "),
        ("clevertap", Made(url: "https://m.example/clip.mp4", sniffed: "video/mp4", declared: "video/mp4"), "video", "mp4 from ct_mediaType as "),
        ("clevertap", Made(url: "https://m.example/x", sniffed: "image/png", declared: "image/png"), "gif", "png from the Content-Type as "),
        ("clevertap", Made(url: "https://m.example/x", sniffed: "image/webp", declared: "image/webp"), "gif",
         "refused from ct_mediaType and the Content-Type (none)"),
        // Batch: the hint alone, whatever the URL and the Content-Type say.
        ("batch", Made(url: "https://m.example/x.gif", sniffed: "image/png", declared: "image/gif"), "public.png",
         "png from com.batch.at.t as batch_rich_attachment hint public.png"),
        ("batch", Made(url: "https://m.example/x.gif", sniffed: "image/png", declared: "image/gif"), "image/png",
         "png from com.batch.at.t as batch_rich_attachment hint public.png"),
        ("batch", Made(url: "https://m.example/x.gif", sniffed: "image/png", declared: "image/gif"), "banana", "refused from com.batch.at.t (none)"),
        // Iterable: the suggested file name is the identifier too.
        ("iterable", Made(url: "https://m.example/promo", sniffed: "image/png", declared: "image/png"), nil,
         "png from the URL's file name as promo.png"),
    ])
    func eachRuleNamesTheFileFromItsOwnSource(sdk: String, made: Made, typeField: String?, expected: String) throws {
        let profile = try #require(SDK(rawValue: sdk)).profile
        let got = Self.naming(try Self.judge(made, profile: profile, typeField: typeField))
        #expect(got == expected, "\(got)")
    }

    // iOS's attachment limits at the band edges, for Notti (the sniffed kind) and for a profile
    // with no cap of its own (Braze: the stated type's kind); end to end, PhoneVerdictTests keeps three.
    @Test(arguments: [
        ("notti", Made(url: "https://m.example/t.mp3", sniffed: "audio/mpeg", bytes: 5_000_000), nil as String?, "attached mp3"),
        ("notti", Made(url: "https://m.example/t.mp3", sniffed: "audio/mpeg", bytes: 5_242_880), nil, "attached mp3 exceeds_ios_limit"),
        ("notti", Made(url: "https://m.example/t.mp3", sniffed: "audio/mpeg", bytes: 5_242_881), nil, "failed too_large"),
        ("notti", Made(url: "https://m.example/a.png", sniffed: "image/png", bytes: 10_000_000), nil, "attached png"),
        ("notti", Made(url: "https://m.example/a.png", sniffed: "image/png", bytes: 10_000_001), nil, "attached png exceeds_ios_limit"),
        ("notti", Made(url: "https://m.example/a.png", sniffed: "image/png", bytes: 10_485_760), nil, "attached png exceeds_ios_limit"),
        ("braze", Made(url: "https://m.example/t", sniffed: "audio/mpeg", bytes: 5_242_880), "mp3", "attached mp3 exceeds_ios_limit"),
        ("braze", Made(url: "https://m.example/t", sniffed: "audio/mpeg", bytes: 5_242_881), "mp3", "failed too_large"),
        ("braze", Made(url: "https://m.example/a", sniffed: "image/png", bytes: 10_485_761), "png", "failed too_large"),
        ("braze", Made(url: "https://m.example/c", sniffed: "video/mp4", bytes: 52_428_800), "mp4", "attached mp4 exceeds_ios_limit"),
        ("braze", Made(url: "https://m.example/c", sniffed: "video/mp4", bytes: 52_428_801), "mp4", "failed too_large"),
    ])
    func iOSLimitsAtTheBandEdges(sdk: String, made: Made, typeField: String?, expected: String) throws {
        let profile = try #require(SDK(rawValue: sdk)).profile
        let got = Self.describe(try Self.judge(made, profile: profile, typeField: typeField))
        #expect(got == expected, "\(got)")
    }

    @Test(arguments: [
        (Made(url: "https://m.example/a.png", sniffed: "image/png"), "attached png"),
        (Made(url: "https://m.example/a.gif", sniffed: "image/gif", frames: 2), "attached gif animation_lost"),
        (Made(url: "https://m.example/a.gif", sniffed: "image/gif", frames: 1), "attached gif"),
        (Made(url: "https://m.example/a.heic", sniffed: "image/heic"), "attached heic needs_android_version"),
        (Made(url: "https://m.example/a.mp4", sniffed: "video/mp4"), "failed unsupported_type"),
        (Made(url: "https://m.example/a.svg", sniffed: "image/svg+xml"), "failed unsupported_type"),
    ])
    func androidShowsWhatBitmapFactoryDecodes(made: Made, expected: String) throws {
        for profile in [SDKProfile.androidFCM, .androidAirship, .androidOneSignal] {
            #expect(Self.describe(try Self.judge(made, profile: profile)) == expected, "\(profile.sdk)")
        }
    }

    /// A picture as the decode worker reads it: 400×300 JPEG, upright and whole, then `change` applied.
    static func picture(_ change: (inout DecodedMedia) -> Void = { _ in }) -> DecodedMedia {
        var decoded = DecodedMedia(kind: .picture)
        decoded.format = "jpeg"
        decoded.width = 400
        decoded.height = 300
        decoded.frames = 1
        decoded.orientation = 1
        decoded.complete = true
        decoded.decodedBytes = 400 * 300 * 4
        change(&decoded)
        return decoded
    }

    /// A video as the decode worker reads it: H.264 in `avc1`, whole, then `change` applied.
    static func video(_ change: (inout DecodedMedia) -> Void = { _ in }) -> DecodedMedia {
        var decoded = DecodedMedia(kind: .video)
        decoded.container = "isom"
        decoded.videoCodec = "h264"
        decoded.videoTag = "avc1"
        decoded.width = 320
        decoded.height = 240
        decoded.durationSeconds = 1
        decoded.complete = true
        change(&decoded)
        return decoded
    }

    static let decoderCases: [(name: String, decoded: DecodedMedia)] = [
        ("whole", picture()),
        ("undecodable", picture { $0.undecodable = "Huffman table 0x01 was not defined"; $0.complete = nil }),
        ("cut at row 150", picture { $0.complete = false; $0.drawnRows = 150 }),
        ("orientation 6", picture { $0.orientation = 6 }),
        ("12000x9000", picture { $0.width = 12_000; $0.height = 9_000; $0.decodedBytes = 12_000 * 9_000 * 4 }),
    ]

    // What the phone's decoder adds, for every profile on both platforms (SPEC 17), from made-up
    // decoder facts: iOS attaches an undecodable picture and fails the record; Android's display code
    // decodes it first and shows the text alone; BitmapFactory's grey below a cut, its ignored
    // orientation (every Android display code here), and its largest bitmap are Android's alone.
    @Test(arguments: SDK.allCases.map { ($0, Platform.ios) } + SDKProfile.androidProfiles.map { ($0.sdk, Platform.android) })
    func eachProfileReadsTheDecodersFactsAsItsPlatformDoes(sdk: SDK, platform: Platform) throws {
        let profile = try #require(SDKProfile.of(sdk, on: platform))
        let android = platform == .android
        // The type field each SDK reads as a JPEG (CleverTap's media type, Batch's hint, Braze's extension).
        let typeField = ["clevertap": "image", "batch": "image/jpeg"][sdk.rawValue] ?? "jpg"
        var got: [String] = []
        for (name, decoded) in Self.decoderCases {
            let made = Made(url: "https://m.example/a.jpg", sniffed: "image/jpeg", declared: "image/jpeg", decoded: decoded)
            let verdict = try Self.judge(made, profile: profile, typeField: typeField)
            got.append("\(name): " + Self.describe(verdict).replacingOccurrences(of: "attached jpeg", with: "attached jpg"))
            if name == "cut at row 150", case .attached(_, _, _, let warnings) = verdict {
                let message = try #require(warnings.first { $0.code == .truncatedMedia }).message
                #expect(message.contains("row 150 of 300, 50% of it") && message.contains("grey below it") == android, "\(message)")
            }
        }
        #expect(got == [
            "whole: attached jpg",
            android ? "undecodable: failed undecodable_media" : "undecodable: attached jpg undecodable_media",
            "cut at row 150: attached jpg truncated_media",
            android ? "orientation 6: attached jpg orientation_ignored" : "orientation 6: attached jpg",
            android ? "12000x9000: attached jpg large_bitmap" : "12000x9000: attached jpg",
        ])
    }

    // iOS's player: HEVC must be tagged hvc1, AV1 and VP9 play on some devices, others on none.
    @Test(arguments: [
        (video(), "attached mp4"),
        (video { $0.videoCodec = "hevc"; $0.videoTag = "hvc1" }, "attached mp4"),
        (video { $0.videoCodec = "hevc"; $0.videoTag = "hev1" }, "attached mp4 unplayable_video"),
        (video { $0.videoCodec = "av1"; $0.videoTag = "av01" }, "attached mp4 video_codec_support"),
        (video { $0.videoCodec = "vp9"; $0.videoTag = "vp09" }, "attached mp4 video_codec_support"),
        (video { $0.videoCodec = "vp8"; $0.videoTag = "vp08" }, "attached mp4 unplayable_video"),
        (video { $0.complete = false; $0.drawnPercent = 40 }, "attached mp4 truncated_media"),
    ])
    func iOSPlaysTheVideosItHasDecodersFor(decoded: DecodedMedia, expected: String) throws {
        let made = Made(url: "https://m.example/clip.mp4", sniffed: "video/mp4", declared: "video/mp4", decoded: decoded)
        #expect(Self.describe(try Self.judge(made, profile: .notti)) == expected)
    }

    @Test func aRulesVerdictIsMadeOncePerDownloadAndKeyedByProfileAndEntry() throws {
        // One download judged by Braze with type jpg, then png, then jpg again, and by Firebase's iOS and
        // Android rules (one SDK, two platforms): each key its own verdict, the first kept for the third.
        let result = Self.download(Made(url: "https://m.example/a", sniffed: "image/png"), profile: .braze)
        #expect(Self.describe(try Self.judge(result, profile: .braze, typeField: "jpg")) == "attached jpg type_mismatch")
        #expect(Self.describe(try Self.judge(result, profile: .braze, typeField: "png")) == "attached png")
        let again = try Self.judge(result, profile: .braze, typeField: "jpg")
        #expect(Self.describe(again) == "attached jpg type_mismatch")
        #expect(Self.describe(try Self.judge(result, profile: .fcm)) == "failed unsupported_type")
        #expect(Self.describe(try Self.judge(result, profile: .androidFCM)) == "attached png")
    }

    @Test func aFailedURLIsJudgedOncePerEntryKeyAndPolicy() throws {
        // A campaign's 404: every record naming it holds the judgement made for the first, and a
        // stricter policy's records (Firebase's Android display code) theirs, made once too.
        let facts = MediaFacts(url: "https://m.example/gone.png", policy: SDKProfile.notti.policy(FetchOptions()))
        let failed = MediaResult.failed(facts, .httpError, "the server answered HTTP 404")
        let first = try Self.judged(failed, profile: .notti)
        #expect(Self.describe(first.verdict) == "failed http_error")
        #expect(try Self.judged(failed, profile: .notti) === first)
        let android = try Self.judged(failed, profile: .androidFCM)
        #expect(Self.describe(android.verdict) == "failed http_error")
        #expect(android !== first)
        #expect(try Self.judged(failed, profile: .androidFCM) === android)
        let underFCM = failed.judged(under: SDKProfile.androidFCM.policy(FetchOptions()))
        #expect(underFCM.memo === failed.judged(under: SDKProfile.androidFCM.policy(FetchOptions())).memo)
    }

    @Test func theSummaryLineKeepsItsWarningsTyped() throws {
        // Made by the judge: the code, not its text.
        let result = Self.download(Made(url: "https://m.example/a", sniffed: "image/png"), profile: .braze)
        let judged = try Self.judged(result, profile: .braze, typeField: "jpg")
        #expect(judged.summary?.warnings.map(\.code) == [.typeMismatch])
        // Read back by merge: codes of another version keep their text; an attached file the phone
        // cannot draw is found by its code and ranks as a failure.
        let line = try JSONParser.parse(Array(#"""
            {"url": "https://m.example/a.jpg", "verdict": "attached", "type": "jpg",
             "warnings": ["type_mismatch", "from_a_newer_version", "undecodable_media"]}
            """#.utf8))
        let verdict = try #require(MediaVerdict(json: line))
        #expect(verdict.warnings.map(\.code) == [.typeMismatch, .unrecognised, .undecodableMedia])
        #expect(verdict.warnings.map(\.codeText) == ["type_mismatch", "from_a_newer_version", "undecodable_media"])
        #expect(verdict.attachedError == "undecodable_media")
        #expect(verdict.severityRank == 2)
        #expect(verdict.json["warnings"] == line["warnings"])
    }

    @Test func anEntrysOptionsAreItsOwnOnASharedVerdict() throws {
        // Two entries of one download, one with options: the options stay on that entry's attachment.
        let result = Self.download(Made(url: "https://m.example/a.png", sniffed: "image/png"), profile: .notti)
        let plain = try Self.judge(result, profile: .notti)
        guard case .valid(let url) = MediaURL.check(.string("https://m.example/a.png"), key: "url", allowHTTP: false) else { return }
        var options = AttachmentOptions()
        options.thumbnailHidden = true
        let entry = MediaEntry(key: "url", value: .string("https://m.example/a.png"), options: options)
        let withOptions = EntryJudge.judge(
            PayloadPlan.PlannedEntry(entry: entry, step: .fetch(url)), profile: .notti, results: ["https://m.example/a.png": result],
            policy: SDKProfile.notti.policy(FetchOptions()), network: nil, requestedAtSendTime: true).verdict
        #expect(plain.attachment?.options == nil)
        #expect(withOptions.attachment?.options?.thumbnailHidden == true)
        #expect(try Self.judge(result, profile: .notti).attachment?.options == nil)
    }
}

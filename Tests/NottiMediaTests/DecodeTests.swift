import Foundation
import Testing

/// SPEC 17 from the outside: the fixtures of `Tests/Fixtures/decode` (real encoders, recipe
/// beside them) served on loopback, each named by one FCM send request, so every case
/// asserts the iOS record and the Android record of the same download.
@Suite(.serialized) struct DecodeTests {
    static let server = TestServer(media: Paths.fixtures.appendingPathComponent("decode").path)

    struct Records {
        var ios: [String: Any]
        var android: [String: Any]

        static func codes(_ report: [String: Any]) -> [String] {
            (report["diagnostics"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
        }

        static func message(_ report: [String: Any], _ code: String) -> String {
            (report["diagnostics"] as? [[String: Any]] ?? []).first { $0["code"] as? String == code }?["message"] as? String ?? ""
        }

        static func decoded(_ report: [String: Any]) -> [String: Any] {
            (report["media"] as? [String: Any])?["decoded"] as? [String: Any] ?? [:]
        }
    }

    static func request(_ url: String, data: [String: String] = ["notification_id": "n-1"]) -> String {
        let message: [String: Any] = [
            "token": "device", "notification": ["title": "Sale", "body": "50% off", "image": url], "data": data,
            "apns": ["payload": ["aps": ["mutable-content": 1]]],
        ]
        return String(decoding: try! JSONSerialization.data(withJSONObject: ["message": message], options: [.sortedKeys, .withoutEscapingSlashes]),
                      as: UTF8.self)
    }

    static func run(_ stdin: String, _ extra: [String] = []) throws -> Records {
        let out = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: out) }
        let result = try CLI.run(["process", "-", "--report", "--cacert", Paths.testCA, "--out", out.path] + extra, stdin: stdin)
        let json = result.json
        OutFolder.expectHoldsExactly(out, namedBy: [json["ios"], json["android"]].compactMap { $0 as? [String: Any] })
        return Records(ios: json["ios"] as? [String: Any] ?? [:], android: json["android"] as? [String: Any] ?? [:])
    }

    static func fixture(_ name: String) throws -> Records { try run(request(server.url("/media/\(name)"))) }

    /// Each fixture's facts, as the decoders read them (both records carry the same).
    @Test(arguments: [
        ("photo.jpg", ["kind": "picture", "format": "jpeg", "width": 320, "height": 240, "frames": 1, "orientation": 1, "complete": true,
                       "decodedBytes": 307_200] as [String: any Sendable]),
        ("rotated-6.jpg", ["format": "jpeg", "orientation": 6, "complete": true]),
        ("rotated-8.jpg", ["format": "jpeg", "orientation": 8]),
        ("photo.png", ["format": "png", "width": 320, "height": 240, "complete": true]),
        ("photo.bmp", ["format": "bmp", "width": 160, "height": 120, "complete": true]),
        ("photo.tiff", ["format": "tiff", "width": 160, "height": 120, "complete": true]),
        ("photo.heic", ["format": "heif", "width": 320, "height": 240, "complete": true]),
        ("photo.avif", ["format": "avif", "width": 320, "height": 240, "complete": true]),
        // An AVIF image sequence: libavif, which Android's AVIF decoder is built on, reads its three pictures.
        ("animated.avif", ["format": "avif", "width": 160, "height": 120, "frames": 3, "complete": true]),
        ("animated.gif", ["format": "gif", "width": 160, "height": 120, "frames": 4, "complete": true]),
        ("truncated.jpg", ["format": "jpeg", "complete": false]),
        ("truncated.png", ["format": "png", "complete": false]),
        ("avc1.mp4", ["kind": "video", "container": "isom", "videoCodec": "h264", "videoTag": "avc1", "width": 160, "height": 120,
                      "durationSeconds": 1, "audioCodec": "aac", "complete": true]),
        ("hvc1.mp4", ["videoCodec": "hevc", "videoTag": "hvc1"]),
        ("hev1.mp4", ["videoCodec": "hevc", "videoTag": "hev1"]),
        // A 9,000-byte tag read as its brand: the answer keeps every fact (it was cut at 8 KB, and not JSON).
        ("hev1-long-tag.mp4", ["videoCodec": "hevc", "videoTag": "hev1", "width": 160, "height": 120, "complete": true]),
        ("vp9.mp4", ["videoCodec": "vp9", "videoTag": "vp09"]),
        ("av1.mp4", ["videoCodec": "av1", "videoTag": "av01"]),
        ("truncated.mp4", ["videoCodec": "h264", "complete": false]),
        ("tone.mp3", ["kind": "audio", "audioCodec": "mp3", "complete": true]),
        ("voice.m4a", ["kind": "audio", "audioCodec": "aac", "durationSeconds": 1, "complete": true]),
    ])
    func theDecoderReadsEachFormat(name: String, expected: [String: any Sendable]) throws {
        let records = try Self.fixture(name)
        for report in [records.ios, records.android] {
            let decoded = Records.decoded(report)
            for (key, value) in expected {
                if let flag = value as? Bool {
                    #expect(decoded[key] as? Bool == flag, "\(name): \(key)")
                } else {
                    #expect("\(decoded[key] ?? "absent")" == "\(value)", "\(name): \(key)")
                }
            }
        }
        let dimensions = (records.ios["media"] as? [String: Any])?["dimensions"]
        if expected["kind"] as? String == "audio" {
            #expect(dimensions is NSNull, "audio has no dimensions")
        } else if let width = Records.decoded(records.ios)["width"] as? Int {
            #expect((dimensions as? [String: Int])?["width"] == width, "media.dimensions is the decoder's")
        }
    }

    /// A PNG whose IDAT CRC does not match (PngSuite's xcsn0g01 in kind): libpng, Android's decoder, stops
    /// there, so neither phone draws it (it was a passing warning, truncated_media, drawn to 68%).
    @Test func aPNGWithACRCErrorFailsOnBothPlatforms() throws {
        let records = try Self.fixture("crc-error.png")
        #expect(records.ios["passed"] as? Bool == false)
        #expect(Records.message(records.ios, "undecodable_media").contains("its IDAT chunk's CRC does not match its bytes"))
        #expect(records.android["outcome"] as? String == "unchanged")
        #expect(records.android["reason"] as? String == "undecodable_media")
    }

    /// FFmpeg reads only the containers and codecs phones play (SPEC 17): a Flash video's bytes reach no
    /// demuxer, and the verdict says why (it was decoded as flv1 before).
    @Test func aContainerNoPhonePlaysIsNotOpened() throws {
        let result = try CLI.run(["sniff", "--format", "json", Paths.fixtures.appendingPathComponent("decode/clip.flv").path])
        let line = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let decoded = try #require(line["decoded"] as? [String: Any], "\(line)")
        #expect(decoded["videoCodec"] is NSNull, "\(decoded)")
        let messages = (line["diagnostics"] as? [[String: Any]] ?? []).compactMap { $0["message"] as? String }
        #expect(messages.contains { $0.contains("it is no container phones play") }, "\(messages)")
    }

    @Test func aCorruptPictureIsAttachedAndFailsOnIOSAndIsNotShownOnAndroid() throws {
        let records = try Self.fixture("corrupt.jpg")
        #expect(records.ios["outcome"] as? String == "attached")
        #expect(records.ios["passed"] as? Bool == false)
        #expect(Records.codes(records.ios).contains("undecodable_media"))
        #expect(Records.message(records.ios, "undecodable_media").contains("empty picture"))
        #expect(records.android["outcome"] as? String == "unchanged")
        #expect(records.android["reason"] as? String == "undecodable_media")
    }

    @Test func aCutFileIsAWarningThatSaysHowMuchIsDrawn() throws {
        let records = try Self.fixture("truncated.png")
        for report in [records.ios, records.android] {
            #expect(report["outcome"] as? String == "attached")
            #expect(Records.codes(report).contains("truncated_media"), "\(Records.codes(report))")
        }
        let message = Records.message(records.android, "truncated_media")
        #expect(message.contains("of 240") && message.contains("grey below"), "\(message)")
    }

    @Test(arguments: [("fcm", "Firebase"), ("onesignal", "OneSignal"), ("airship", "Android 8.1 and older")])
    func androidIgnoresTheOrientationIPhonesApply(sdk: String, named: String) throws {
        let url = Self.server.url("/media/rotated-6.jpg")
        let text = switch sdk {
        case "airship": Self.request("", data: ["com.urbanairship.style": #"{"type": "big_picture", "big_picture": "\#(url)"}"#])
        case "onesignal": Self.request("", data: ["bicon": url])
        default: Self.request(url)
        }
        let records = try Self.run(text.replacingOccurrences(of: #""image":"","#, with: ""), ["--sdk", sdk])
        #expect(Records.codes(records.android).contains("orientation_ignored"), "\(sdk): \(Records.codes(records.android))")
        let message = Records.message(records.android, "orientation_ignored")
        #expect(message.contains(named) && message.contains("on its side") && message.contains("iPhones show it upright"), "\(message)")
        #expect(!Records.codes(records.ios).contains("orientation_ignored"))
    }

    /// A camera's video carries its creation time, which FFmpeg reads as a date: glibc opened the time zone file for
    /// it, in the sandboxed child, and the filter killed it ("the decoder stopped", signal 31) for every such video.
    @Test func aVideosCreationTimeDoesNotStopTheDecoder() throws {
        let records = try Self.fixture("hvc1-dated.mp4")
        let decoded = Records.decoded(records.ios)
        #expect(decoded["videoCodec"] as? String == "hevc" && decoded["videoTag"] as? String == "hvc1", "\(decoded)")
        #expect(decoded["complete"] as? Bool == true)
        #expect(!Records.codes(records.ios).contains("undecodable_media"), "\(Records.message(records.ios, "undecodable_media"))")
    }

    @Test func hev1DoesNotPlayOnIOSAndAV1AndVP9OnlyOnSome() throws {
        let hev1 = try Self.fixture("hev1.mp4")
        #expect(hev1.ios["outcome"] as? String == "attached" && hev1.ios["passed"] as? Bool == false)
        #expect(Records.codes(hev1.ios).contains("unplayable_video"))
        #expect(Records.codes(try Self.fixture("hvc1.mp4").ios).contains("unplayable_video") == false)
        for name in ["av1.mp4", "vp9.mp4"] {
            let records = try Self.fixture(name)
            #expect(Records.codes(records.ios).contains("video_codec_support"), "\(name)")
            #expect(records.ios["passed"] as? Bool == true, "\(name): a warning")
        }
    }

    /// The summary counts an attachment the phone cannot draw as a failure, and the preview says so.
    @Test func theSummaryAndThePreviewCountAnUndrawableAttachmentAsFailing() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = Self.server.url("/media/corrupt.jpg")
        let payload = #"{"aps": {"alert": "hi", "mutable-content": 1}, "notification_id": "n", "notti_image_url": "\#(url)"}"#
        let page = folder.appendingPathComponent("page.html").path
        let result = try CLI.run(["check", "-", "--cacert", Paths.testCA, "--out", folder.appendingPathComponent("out").path,
                                  "--html", page], stdin: payload)
        #expect(result.status == 1)
        #expect(result.stdout.contains("FAIL undecodable_media (attached jpg"), "\(result.stdout)")
        #expect(try String(contentsOfFile: page, encoding: .utf8).contains("Attached, but not shown on the phone"))
    }

    /// `sniff` decodes local files too, judged as the Notti iOS record would be.
    @Test func sniffGivesTheDecodersFactsAndVerdicts() throws {
        let folder = Paths.fixtures.appendingPathComponent("decode")
        let corrupt = try CLI.run(["sniff", "--format", "json", folder.appendingPathComponent("corrupt.jpg").path])
        #expect(corrupt.status == 1)
        let report = corrupt.json
        #expect((report["decoded"] as? [String: Any])?["complete"] as? Bool == false)
        #expect(Records.codes(report) == ["undecodable_media"])
        let text = try CLI.run(["sniff", folder.appendingPathComponent("rotated-6.jpg").path, folder.appendingPathComponent("hev1.mp4").path])
        #expect(text.status == 1, "hev1 does not play on iOS")
        #expect(text.stdout.contains("decoded: jpeg 320x240, orientation 6"), "\(text.stdout)")
        #expect(text.stdout.contains("error: unplayable_video"), "\(text.stdout)")
    }

    /// A tool without its worker (copied alone) refuses to check, rather than pass what it could not
    /// decode (exit 2, before anything is read), unless `--no-decode` says the user knows; then every
    /// record and the summary say that nothing was decoded.
    @Test func aToolWithoutItsWorkerStopsUnlessToldNoDecode() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lone = folder.appendingPathComponent("notti-media").path
        try FileManager.default.copyItem(atPath: CLI.binary, toPath: lone)
        let hev1 = Paths.fixtures.appendingPathComponent("decode/hev1.mp4").path
        for command in [["sniff", hev1], ["check", "-"], ["process", "-"], ["fix", "-", "--into", folder.appendingPathComponent("fixed").path]] {
            let result = try CLI.run(executable: lone, command, stdin: "")
            #expect(result.status == 2, "\(command)")
            #expect(result.stderr.hasPrefix("notti-media: the decode worker notti-media-decode is not installed beside notti-media"), "\(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1)
            #expect(result.stdout.isEmpty)
        }
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("fixed").path))
        let sniffed = try CLI.run(executable: lone, ["sniff", "--no-decode", "--format", "json", hev1])
        #expect(sniffed.status == 0, "an hev1 video is unplayable_video only when decoded: \(sniffed.stdout)")
        #expect(sniffed.stderr.isEmpty)
        #expect(sniffed.json["decoded"] is NSNull)
        let text = try CLI.run(executable: lone, ["sniff", "--no-decode", hev1])
        #expect(text.stdout.contains(", not decoded (--no-decode)"), "\(text.stdout)")
        let payload = #"{"aps": {"alert": "hi", "mutable-content": 1}, "notification_id": "n", "notti_image_url": "\#(Self.server.url("/media/corrupt.jpg"))"}"#
        let out = folder.appendingPathComponent("out").path
        let json = try CLI.run(
            executable: lone, ["check", "-", "--no-decode", "--format", "json", "--cacert", Paths.testCA, "--out", out], stdin: payload + "\n")
        #expect(json.status == 0, "\(json.stdout)")
        let lines = json.stdout.split(separator: "\n").map { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] ?? [:] }
        let media = lines.first?["media"] as? [String: Any]
        #expect(media?["decoded"] is NSNull)
        #expect((media?["limits"] as? [String: Any])?["decoded"] as? Bool == false)
        #expect((lines.last?["summary"] as? [String: Any])?["decoded"] as? Bool == false)
        let text2 = try CLI.run(executable: lone, ["check", "-", "--no-decode", "--cacert", Paths.testCA, "--out", out], stdin: payload + "\n")
        #expect(text2.stdout.contains("\nnot decoded (--no-decode): "), "\(text2.stdout)")
    }

    /// Notti sniffs, and Braze states the type in the payload: both attach the broken file, and both fail.
    @Test(arguments: ["notti", "braze"])
    func iOSProfilesAttachABrokenFileAndFail(sdk: String) throws {
        let url = Self.server.url("/media/corrupt.jpg")
        let payload = sdk == "notti"
            ? #"{"aps": {"alert": "hi", "mutable-content": 1}, "notification_id": "n", "notti_image_url": "\#(url)"}"#
            : #"{"aps": {"alert": "hi", "mutable-content": 1}, "ab": {"att": {"url": "\#(url)", "type": "jpg"}}}"#
        let out = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: out) }
        let result = try CLI.run(["process", "-", "--report", "--cacert", Paths.testCA, "--out", out.path, "--sdk", sdk], stdin: payload)
        #expect(result.json["outcome"] as? String == "attached")
        #expect(result.json["passed"] as? Bool == false)
        #expect(Records.codes(result.json).contains("undecodable_media"))
        #expect(result.status == 0, "process delivered the content: \(result.stderr)")
    }
}

/// The decode worker is a process of its own: killed mid-run, it costs the file it was reading
/// (`undecodable_media`, "the decoder stopped") and is started again for the next; nothing is lost.
@Suite struct DecodeWorkerFaultTests {
    /// The children of `parent` whose command is the decode worker (`comm` keeps 15 characters).
    static func workers(of parent: Int32) -> [Int32] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { entry -> Int32? in
            guard let pid = Int32(entry), let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return nil }
            let name = stat[stat.index(after: stat.firstIndex(of: "(")!)..<close]
            let fields = stat[stat.index(close, offsetBy: 2)...].split(separator: " ")
            return name == "notti-media-dec" && fields.count > 1 && Int32(fields[1]) == parent ? pid : nil
        }
    }

    /// Whether process `worker` has a descriptor open on a file in `folder`.
    static func holdsAFile(in folder: String, worker: Int32) -> Bool {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(worker)/fd")) ?? []).contains { entry in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(worker)/fd/\(entry)"))?.hasPrefix(folder + "/") == true
        }
    }

    /// The sandbox (SPEC 17): a picture is decoded in a child behind a seccomp filter. A decoder that makes a call
    /// the filter forbids (the test build's hook plants it in one format's decodes alone: libpng's, libheif's and
    /// libavif's, whose decoders run threads of their own, and libvips's, for BMP through ImageMagick and TIFF) is killed, which costs that record ("the decoder stopped", SIGSYS) and no
    /// other: the JPEG after it is decoded by a new worker.
    @Test(.enabled(if: CLI.sanitizer == nil, "a sanitizer's runtime makes calls the filter refuses: its builds decode unfiltered"),
          arguments: ["open", "openat", "socket", "connect", "execve", "ptrace", "fork"],
          [("png", "photo.png"), ("heif", "photo.heic"), ("avif", "photo.avif"), ("bmp", "photo.bmp"), ("tiff", "photo.tiff")])
    func aForbiddenCallKillsTheDecoderAndCostsOneRecord(call: String, planted: (format: String, file: String)) throws {
        let input = [DecodeTests.request(DecodeTests.server.url("/media/" + planted.file)),
                     DecodeTests.request(DecodeTests.server.url("/media/photo.jpg"))]
        let records = try Self.checkPlanting(call, in: planted.format, input: input, expecting: 4)
        for record in records {
            let message = DecodeTests.Records.message(record, "undecodable_media")
            if (record["index"] as? Int) == 0 {
                // An AVIF, a BMP or a TIFF is no type Firebase's iOS extension attaches, nor a TIFF one BitmapFactory
                // reads (`unsupported_type` first): the other records say what stopped; none has facts from the decoder.
                let judged = ["png", "heif"].contains(planted.format)
                    || ["avif", "bmp"].contains(planted.format) && record["platform"] as? String == "android"
                #expect(!judged || message.contains("the decoder stopped") && message.contains("(signal \(SIGSYS))"),
                        "\(call): \(message)")
                #expect(DecodeTests.Records.decoded(record)["format"] as? String == nil, "\(call): nothing decoded")
            } else {
                #expect(message.isEmpty, "\(call): the next file is decoded: \(message)")
                #expect(DecodeTests.Records.decoded(record)["complete"] as? Bool == true)
            }
        }
    }

    /// The sandbox holds FFmpeg too (SPEC 17): a video is read from memory in a child behind the same filter. A call
    /// it forbids, planted in MP4 reads alone, kills that child and costs the video's record; the MP3 after it is
    /// read by a new worker.
    @Test(.enabled(if: CLI.sanitizer == nil, "a sanitizer's runtime makes calls the filter refuses: its builds decode unfiltered"),
          arguments: ["open", "openat", "socket", "connect", "execve", "ptrace", "fork"])
    func aForbiddenCallInTheStreamDecoderCostsOneRecord(call: String) throws {
        let input = ["avc1.mp4", "tone.mp3"].map { name in
            #"{"aps":{"alert":"Listen","mutable-content":1},"notti_image_url":"\#(DecodeTests.server.url("/media/" + name))"}"#
        }
        let records = try Self.checkPlanting(call, in: "video/mp4", input: input, expecting: 2)
        guard records.count == 2 else { return }
        let killed = DecodeTests.Records.message(records[0], "undecodable_media")
        #expect(killed.contains("the decoder stopped") && killed.contains("(signal \(SIGSYS))"), "\(call): \(killed)")
        #expect(DecodeTests.Records.message(records[1], "undecodable_media").isEmpty, "\(call): the MP3 is read")
        #expect(DecodeTests.Records.decoded(records[1])["audioCodec"] as? String == "mp3")
        #expect(DecodeTests.Records.decoded(records[1])["complete"] as? Bool == true)
    }

    /// The records of `check` of `input` (one line each, in order) with `call` planted in the decodes of `kind`'s
    /// files (the test build's hook), expecting `count` of them; the attachment folder goes with the test.
    static func checkPlanting(_ call: String, in kind: String, input: [String], expecting count: Int) throws -> [[String: Any]] {
        let out = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: out) }
        let result = try CLI.run(["check", "-", "--format", "json", "--jobs", "1", "--cacert", Paths.testCA, "--out", out.path],
                                 stdin: input.joined(separator: "\n") + "\n", environment: ["NOTTI_MEDIA_DECODE_TRY": "\(call):\(kind)"])
        let records = OutFolder.records(ofJSONLines: result.stdout)
        #expect(records.count == count, "\(result.stderr)")
        return records
    }

    /// A grey PNG of `side`×`side` pixels, made with zlib (Python's): 9000×9000 decodes to 324 MB.
    static func largePNG(side: Int, at path: String) throws {
        let script = """
        import struct, sys, zlib
        side = int(sys.argv[2])
        def chunk(kind, data): return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        rows = (b"\\x00" + bytes([128]) * side) * side
        png = b"\\x89PNG\\r\\n\\x1a\\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", side, side, 8, 0, 0, 0, 0))
        png += chunk(b"IDAT", zlib.compress(rows, 1)) + chunk(b"IEND", b"")
        open(sys.argv[1], "wb").write(png)
        """
        let result = try CLI.run(executable: "/usr/bin/env", ["python3", "-c", script, path, String(side)])
        #expect(result.status == 0, "\(result.stderr)")
    }

    /// Android's largest bitmap is 100 MiB: 9000×9000 decodes to 324 MB; over 100,000,000 pixels the header alone is read.
    @Test(arguments: [(9000, true), (10_001, false)])
    func aHugePictureIsALargeBitmapOnAndroid(side: Int, decoded: Bool) throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Self.largePNG(side: side, at: folder.appendingPathComponent("large.png").path)
        let server = TestServer(media: folder.path)
        let records = try DecodeTests.run(DecodeTests.request(server.url("/media/large.png")))
        #expect(DecodeTests.Records.codes(records.android).contains("large_bitmap"), "\(DecodeTests.Records.codes(records.android))")
        let message = DecodeTests.Records.message(records.android, "large_bitmap")
        #expect(message.contains("\(side)×\(side)") && message.contains("resize it to at most"), "\(message)")
        #expect(message.contains("not checked") == !decoded, "\(message)")
        let facts = DecodeTests.Records.decoded(records.android)
        #expect(facts["decodedBytes"] as? Int == side * side * 4)
        if decoded { #expect(facts["complete"] as? Bool == true) } else { #expect(facts["complete"] is NSNull) }
        #expect(!DecodeTests.Records.codes(records.ios).contains("large_bitmap"), "an Android finding")
    }

    /// The `--kind` each worker of `parent` was started with, by pid.
    static func kinds(of parent: Int32) -> [Int32: String] {
        var kinds: [Int32: String] = [:]
        for worker in workers(of: parent) {
            guard let line = try? String(contentsOfFile: "/proc/\(worker)/cmdline", encoding: .utf8) else { continue }
            let arguments = line.split(separator: "\0").map(String.init)
            if let flag = arguments.firstIndex(of: "--kind"), flag + 1 < arguments.count { kinds[worker] = arguments[flag + 1] }
        }
        return kinds
    }

    /// Every worker `parent` started and its kind, watched until `parent` has exited (each is kept until the run ends).
    static func kindsUntilExit(of parent: Int32) -> [Int32: String] {
        var seen: [Int32: String] = [:]
        let give = Date().addingTimeInterval(60)
        while Date() < give, let stat = try? String(contentsOfFile: "/proc/\(parent)/stat", encoding: .utf8), !stat.contains(") Z ") {
            seen.merge(kinds(of: parent)) { old, _ in old }
            usleep(1_000)
        }
        return seen
    }

    /// Pictures and streams are read by two workers, each loading its own decoder: a run of pictures
    /// starts no stream worker (FFmpeg's sixty-odd libraries stay out of memory), and a run of both
    /// starts one of each, every file read by its own.
    @Test(arguments: [
        (["photo.jpg", "photo.png", "animated.gif"], ["pictures"]),
        (["photo.jpg", "avc1.mp4", "tone.mp3", "photo.png"], ["pictures", "streams"]),
    ])
    func eachKindOfMediaHasAWorkerOfItsOwn(files: [String], expected: [String]) throws {
        let out = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: out) }
        let payloads = files.map { #"{"aps": {"alert": "hi", "mutable-content": 1}, "notification_id": "n", "notti_image_url": "\#(DecodeTests.server.url("/media/\($0)"))"}"# }
        var seen: [Int32: String] = [:]
        let result = try CLI.run(
            // One job: one picture worker (the pool's size is the cores, at most --jobs).
            ["check", "-", "--format", "json", "--jobs", "1", "--cacert", Paths.testCA, "--out", out.path],
            stdin: payloads.joined(separator: "\n"),
            whileRunning: { pid in seen = Self.kindsUntilExit(of: pid) })
        #expect(result.status == 0, "exit status: \(result.stderr)")
        #expect(Set(seen.values) == Set(expected), "workers started: \(seen)")
        #expect(seen.count == expected.count, "one worker per kind: \(seen)")
        let records = result.stdout.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }.filter { $0["summary"] == nil }
        let kinds = records.map { (DecodeTests.Records.decoded($0)["kind"] as? String) ?? "none" }
        let complete = records.map { DecodeTests.Records.decoded($0)["complete"] as? Bool }
        #expect(kinds == files.map { $0.hasSuffix(".mp4") ? "video" : $0.hasSuffix(".mp3") ? "audio" : "picture" }, "\(kinds)")
        #expect(complete.allSatisfy { $0 == true }, "every file read whole: \(complete)")
        OutFolder.expectHoldsExactly(out, namedBy: records)
    }

    /// The picture pool opens as distinct contents arrive: a few pictures (a campaign's) keep one worker,
    /// and a second opens on the ninth distinct content, when the machine has a second core.
    @Test(arguments: [(3, 1), (12, 2)])
    func thePicturePoolOpensAsContentsArrive(contents: Int, workers: Int) throws {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let out = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: out) }
        // Each padded copy is another content (its SHA-256), each named by two payloads.
        let payloads = (0..<contents * 2).map { i in
            let url = DecodeTests.server.url("/padded/\(20_000 + i % contents)/photo.png")
            return #"{"aps": {"alert": "hi", "mutable-content": 1}, "notification_id": "n", "notti_image_url": "\#(url)"}"#
        }
        var seen: [Int32: String] = [:]
        let result = try CLI.run(["check", "-", "--format", "json", "--cacert", Paths.testCA, "--out", out.path],
                                 stdin: payloads.joined(separator: "\n"), whileRunning: { pid in seen = Self.kindsUntilExit(of: pid) })
        #expect(result.status == 0, "exit status: \(result.stderr)")
        #expect(seen.values.filter { $0 == "pictures" }.count == min(workers, cores), "workers started: \(seen)")
        let records = result.stdout.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }.filter { $0["summary"] == nil }
        #expect(records.count == contents * 2)
        #expect(records.allSatisfy { DecodeTests.Records.decoded($0)["complete"] as? Bool == true }, "every file read whole")
        OutFolder.expectHoldsExactly(out, namedBy: records)
    }

    /// Whether a stream worker of `parent` has mapped FFmpeg's libavformat, watched until `parent` has exited.
    static func streamWorkerLoadedFFmpegUntilExit(of parent: Int32) -> Bool {
        var loaded = false
        let give = Date().addingTimeInterval(60)
        while Date() < give, let stat = try? String(contentsOfFile: "/proc/\(parent)/stat", encoding: .utf8), !stat.contains(") Z ") {
            for (worker, kind) in kinds(of: parent) where kind == "streams" {
                // Read to its end (the file's size says 0, and it is longer than one read).
                guard let maps = FileHandle(forReadingAtPath: "/proc/\(worker)/maps") else { continue }
                // The throwing read: a worker that exits mid-read (ESRCH) made readDataToEndOfFile trap the whole suite.
                if let data = try? maps.readToEnd(), String(decoding: data, as: UTF8.self).contains("libavformat") { loaded = true }
                try? maps.close()
            }
            usleep(1_000)
        }
        return loaded
    }

    /// A clean MP4 of H.264 and AAC and a clean MP3 are read by the worker's own readers (and OpenH264), with
    /// FFmpeg's facts and without loading its hundred libraries (24 ms, 27 MB); an HEVC video is FFmpeg's.
    @Test(arguments: [(["avc1.mp4", "tone.mp3", "cover.mp3", "voice.m4a"], false), (["avc1.mp4", "hvc1.mp4"], true)])
    func cleanMP4AndMP3AreReadWithoutFFmpeg(files: [String], ffmpeg: Bool) throws {
        let payloads = files.map { #"{"aps": {"alert": "hi", "mutable-content": 1}, "notti_image_url": "\#(DecodeTests.server.url("/media/\($0)"))"}"# }
        let out = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: out) }
        var loaded = false
        let result = try CLI.run(["check", "-", "--format", "json", "--cacert", Paths.testCA, "--out", out.path],
                                 stdin: payloads.joined(separator: "\n"),
                                 whileRunning: { pid in loaded = Self.streamWorkerLoadedFFmpegUntilExit(of: pid) })
        #expect(loaded == ffmpeg, "FFmpeg loaded for \(files): \(loaded)")
        let records = result.stdout.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }.filter { $0["summary"] == nil }
        OutFolder.expectHoldsExactly(out, namedBy: records)
        guard let first = records.first else { return }
        let video = DecodeTests.Records.decoded(first)
        #expect(video["container"] as? String == "isom" && video["videoCodec"] as? String == "h264" && video["videoTag"] as? String == "avc1")
        #expect(video["width"] as? Int == 160 && video["height"] as? Int == 120 && video["audioCodec"] as? String == "aac")
        #expect(video["durationSeconds"] as? Double == 1 && video["complete"] as? Bool == true)
        #expect(records.count == files.count)
        for (file, record) in zip(files, records) {
            let decoded = DecodeTests.Records.decoded(record)
            #expect(decoded["complete"] as? Bool == true, "\(file): \(decoded)")
            if file.hasSuffix(".mp3") { #expect(decoded["audioCodec"] as? String == "mp3" && decoded["durationSeconds"] as? Double == 1.045) }
            if file.hasSuffix(".m4a") { #expect(decoded["audioCodec"] as? String == "aac" && decoded["durationSeconds"] as? Double == 1) }
            if file == "hvc1.mp4" { #expect(decoded["videoCodec"] as? String == "hevc" && decoded["videoTag"] as? String == "hvc1") }
            // An M4A is attached as a picture under Notti (its own finding); every other file decodes.
            #expect(file.hasSuffix(".m4a") || !DecodeTests.Records.codes(record).contains("undecodable_media"), "\(file)")
        }
    }

    /// The worker's own readers answer only where they give FFmpeg's facts: `sniff` of clean MP4s and MP3s and of
    /// 240 damaged copies (bytes overwritten anywhere, in the movie's tables most, cut, or with bytes after the end),
    /// read with the readers first and, in the test build, by FFmpeg alone, says the same of every file.
    @Test(.enabled(if: CLI.sanitizer == nil, "slow under a sanitizer"))
    func theStreamReadersGiveFFmpegsFacts() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let sources = ["decode/avc1.mp4", "decode/voice.m4a", "decode/tone.mp3", "decode/cover.mp3", "media/clip.mp4",
                       "media/tone.mp3", "media/tone-id3.mp3", "decode/truncated.mp4"]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {  // a fixed sequence (xorshift): the same copies every run
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return Int(state % UInt64(max(1, bound)))
        }
        var names: [String] = []
        for (index, source) in sources.enumerated() {
            let bytes = try [UInt8](Data(contentsOf: Paths.fixtures.appendingPathComponent(source)))
            let suffix = (source as NSString).pathExtension
            let movie = Self.offset(of: Array("moov".utf8), in: bytes) ?? 0
            names.append("\(index)-clean.\(suffix)")
            try Data(bytes).write(to: folder.appendingPathComponent(names.last!))
            for copy in 0..<30 {
                var damaged = bytes
                switch copy % 4 {
                case 0: for _ in 0...next(3) { damaged[next(damaged.count)] = UInt8(next(256)) }
                case 1: for _ in 0...next(2) { damaged[min(damaged.count - 1, movie + next(3000))] = UInt8(next(256)) }
                case 2: damaged = Array(damaged.prefix(next(damaged.count)))
                default: damaged += (0...next(300)).map { _ in UInt8(next(256)) }
                }
                names.append("\(index)-\(copy).\(suffix)")
                try Data(damaged).write(to: folder.appendingPathComponent(names.last!))
            }
        }
        let arguments = ["sniff", "--format", "json"] + names.map { folder.appendingPathComponent($0).path }
        let readers = try CLI.run(arguments)
        let ffmpeg = try CLI.run(arguments, environment: ["NOTTI_MEDIA_DECODE_FFMPEG_ONLY": "1"])
        let readerLines = readers.stdout.split(separator: "\n"), ffmpegLines = ffmpeg.stdout.split(separator: "\n")
        #expect(readerLines.count == names.count && ffmpegLines.count == names.count)
        for (ours, theirs) in zip(readerLines, ffmpegLines) where ours != theirs {
            Issue.record("the readers: \(ours)\nFFmpeg: \(theirs)")
        }
    }

    static func offset(of needle: [UInt8], in bytes: [UInt8]) -> Int? {
        guard bytes.count >= needle.count else { return nil }
        return (0...(bytes.count - needle.count)).first { bytes[$0..<($0 + needle.count)].elementsEqual(needle) }
    }

    /// A worker unused for half a second is stopped (its memory back to the machine), and what it read is kept:
    /// the sound's worker, idle while two slow pictures download, is gone before the run ends, and the records
    /// are the same.
    @Test func aWorkerUnusedForHalfASecondIsStopped() throws {
        let slow = DecodeTests.server.url("/bytes/20000?mode=length&rate=16000")
        let urls = [DecodeTests.server.url("/media/tone.mp3"), slow + "&a", slow + "&b"]
        let payloads = urls.map { #"{"aps": {"alert": "hi", "mutable-content": 1}, "notti_image_url": "\#($0)"}"# }
        let out = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: out) }
        var streams: Set<Int32> = [], gone: Date?, ended = Date()
        let result = try CLI.run(["check", "-", "--format", "json", "--jobs", "1", "--cacert", Paths.testCA, "--out", out.path],
                                 stdin: payloads.joined(separator: "\n"), whileRunning: { pid in
            let give = Date().addingTimeInterval(60)
            while Date() < give, let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), !stat.contains(") Z ") {
                let running = Set(Self.kinds(of: pid).filter { $0.value == "streams" }.keys)
                if !streams.isEmpty && running.isEmpty && gone == nil { gone = Date() }
                streams.formUnion(running)
                usleep(1_000)
            }
            ended = Date()
        })
        #expect(result.status == 0, "\(result.stderr)")
        // Gone while the second picture still downloads (about a second), not with the others as the run ends.
        let before = gone.map { ended.timeIntervalSince($0) } ?? 0
        #expect(streams.count == 1 && before > 0.5, "the stream worker \(streams) stopped \(before) s before the run ended")
        let records = result.stdout.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }.filter { $0["summary"] == nil }
        #expect(records.map { DecodeTests.Records.decoded($0)["kind"] as? String } == ["audio", "picture", "picture"])
        #expect(records.allSatisfy { DecodeTests.Records.decoded($0)["complete"] as? Bool == true })
        OutFolder.expectHoldsExactly(out, namedBy: records)
    }

    /// The picture workers are a pool, one for each core at most (and at most --jobs): the same records whatever
    /// its size, each content decoded once, by one of them.
    @Test func thePictureWorkersAreAPoolThatChangesNoVerdict() throws {
        let files = ["photo.jpg", "photo.png", "animated.gif", "rotated-6.jpg", "rotated-8.jpg", "truncated.jpg", "corrupt.jpg",
                     "crc-error.png", "truncated.png", "photo.heic", "photo.avif", "photo.bmp", "photo.tiff", "photo.jpg"]
        let payloads = files.map { #"{"aps": {"alert": "hi", "mutable-content": 1}, "notification_id": "n", "notti_image_url": "\#(DecodeTests.server.url("/media/\($0)"))"}"# }
        var outputs: [String] = []
        for jobs in [1, 8] {
            let out = Paths.temporaryFolder()
            defer { try? FileManager.default.removeItem(at: out) }
            var seen: [Int32: String] = [:]
            let result = try CLI.run(
                ["check", "-", "--format", "json", "--jobs", String(jobs), "--cacert", Paths.testCA, "--out", out.path],
                stdin: payloads.joined(separator: "\n"),
                whileRunning: { pid in seen = Self.kindsUntilExit(of: pid) })
            #expect(result.status == 1, "the broken files fail: \(result.stderr)")
            let pool = seen.values.filter { $0 == "pictures" }.count
            // Thirteen contents spread over the pool by their hashes: every worker of it gets some (each is kept to the end).
            #expect(pool == min(jobs, ProcessInfo.processInfo.activeProcessorCount), "--jobs \(jobs): \(seen)")
            // The records without what is not deterministic (timings) or names the run's folder.
            let records = OutFolder.records(ofJSONLines: result.stdout).map { record -> String in
                var record = record
                var media = record["media"] as? [String: Any] ?? [:]
                media["elapsedMs"] = nil
                media["timings"] = nil
                record["media"] = media
                record["content"] = nil
                return String(decoding: try! JSONSerialization.data(withJSONObject: record, options: [.sortedKeys]), as: UTF8.self)
            }
            #expect(records.count == files.count)
            outputs.append(records.joined(separator: "\n"))
        }
        #expect(outputs[0] == outputs[1], "the same records with one picture worker and with a pool")
    }

    /// A worker that never answers (a stand-in named by `NOTTI_MEDIA_DECODER` that sleeps) is killed at the
    /// record's deadline: the file is `undecodable_media`, the run ends on time, and nothing is left running.
    @Test func aWorkerThatHangsIsKilledAtTheRecordsDeadline() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let marker = "notti-hang-\(UUID().uuidString.prefix(8))"
        let hanging = folder.appendingPathComponent("hanging-decoder").path
        try "#!/bin/sh\nexec python3 -c 'import time; time.sleep(30)' \(marker)\n".write(toFile: hanging, atomically: true, encoding: .utf8)
        chmod(hanging, 0o755)
        let url = DecodeTests.server.url("/media/photo.jpg")
        let payload = #"{"aps": {"alert": "hi", "mutable-content": 1}, "notification_id": "n", "notti_image_url": "\#(url)"}"#
        let out = folder.appendingPathComponent("out")
        let result = try CLI.run(["process", "-", "--report", "--cacert", Paths.testCA, "--out", out.path, "--timeout", "2"],
                                 stdin: payload, environment: ["NOTTI_MEDIA_DECODER": hanging])
        let message = (result.json["diagnostics"] as? [[String: Any]] ?? []).first { $0["code"] as? String == "undecodable_media" }?["message"]
        #expect((message as? String)?.contains("the decoder stopped: it did not answer within 2 s") == true, "\(result.stdout.prefix(600))")
        #expect(result.json["outcome"] as? String == "attached", "iOS attaches without reading the bytes")
        #expect(result.seconds < 6, "killed at the deadline: \(result.seconds) s")
        let left = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).filter { entry in
            guard Int32(entry) != nil, let command = try? String(contentsOfFile: "/proc/\(entry)/cmdline", encoding: .utf8) else { return false }
            return command.contains(marker)
        }
        #expect(left.isEmpty, "the hung worker was killed")
        OutFolder.expectHoldsExactly(out, namedBy: [result.json])
    }

    @Test func aWorkerKilledMidRunCostsOneFileAndIsStartedAgain() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Self.largePNG(side: 9000, at: folder.appendingPathComponent("large.png").path)
        for name in ["photo.jpg", "photo.png", "rotated-6.jpg"] {
            try FileManager.default.copyItem(atPath: Paths.fixtures.appendingPathComponent("decode/\(name)").path,
                                             toPath: folder.appendingPathComponent(name).path)
        }
        let server = TestServer(media: folder.path)
        let names = ["large.png", "photo.jpg", "photo.png", "rotated-6.jpg"]
        let payloads = names.map { #"{"aps": {"alert": "hi", "mutable-content": 1}, "notification_id": "n", "notti_image_url": "\#(server.url("/media/\($0)"))"}"# }
        let out = folder.appendingPathComponent("out")
        var killed: Int32?
        var seen: Set<Int32> = []
        let result = try CLI.run(
            ["check", "-", "--format", "json", "--jobs", "1", "--cacert", Paths.testCA, "--out", out.path],
            stdin: payloads.joined(separator: "\n"), holdStdinOpen: false,
            whileRunning: { pid in
                // Kill the worker while it reads the first file: once it holds a descriptor of a file in --out
                // (the download's working file, passed to it), decoding the 81-megapixel picture.
                let findBy = Date().addingTimeInterval(60)
                while killed == nil && Date() < findBy {
                    if let worker = Self.workers(of: pid).first(where: { Self.holdsAFile(in: out.path, worker: $0) }) {
                        kill(worker, SIGKILL)
                        killed = worker
                        seen.insert(worker)
                    } else {
                        usleep(2_000)
                    }
                }
                // Every worker of the run, until the tool has exited: a deadline of its own, so a slow search
                // above (a loaded machine) does not leave the successor unwatched.
                let watchUntil = Date().addingTimeInterval(120)
                while Date() < watchUntil, let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                      !stat.contains(") Z ") {
                    seen.formUnion(Self.workers(of: pid))
                    usleep(2_000)
                }
            })
        #expect(killed != nil, "the worker was found by its parent")
        let records = result.stdout.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }.filter { $0["summary"] == nil }
        #expect(records.count == 4, "every record was written: \(result.stderr)")
        func codes(_ record: [String: Any]) -> [String] {
            (record["diagnostics"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
        }
        let first = records.first ?? [:]
        let message = (first["diagnostics"] as? [[String: Any]] ?? []).first { $0["code"] as? String == "undecodable_media" }?["message"] as? String
        #expect(message?.contains("the decoder stopped") == true, "\(codes(first)) \(message ?? "")")
        for record in records.dropFirst() {
            let decoded = (record["media"] as? [String: Any])?["decoded"] as? [String: Any]
            #expect(decoded?["complete"] as? Bool == true, "decoded by a new worker: \(codes(record))")
        }
        #expect(seen.count >= 2, "a second worker took over: \(seen)")
        for worker in seen {
            let stat = try? String(contentsOfFile: "/proc/\(worker)/stat", encoding: .utf8)
            #expect(stat?.contains("(notti-media-dec)") != true, "worker \(worker) outlived the run")
        }
        OutFolder.expectHoldsExactly(out, namedBy: records)
    }
}

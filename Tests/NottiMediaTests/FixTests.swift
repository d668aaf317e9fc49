import Foundation
import Testing

/// SPEC 19 from the outside: `fix` on loopback, the renditions served back from
/// a second server at `--base-url`, and `check` run on the rewritten payloads.
@Suite(.serialized) struct FixTests {
    /// The origin: the decode fixtures, and a WebP.
    static let origin: TestServer = {
        let folder = Paths.temporaryFolder()
        for name in ["rotated-6.jpg", "photo.png", "photo.heic", "truncated.jpg", "animated.gif", "hev1.mp4", "vp9.mp4", "cover.mp3", "vp9-shrinking.mp4", "avc1.mp4"] {
            try? FileManager.default.copyItem(atPath: Paths.fixture("decode/\(name)"), toPath: folder.appendingPathComponent(name).path)
        }
        try? FileManager.default.copyItem(atPath: Paths.medium("badge.webp"), toPath: folder.appendingPathComponent("badge.webp").path)
        return TestServer(media: folder.path)
    }()

    private static func request(_ url: String) -> String { DecodeTests.request(url) }

    /// A `TMPDIR` holding one file of the user's: after a run it must hold exactly that file (the run's
    /// scratch folder and the attachments its check placed there are gone, nothing else is).
    private static func temporaryFolderWithUsersFile(in folder: URL) throws -> URL {
        let tmp = folder.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: tmp, withIntermediateDirectories: true)
        try Data("mine".utf8).write(to: tmp.appendingPathComponent("keep.txt"))
        return tmp
    }

    private static func braze(_ url: String, type: String) -> String {
        #"{"aps": {"alert": "x", "mutable-content": 1}, "ab": {"att": {"url": "\#(url)", "type": "\#(type)"}}, "notification_id": "n-b"}"#
    }

    /// Payloads whose every media finding a rendition cures: rotated-6.jpg on Android (orientation_ignored),
    /// a 1.2 MB PNG on Android (Firebase's 1 MiB), a WebP under Braze (iOS cannot type it), a HEIC under Notti,
    /// an animated GIF of 1.2 MB on Android (kept animated, smaller), HEVC stored as hev1 (iOS does not play it),
    /// VP9 (only some iPhones decode it), an MP3 with cover art padded to 6,000,000 bytes (over iOS's 5 MB for audio).
    static var fixable: [String] {
        [
            payload(url: origin.url("/media/hev1.mp4")),
            payload(url: origin.url("/media/vp9.mp4")),
            payload(url: origin.url("/padded/6000000/cover.mp3")),
            request(origin.url("/media/rotated-6.jpg")),
            request(origin.url("/padded/1200000/animated.gif")),
            request(origin.url("/padded/1200000/photo.png")),
            braze(origin.url("/media/badge.webp"), type: "webp"),
            payload(url: origin.url("/media/photo.heic")),
        ]
    }

    struct Run {
        var result: CLI.Result
        var manifest: [[String: Any]]
        var names: Set<String>
    }

    private func fix(_ input: String, into: URL, extra: [String] = [], environment: [String: String] = [:]) throws -> Run {
        let result = try CLI.run(["fix", input, "--sdk", "auto", "--cacert", Paths.testCA, "--into", into.path] + extra,
                                 environment: environment)
        let text = (try? String(contentsOf: into.appendingPathComponent("fixes.jsonl"), encoding: .utf8)) ?? ""
        let manifest = text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        return Run(result: result, manifest: manifest, names: Set(Paths.contents(of: into)))
    }

    @Test func theRenditionsPassEverywhereAndThePayloadsPointAtThem() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let into = folder.appendingPathComponent("fixed"), rewritten = folder.appendingPathComponent("payloads")
        // The renditions' own server: DIR served at the base URL.
        let cdn = TestServer(media: into.path)
        let base = cdn.url("/media/")
        let input = folder.appendingPathComponent("campaign.jsonl")
        try Data((Self.fixable.joined(separator: "\n") + "\n").utf8).write(to: input)

        let run = try fix(input.path, into: into, extra: ["--base-url", base, "--rewrite", rewritten.path])
        #expect(run.result.status == 0, "\(run.result.stdout)\(run.result.stderr)")
        #expect(run.manifest.count == 8)
        // The closing lines: what was written and its size, what was rewritten, what to upload where.
        let closing = run.result.stdout.split(separator: "\n").map(String.init)
        #expect(closing.contains { $0.hasPrefix("fixed 8 URLs: ") && $0.contains(" in \(into.path), each named in \(into.path)/fixes.jsonl") },
                "\(run.result.stdout)")
        #expect(closing.contains("rewrote 8 payloads in \(rewritten.path) to name the renditions"), "\(run.result.stdout)")
        #expect(closing.contains { $0.hasPrefix("next: upload \(into.path)/* (not fixes.jsonl) to \(base), then check the rewritten payloads") })
        // DIR holds exactly the renditions the manifest names, and the manifest.
        let files = run.manifest.compactMap { $0["file"] as? String }
        #expect(run.names == Set(files + ["fixes.jsonl"]), "\(run.names)")
        func line(_ name: String) -> [String: Any] { run.manifest.first { ($0["url"] as? String)?.contains(name) == true } ?? [:] }

        let rotated = line("rotated-6.jpg")
        #expect(rotated["cured"] as? [String] == ["orientation_ignored"])
        #expect(rotated["type"] as? String == "jpg" && rotated["width"] as? Int == 240 && rotated["height"] as? Int == 320)
        #expect((rotated["before"] as? [String: Any])?["width"] as? Int == 320, "sizes are stored pixel grids")
        #expect((rotated["changes"] as? [String] ?? []).contains("rotated 90° (EXIF 6)"))
        #expect((rotated["newUrl"] as? String) == base + (rotated["file"] as? String ?? "?"))
        let large = line("padded/1200000")
        #expect(large["cured"] as? [String] == ["too_large"])
        #expect((large["before"] as? [String: Any])?["bytes"] as? Int == 1_200_000)
        #expect((large["bytes"] as? Int ?? .max) <= 300_000)
        let webp = line("badge.webp")
        #expect(webp["cured"] as? [String] == ["unsupported_type"])
        #expect((webp["changes"] as? [String] ?? []).contains("converted WebP → JPEG"))
        #expect(line("photo.heic")["type"] as? String == "jpg")
        let video = line("hev1.mp4")
        #expect(video["cured"] as? [String] == ["unplayable_video"] && video["type"] as? String == "mp4")
        #expect(video["changes"] as? [String] == ["re-muxed hev1 → hvc1 (the same HEVC stream, not re-encoded)"])
        let vp9 = line("vp9.mp4")
        #expect(vp9["cured"] as? [String] == ["video_codec_support"])
        #expect(vp9["changes"] as? [String] == ["re-encoded as H.264 (avc1) and AAC"] && vp9["width"] as? Int == 160)
        let sound = line("cover.mp3")
        #expect(sound["cured"] as? [String] == ["too_large"] && sound["type"] as? String == "mp3", "\(sound)")
        #expect((sound["bytes"] as? Int ?? .max) <= 5_000_000)
        let soundBytes = try Data(contentsOf: into.appendingPathComponent(sound["file"] as? String ?? "?"))
        #expect(soundBytes.range(of: Data("APIC".utf8)) == nil, "the cover art is dropped")
        let animation = line("animated.gif")
        #expect(animation["type"] as? String == "gif" && animation["cured"] as? [String] == ["too_large"])
        #expect((animation["changes"] as? [String] ?? []).contains("animation kept: 4 frames"), "\(animation)")

        // The rewritten payloads differ from the originals only in the URLs and Braze's type.
        let before = try String(contentsOf: input, encoding: .utf8)
        let after = try String(contentsOf: rewritten.appendingPathComponent("campaign.jsonl"), encoding: .utf8)
        var expected = before
        for entry in run.manifest {
            expected = expected.replacingOccurrences(of: "\"\(entry["url"] as? String ?? "")\"", with: "\"\(entry["newUrl"] as? String ?? "")\"")
        }
        expected = expected.replacingOccurrences(of: #""type": "webp""#, with: #""type": "jpg""#)
        #expect(after == expected)

        // Served at the base URL, the rewritten payloads have no media finding on either platform.
        let checked = try CLI.run(["check", rewritten.path, "--sdk", "auto", "--cacert", Paths.testCA, "--format", "json",
                                   "--out", folder.appendingPathComponent("attachments").path])
        #expect(checked.status == 0, "\(checked.stdout)")
        let codes = checked.stdout.split(separator: "\n").flatMap { line -> [String] in
            let record = (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]) ?? [:]
            return (record["diagnostics"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
        }
        #expect(codes.filter { !["notification_id_missing", "animation_lost"].contains($0) }.isEmpty, "\(codes)")

        // The same input gives byte-identical renditions and the same manifest, one URL at a time (--jobs 1) as
        // eight at a time (the default); the rewritten payloads give fix nothing to do.
        let again = folder.appendingPathComponent("again")
        let second = try fix(input.path, into: again, extra: ["--jobs", "1"])
        #expect(second.names == run.names)
        func withoutNewURLs(_ manifest: [[String: Any]]) -> [NSDictionary] {
            manifest.map { line in NSDictionary(dictionary: line.filter { $0.key != "newUrl" }) }
        }
        #expect(withoutNewURLs(second.manifest) == withoutNewURLs(run.manifest), "the manifest's lines, in order")
        for name in files {
            #expect(FileManager.default.contentsEqual(atPath: into.appendingPathComponent(name).path,
                                                      andPath: again.appendingPathComponent(name).path), "\(name)")
        }
        let nothing = try fix(rewritten.appendingPathComponent("campaign.jsonl").path, into: folder.appendingPathComponent("nothing"))
        #expect(nothing.result.status == 0, "\(nothing.result.stdout)")
        #expect(nothing.manifest.isEmpty && nothing.names == ["fixes.jsonl"])
    }

    @Test func eachEntryOfSeveralIsCuredOnItsOwnAndAHugePictureShrinks() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let media = folder.appendingPathComponent("media")
        try FileManager.default.createDirectory(at: media, withIntermediateDirectories: true)
        // 9000×9000: Android decodes 324 MB (large_bitmap).
        try DecodeWorkerFaultTests.largePNG(side: 9000, at: media.appendingPathComponent("large.png").path)
        try FileManager.default.copyItem(atPath: Paths.medium("badge.webp"), toPath: media.appendingPathComponent("badge.webp").path)
        try FileManager.default.copyItem(atPath: Paths.medium("logo.png"), toPath: media.appendingPathComponent("logo.png").path)
        let origin = TestServer(media: media.path)
        let webp = origin.url("/media/badge.webp"), logo = origin.url("/media/logo.png")
        let oneSignal = #"{"aps": {"alert": "x", "mutable-content": 1}, "custom": {"i": "os-1"}, "att": {"hero": "\#(webp)", "logo": "\#(logo)"}}"#
        let input = folder.appendingPathComponent("two.jsonl")
        try Data([oneSignal, Self.request(origin.url("/media/large.png"))].joined(separator: "\n").utf8).write(to: input)
        let into = folder.appendingPathComponent("fixed"), rewritten = folder.appendingPathComponent("payloads")
        let run = try fix(input.path, into: into, extra: ["--base-url", "https://cdn.example/push", "--rewrite", rewritten.path])
        #expect(run.result.status == 0, "\(run.result.stdout)")
        // The logo entry has no finding: no line, and its URL stays.
        #expect(run.manifest.map { $0["url"] as? String } == [webp, origin.url("/media/large.png")])
        let large = run.manifest.last ?? [:]
        #expect(large["cured"] as? [String] == ["large_bitmap"])
        #expect(large["width"] as? Int == 2048 && large["height"] as? Int == 2048 && large["type"] as? String == "jpg")
        let hero = run.manifest.first ?? [:]
        #expect((hero["newUrl"] as? String) == "https://cdn.example/push/" + (hero["file"] as? String ?? "?"))
        let after = try String(contentsOf: rewritten.appendingPathComponent("two.jsonl"), encoding: .utf8)
        #expect(after.contains(logo) && !after.contains(webp) && after.contains(hero["newUrl"] as? String ?? "?"))
    }

    /// A 4032×3024 camera photo of about 3 MB stored on its side (EXIF 6), named by a send request: over
    /// Firebase's 1 MiB on Android, and shown sideways there.
    @Test func aCameraPhotoOnItsSideBecomesAnUprightJPEGUnderTheTarget() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let media = folder.appendingPathComponent("media")
        try FileManager.default.createDirectory(at: media, withIntermediateDirectories: true)
        let photo = media.appendingPathComponent("camera.jpg").path
        // libvips's encoder makes the photo (smooth noise and grain, as a camera does); rotated-6.jpg's EXIF
        // segment (exiftool's, orientation 6) goes in right after its start of image.
        let make = try CLI.run(executable: "/bin/bash", ["-c", #"""
            set -e; cd "$1"
            vips perlin p.v 4032 3024 --cell-size 64; vips gaussnoise g.v 4032 3024 --sigma 7
            vips linear p.v l.v 200 20; vips add l.v g.v s.v; vips bandjoin "s.v s.v s.v" c.v
            vips copy c.v o.v --interpretation srgb; vips jpegsave o.v plain.jpg --Q 85 --strip; rm -f *.v
            python3 - "$2" plain.jpg "$3" <<'PY'
            import sys
            exif = open(sys.argv[1], "rb").read()
            at = 2
            while exif[at:at + 2] != bytes([0xFF, 0xE1]):
                at += 2 + int.from_bytes(exif[at + 2:at + 4], "big")
            segment = exif[at:at + 2 + int.from_bytes(exif[at + 2:at + 4], "big")]
            plain = open(sys.argv[2], "rb").read()
            open(sys.argv[3], "wb").write(plain[:2] + segment + plain[2:])
            PY
            rm plain.jpg
            """#, "_", media.path, Paths.fixture("decode/rotated-6.jpg"), photo])
        #expect(make.status == 0, "\(make.stderr)")
        let bytes = (try? FileManager.default.attributesOfItem(atPath: photo)[.size] as? Int) ?? 0
        #expect(bytes > 2_000_000, "about 3 MB: \(bytes)")
        let origin = TestServer(media: media.path)
        let input = folder.appendingPathComponent("camera.json")
        try Data(Self.request(origin.url("/media/camera.jpg")).utf8).write(to: input)
        let run = try fix(input.path, into: folder.appendingPathComponent("fixed"))
        #expect(run.result.status == 0, "\(run.result.stdout)")
        let line = run.manifest.first ?? [:]
        // Android refuses the announced 3 MB before the body (too_large); the rendition is also upright.
        #expect(line["cured"] as? [String] == ["too_large"], "\(line)")
        #expect(line["type"] as? String == "jpg" && (line["bytes"] as? Int ?? .max) <= 300_000)
        // Upright: taller than wide, at most 2048 on its long side.
        let width = line["width"] as? Int ?? 0, height = line["height"] as? Int ?? 0
        #expect(height > width && height <= 2048, "\(width)×\(height)")
        #expect((line["before"] as? [String: Any])?["width"] as? Int == 4032)
        #expect((line["changes"] as? [String] ?? []).contains("rotated 90° (EXIF 6)"))
    }

    /// SPEC 19: the rendition is at the highest of the qualities 82, 78, 74, 70 whose bytes fit in
    /// `--target-bytes`, and only when 70 does not fit is the side lowered. Each target is one byte under
    /// the last rendition's bytes, so each run must step down one quality; a target of exactly a
    /// rendition's bytes keeps that quality.
    @Test func theRenditionIsAtTheHighestQualityThatFits() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("rotated.json")
        try Data(Self.request(Self.origin.url("/media/rotated-6.jpg")).utf8).write(to: input)
        func rendition(within target: Int) throws -> (quality: Int?, bytes: Int, width: Int) {
            let into = folder.appendingPathComponent("fixed-\(target)")
            let run = try fix(input.path, into: into, extra: ["--target-bytes", "\(target)"])
            let line = try #require(run.manifest.first, "\(run.result.stdout)\(run.result.stderr)")
            let changes = line["changes"] as? [String] ?? []
            let quality = changes.first { $0.hasPrefix("JPEG quality ") }.flatMap { Int($0.dropFirst("JPEG quality ".count)) }
            let bytes = line["bytes"] as? Int ?? 0
            #expect(line["type"] as? String == "jpg" && bytes <= target && bytes > 0, "\(line)")
            return (quality, bytes, line["width"] as? Int ?? 0)
        }
        let full = try rendition(within: 10_000_000)
        #expect(full.quality == 82)
        var last = full
        for quality in [78, 74, 70] {
            let next = try rendition(within: last.bytes - 1)
            #expect(next.quality == quality && next.width == full.width, "\(next) within \(last.bytes - 1)")
            last = next
        }
        let exactly = try rendition(within: last.bytes)
        #expect(exactly.quality == 70 && exactly.bytes == last.bytes)
        let smaller = try rendition(within: last.bytes - 1)
        #expect(smaller.width < full.width, "70 did not fit: the side goes down (\(smaller))")
    }

    /// Batch and CleverTap state the type in the payload: it follows the rendition's (`com.batch.at.t` is a UTI).
    @Test func theTypeAPayloadStatesFollowsTheRendition() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let webp = Self.origin.url("/media/badge.webp"), heic = Self.origin.url("/media/photo.heic")
        let batch = #"{"aps":{"alert":{"title":"B"},"mutable-content":1},"com.batch":{"at":{"u":"\#(webp)","t":"public.webp"}}}"#
        let cleverTap = #"{"aps":{"alert":{"title":"C"},"mutable-content":1},"ct_mediaUrl":"\#(heic)", "ct_mediaType": "image"}"#
        let input = folder.appendingPathComponent("sdks.jsonl")
        try Data((batch + "\n" + cleverTap + "\n").utf8).write(to: input)
        let rewritten = folder.appendingPathComponent("payloads")
        let run = try fix(input.path, into: folder.appendingPathComponent("fixed"),
                          extra: ["--sdk", "auto", "--base-url", "https://cdn.example/p/", "--rewrite", rewritten.path])
        #expect(run.result.status == 0, "\(run.result.stdout)")
        let files = run.manifest.compactMap { $0["file"] as? String }
        #expect(files.count == 2)
        let after = try String(contentsOf: rewritten.appendingPathComponent("sdks.jsonl"), encoding: .utf8)
        let expected = batch.replacingOccurrences(of: webp, with: "https://cdn.example/p/" + (files.first ?? "?"))
            .replacingOccurrences(of: "public.webp", with: "public.jpeg") + "\n"
            + cleverTap.replacingOccurrences(of: heic, with: "https://cdn.example/p/" + (files.last ?? "?")) + "\n"
        #expect(after == expected)
    }

    @Test func anInterruptedFixLeavesNoPartialRendition() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let media = folder.appendingPathComponent("media")
        try FileManager.default.createDirectory(at: media, withIntermediateDirectories: true)
        try DecodeWorkerFaultTests.largePNG(side: 9000, at: media.appendingPathComponent("large.png").path)
        let origin = TestServer(media: media.path)
        let input = folder.appendingPathComponent("large.json")
        try Data(Self.request(origin.url("/media/large.png")).utf8).write(to: input)
        let into = folder.appendingPathComponent("fixed")
        let tmp = try Self.temporaryFolderWithUsersFile(in: folder)
        var sawPartial = false
        let result = try CLI.run(
            ["fix", input.path, "--cacert", Paths.testCA, "--into", into.path, "--base-url", "https://cdn.example/",
             "--rewrite", folder.appendingPathComponent("payloads").path],
            environment: ["TMPDIR": tmp.path],
            whileRunning: { pid in
                // SIGINT while the worker writes the rendition into its partial file.
                let give = Date().addingTimeInterval(30)
                while Date() < give {
                    if Paths.contents(of: into).contains(where: { $0.hasSuffix(".partial") }) {
                        sawPartial = true
                        kill(pid, SIGINT)
                        return
                    }
                    usleep(1_000)
                }
            })
        #expect(sawPartial, "the rendition was being written")
        #expect(result.status == 130)
        // What finished is named by the manifest, and DIR holds exactly that: no partial file.
        let left = Paths.contents(of: into)
        #expect(!left.contains { $0.hasSuffix(".partial") }, "\(left)")
        let manifest = (try? String(contentsOf: into.appendingPathComponent("fixes.jsonl"), encoding: .utf8)) ?? ""
        #expect(Set(left.filter { $0 != "fixes.jsonl" }).allSatisfy { manifest.contains($0) }, "\(left)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("payloads").path), "nothing rewritten")
        #expect(Paths.contents(of: tmp) == ["keep.txt"], "the scratch folder and its attachments went, the user's file stayed: \(FileManager.default.subpaths(atPath: tmp.path) ?? [])")
    }

    /// `fix` draws and encodes in a sandboxed child too (SPEC 17): a call the filter forbids, planted in one kind of
    /// fix alone (the test build's hook: the JPEG's, the HEVC video's re-mux), kills that fix. Its entry is listed
    /// not fixed, saying the decoder stopped; DIR holds the other entry's rendition and the manifest, no partial file.
    @Test(.enabled(if: CLI.sanitizer == nil, "a sanitizer's runtime makes calls the filter refuses: its builds decode unfiltered"),
          arguments: ["openat", "socket", "execve"], [("fix:image/jpeg", 0), ("fix:video/mp4", 1)])
    func aForbiddenCallInAFixCostsThatEntry(call: String, planted: (kind: String, entry: Int)) throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("two.jsonl")
        try Data([Self.request(Self.origin.url("/media/rotated-6.jpg")), payload(url: Self.origin.url("/media/hev1.mp4"))]
            .joined(separator: "\n").utf8).write(to: input)
        let into = folder.appendingPathComponent("fixed")
        let run = try fix(input.path, into: into, environment: ["NOTTI_MEDIA_DECODE_TRY": "\(call):\(planted.kind)"])
        #expect(run.result.status == 1, "\(call): \(run.result.stdout)\(run.result.stderr)")
        #expect(run.manifest.count == 2)
        let killed = run.manifest.first { ($0["url"] as? String)?.hasSuffix(planted.entry == 0 ? "rotated-6.jpg" : "hev1.mp4") == true } ?? [:]
        let message = (killed["notFixed"] as? [String: Any])?["message"] as? String ?? ""
        #expect(message.contains("the decoder stopped") && message.contains("(signal \(SIGSYS))"), "\(call): \(killed)")
        let other = run.manifest.first { $0 as NSDictionary != killed as NSDictionary } ?? [:]
        let file = try #require(other["file"] as? String, "\(call): the other entry is fixed: \(other)")
        #expect(run.names == ["fixes.jsonl", file], "\(call): \(run.names)")
    }

    @Test func whatOnlyTheOriginCanMendIsListedNotFixed() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("broken.jsonl")
        try Data([payload(url: Self.origin.url("/status/404")), payload(url: Self.origin.url("/media/truncated.jpg"))]
            .joined(separator: "\n").utf8).write(to: input)
        let into = folder.appendingPathComponent("fixed")
        let tmp = try Self.temporaryFolderWithUsersFile(in: folder)
        let run = try fix(input.path, into: into, environment: ["TMPDIR": tmp.path])
        #expect(run.result.status == 1)
        #expect(run.names == ["fixes.jsonl"], "no rendition")
        // The truncated JPEG attaches under Notti: its attachment was placed in the run's scratch folder, and went with it.
        #expect(Paths.contents(of: tmp) == ["keep.txt"], "\(Paths.contents(of: tmp))")
        let notFixed = run.manifest.compactMap { ($0["notFixed"] as? [String: Any])?["code"] as? String }
        #expect(notFixed == ["http_error", "truncated_media"])
        #expect(run.result.stdout.contains("\nnot fixed: 2 URLs only the origin can mend"), "\(run.result.stdout)")
        #expect(run.result.stdout.contains("fixed 0 URLs: 0 renditions (0 B)"), "\(run.result.stdout)")
        #expect(run.result.stdout.contains("broken.jsonl:1: error: http_error:"), "printed as check prints it")
    }

    /// A OneSignal request whose `data` is over OneSignal's 2,048 bytes: that is the request's to mend (printed, as
    /// check prints it), and it does not stop the cure of its WebP, which iOS cannot type (issue 58: fix's own
    /// list of payload codes had not named `additional_data_too_large`, so the WebP was "only the origin can mend").
    @Test func aRequestsOwnFindingDoesNotStopItsMediasCure() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let webp = Self.origin.url("/media/badge.webp")
        let request = PlatformRequestTests.oneSignal(
            attachments: ["hero": webp], bigPicture: nil, extra: ["data": ["k": String(repeating: "x", count: 2_100)]])
        let input = folder.appendingPathComponent("onesignal.json")
        try Data(request.utf8).write(to: input)
        let into = folder.appendingPathComponent("fixed")
        let run = try fix(input.path, into: into)
        #expect(run.result.stdout.contains("onesignal.json#ios: error: additional_data_too_large:"),
                "printed as check prints it: \(run.result.stdout)")
        let entry = run.manifest.first { $0["url"] as? String == webp } ?? [:]
        #expect(entry["notFixed"] == nil, "\(entry)")
        #expect((entry["cured"] as? [String])?.contains("unsupported_type") == true, "\(entry)")
        #expect(run.names.count == 2, "fixes.jsonl and the rendition: \(run.names)")
    }

    /// An FCM request whose image is a video: Android shows no video in a notification, so `fix` draws the
    /// video's first frame as a still for `android.notification.image` and says so; the iPhones keep the
    /// video. Rewritten and served, the request passes on both platforms.
    @Test func aVideoGetsAStillForAndroid() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let into = folder.appendingPathComponent("fixed"), rewritten = folder.appendingPathComponent("payloads")
        let cdn = TestServer(media: into.path)
        let base = cdn.url("/media/")
        let video = Self.origin.url("/media/avc1.mp4")
        let input = folder.appendingPathComponent("video.json")
        try Data(Self.request(video).utf8).write(to: input)
        let run = try fix(input.path, into: into, extra: ["--base-url", base, "--rewrite", rewritten.path])
        #expect(run.result.status == 0, "\(run.result.stdout)\(run.result.stderr)")
        let line = try #require(run.manifest.first)
        #expect(line["cured"] as? [String] == ["unsupported_type"], "\(line)")
        #expect(line["file"] == nil, "the video itself needs nothing for the iPhones")
        let still = try #require(line["androidStill"] as? [String: Any], "\(line)")
        let file = try #require(still["file"] as? String)
        #expect(file.hasSuffix(".jpg") && still["type"] as? String == "jpg" && still["width"] as? Int == 160 && still["height"] as? Int == 120)
        #expect((still["changes"] as? [String])?.first?.contains("first frame as a still for Android") == true, "\(still)")
        #expect(still["newUrl"] as? String == base + file)
        #expect(run.names == ["fixes.jsonl", file])
        // The request gains Android's own image; nothing else changes.
        let after = try String(contentsOf: rewritten.appendingPathComponent("video.json"), encoding: .utf8)
        let request = try #require(try JSONSerialization.jsonObject(with: Data(after.utf8)) as? [String: Any])
        let message = try #require(request["message"] as? [String: Any])
        #expect(((message["android"] as? [String: Any])?["notification"] as? [String: Any])?["image"] as? String == base + file)
        #expect((message["notification"] as? [String: Any])?["image"] as? String == video)
        let checked = try CLI.run(["check", rewritten.path, "--cacert", Paths.testCA, "--format", "json",
                                   "--out", folder.appendingPathComponent("attachments").path])
        #expect(checked.status == 0, "\(checked.stdout)")
        let records = OutFolder.records(ofJSONLines: checked.stdout)
        #expect(records.count == 2 && records.allSatisfy { $0["passed"] as? Bool == true }, "\(checked.stdout)")
    }

    /// SPEC 19: a finding about the host (a certificate ending within 30 days) never stops a cure: the
    /// picture's too_large is cured and its rendition written, and the line says what no file cures.
    @Test func aHostFindingStillGetsItsRenditionAndIsListedNotFixed() throws {
        let certificates = try TestCertificates(days: 10)
        defer { certificates.remove() }
        let media = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: media) }
        try FileManager.default.copyItem(atPath: Paths.fixture("decode/photo.png"), toPath: media.appendingPathComponent("photo.png").path)
        let server = TestServer(certificate: (certificates.chain, certificates.key), media: media.path)
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("expiring.json")
        try Data(Self.request(server.url("/padded/1200000/photo.png")).utf8).write(to: input)
        let into = folder.appendingPathComponent("fixed")
        let result = try CLI.run(["fix", input.path, "--cacert", certificates.root, "--into", into.path])
        let text = (try? String(contentsOf: into.appendingPathComponent("fixes.jsonl"), encoding: .utf8)) ?? ""
        let line = try #require(text.split(separator: "\n").first.flatMap {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }, "\(result.stdout)\(result.stderr)")
        #expect(line["cured"] as? [String] == ["too_large"], "\(line)")
        let file = try #require(line["file"] as? String)
        #expect(Set(Paths.contents(of: into)) == ["fixes.jsonl", file])
        #expect((line["notFixed"] as? [String: Any])?["code"] as? String == "certificate_expiring", "\(line)")
        #expect(result.status == 1, "a finding was not cured")
    }

    /// A VP9 video whose frames shrink mid-stream is not re-encoded from memory past its smaller frames
    /// (the rendition carried the worker's stale memory): no rendition, and the line says why.
    @Test func aVideoWhoseFramesShrinkIsNotReencoded() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("shrinking.json")
        try Data(payload(url: Self.origin.url("/media/vp9-shrinking.mp4")).utf8).write(to: input)
        let into = folder.appendingPathComponent("fixed")
        let run = try fix(input.path, into: into)
        #expect(run.names == ["fixes.jsonl"], "no rendition: \(run.names)")
        let notFixed = run.manifest.first?["notFixed"] as? [String: Any]
        #expect((notFixed?["message"] as? String)?.contains("frames change size or layout mid-stream") == true, "\(run.manifest)")
        #expect(run.result.status == 1)
    }

    @Test func badUsageIsExitTwoAndTouchesNothing() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("p.json")
        try Data(payload(url: Self.origin.url("/media/badge.webp")).utf8).write(to: input)
        let missing = try CLI.run(["fix", input.path])
        #expect(missing.status == 2 && missing.stderr == "notti-media: fix needs --into DIR, the folder the renditions go to\n")
        let rewrite = try CLI.run(["fix", input.path, "--into", folder.appendingPathComponent("d").path, "--rewrite", "x"])
        #expect(rewrite.status == 2 && rewrite.stderr.contains("--rewrite needs --base-url URL"))
        let foreign = folder.appendingPathComponent("foreign")
        try FileManager.default.createDirectory(at: foreign, withIntermediateDirectories: true)
        try Data("mine\n".utf8).write(to: foreign.appendingPathComponent("notes.txt"))
        let refused = try CLI.run(["fix", input.path, "--cacert", Paths.testCA, "--into", foreign.path])
        #expect(refused.status == 2 && refused.stderr.contains("holds notes.txt, which fix did not put there"))
        #expect(Paths.contents(of: foreign) == ["notes.txt"])
        let over = try CLI.run(["fix", input.path, "--into", folder.appendingPathComponent("d").path, "--rewrite", folder.path,
                                "--base-url", "https://cdn.example/"])
        #expect(over.status == 2 && over.stderr.contains("overlaps the payloads"), "never over the originals")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("d").path), "a refused run makes no --into folder")
        // A link in DIR is not the tool's: refused, never followed or removed.
        let linked = folder.appendingPathComponent("linked")
        try FileManager.default.createDirectory(at: linked, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: linked.appendingPathComponent("fixes.jsonl").path, withDestinationPath: input.path)
        let link = try CLI.run(["fix", input.path, "--cacert", Paths.testCA, "--into", linked.path])
        #expect(link.status == 2 && link.stderr.contains("holds fixes.jsonl, which fix did not put there"), "\(link.stderr)")
        #expect(Paths.contents(of: linked) == ["fixes.jsonl"] && FileManager.default.fileExists(atPath: input.path))
        // A FIFO where a rewritten payload goes is refused, not written through.
        let payloads = folder.appendingPathComponent("rewritten")
        try FileManager.default.createDirectory(at: payloads, withIntermediateDirectories: true)
        #expect(mkfifo(payloads.appendingPathComponent("p.json").path, 0o644) == 0)
        let fifo = try CLI.run(["fix", input.path, "--cacert", Paths.testCA, "--into", folder.appendingPathComponent("f").path,
                                "--base-url", "https://cdn.example/", "--rewrite", payloads.path])
        #expect(fifo.status == 2 && fifo.stderr.contains("is there and is not a regular file"), "\(fifo.stderr)")
        var info = stat()
        #expect(lstat(payloads.appendingPathComponent("p.json").path, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO)
        #expect(Paths.contents(of: payloads) == ["p.json"])
        let inside = try CLI.run(["fix", folder.path, "--into", folder.appendingPathComponent("fixed").path])
        #expect(inside.status == 2 && inside.stderr.contains("is inside the payloads"), "\(inside.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("fixed").path))
    }
}

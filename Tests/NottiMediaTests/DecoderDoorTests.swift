import Foundation
import Testing
@testable import NottiMedia
@testable import notti_media
import CDecodeDoor

/// SPEC 17's door from the outside: a decode that could not be made is `decode_failed`, never a pass; a worker
/// that cannot be used stops the run (exit 2); a child's answer is checked before the worker uses any of it.
/// The faults are planted through the worker's test hooks (sandbox.h), read by debug builds only.
@Suite struct DecoderDoorTests {
    static let decode = Paths.fixtures.appendingPathComponent("decode")

    static func fixture(_ name: String) -> String { decode.appendingPathComponent(name).path }

    /// A clean picture passes; the same picture behind a child that answers what the door does not allow (more
    /// than one record, a detail with no terminator, a status out of range) costs that record `decode_failed`.
    @Test(arguments: ["long", "unterminated", "enum"])
    func aChildsAnswerTheDoorRefusesIsDecodeFailed(_ fault: String) throws {
        let clean = try CLI.run(["sniff", Self.fixture("photo.png")])
        #expect(clean.status == 0, "\(clean.stdout)")
        let spoiled = try CLI.run(["sniff", Self.fixture("photo.png")], environment: ["NOTTI_MEDIA_DECODE_BAD_ANSWER": fault])
        #expect(spoiled.status == 1, "\(spoiled.stdout)")
        #expect(spoiled.stdout.contains("decoded: picture, not decoded (decode_failed)"), "\(spoiled.stdout)")
        #expect(spoiled.stdout.contains("error: decode_failed: the picture could not be read as the phone reads it: "
            + "the decoder's child answered"), "\(spoiled.stdout)")
        #expect(spoiled.stdout.contains("this is the machine, not the media"), "\(spoiled.stdout)")
    }

    /// No child can start (a full process table): every file that needed a decode is `decode_failed`, the
    /// corrupt one as the clean one; nothing passes for want of a decoder.
    @Test func aForkThatFailsIsDecodeFailedNeverAPass() throws {
        let result = try CLI.run(["sniff", "--format", "json", Self.fixture("corrupt.jpg"), Self.fixture("hev1.mp4"), Self.fixture("truncated.png")],
                                 environment: ["NOTTI_MEDIA_DECODE_FORK_FAILS": "1"])
        #expect(result.status == 1)
        let lines = result.stdout.split(separator: "\n").map { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] ?? [:] }
        #expect(lines.count == 3, "\(result.stdout)")
        for line in lines {
            let codes = (line["diagnostics"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
            #expect(codes == ["decode_failed"], "\(line)")
            let message = (line["diagnostics"] as? [[String: Any]])?.first?["message"] as? String ?? ""
            #expect(message.contains("fork failed"), "\(message)")
        }
    }

    /// A machine where the filter cannot be installed stops the run at its first decode: exit 2, one line naming why.
    @Test func aFilterThatCannotBeInstalledStopsTheRun() throws {
        let result = try CLI.run(["sniff", Self.fixture("photo.jpg")], environment: ["NOTTI_MEDIA_DECODE_NO_FILTER": "1"])
        #expect(result.status == 2, "\(result.stdout)")
        // The run stops at that decode: no record of it, nothing after it (a decode_failed line before the exit was one).
        #expect(result.stdout.isEmpty, "\(result.stdout)")
        #expect(result.stderr == "notti-media: the decoders' system-call filter cannot be installed on this machine (seccomp refused it)\n",
                "\(result.stderr)")
    }

    /// check and process stop there too: no record and no content of the payload whose decode found the machine
    /// unable to decode, nor of any after it (SPEC 17), exit 2 naming why.
    @Test(arguments: ["check", "process"])
    func aFilterThatCannotBeInstalledWritesNoRecord(command: String) throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let payload = folder.appendingPathComponent("photo.json").path
        try #"{"aps": {"alert": "Photo", "mutable-content": 1}, "notification_id": "n-1", "notti_image_url": "\#(TestServer.shared.url("/media/photo.jpg"))"}"#
            .write(toFile: payload, atomically: true, encoding: .utf8)
        let out = folder.appendingPathComponent("out").path
        let result = try CLI.run([command, payload, "--cacert", Paths.testCA, "--out", out] + (command == "check" ? ["--format", "json"] : []),
                                 environment: ["NOTTI_MEDIA_DECODE_NO_FILTER": "1"])
        #expect(result.status == 2, "\(result.stdout) \(result.stderr)")
        if command == "check" {
            // No record; the summary says the run was cut short, as after a signal.
            let lines = result.stdout.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].hasPrefix("{\"summary\":"), "\(result.stdout)")
            #expect(OutFolder.summary(ofJSONLines: result.stdout)?["interrupted"] as? Bool == true)
        } else {
            #expect(result.stdout.isEmpty, "\(result.stdout)")
        }
        #expect(result.stderr.hasSuffix("notti-media: the decoders' system-call filter cannot be installed on this machine (seccomp refused it)\n"),
                "\(result.stderr)")
    }

    /// A worker that speaks another version of the door (a stale install) stops the run, naming both versions.
    @Test func aWorkerOfAnotherDoorStopsTheRun() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let stale = folder.appendingPathComponent("stale-decoder").path
        try """
            #!/usr/bin/env python3
            import socket, time
            channel = socket.socket(fileno=3)
            channel.send(b'{"door":1}')
            time.sleep(30)
            """.write(toFile: stale, atomically: true, encoding: .utf8)
        chmod(stale, 0o755)
        let result = try CLI.run(["sniff", Self.fixture("photo.jpg")], environment: ["NOTTI_MEDIA_DECODER": stale])
        #expect(result.status == 2, "\(result.stdout)")
        #expect(result.stderr.contains("notti-media: the decode worker \(stale) speaks door version 1, this notti-media speaks 2"),
                "\(result.stderr)")
        #expect(result.seconds < 20, "the stale worker is stopped, not waited for")
    }

    /// The MP3 reader's over-read (issue 58): a Xing-tagged frame overlapping an ID3v1 tag's place read 4 bytes past
    /// the 4,096-byte mapped file (AddressSanitizer's heap-buffer-overflow; a SIGSEGV at a page's end: "the decoder
    /// stopped"). Now the reader leaves it to FFmpeg, whose own words judge it.
    @Test func anMP3WhoseFrameOverlapsItsID3v1TagIsReadInBounds() throws {
        let result = try CLI.run(["sniff", "--format", "json", Self.fixture("id3v1-overlap.mp3")])
        let decoded = result.json["decoded"] as? [String: Any] ?? [:]
        #expect(decoded["kind"] as? String == "audio", "\(result.stdout)")
        let message = (result.json["diagnostics"] as? [[String: Any]])?.first?["message"] as? String ?? ""
        #expect(message.contains("too damaged to open"), "FFmpeg's verdict, not a crash: \(result.stdout)")
        #expect(!result.stdout.contains("the decoder stopped"), "\(result.stdout)")
    }

    /// Sounds iOS plays are read as sound: WAV and AIFF by their types, a CAF (which libmagic names nothing of) by
    /// the stream decoder's own signatures, never by the picture decoder.
    @Test(arguments: ["tone.wav", "tone.aiff", "tone.caf"])
    func soundIsDecodedAsSound(_ name: String) throws {
        let result = try CLI.run(["sniff", "--format", "json", Self.fixture(name)])
        let decoded = result.json["decoded"] as? [String: Any] ?? [:]
        #expect(decoded["kind"] as? String == "audio", "\(result.stdout)")
        #expect((decoded["audioCodec"] as? String)?.hasPrefix("pcm_s16") == true, "\(result.stdout)")
        #expect(decoded["complete"] as? Bool == true, "\(result.stdout)")
    }

    /// A JPEG cut in half and closed with an end marker draws its top rows: `truncated_media`, not a whole picture.
    @Test func aCutJPEGClosedWithAnEndMarkerIsTruncated() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let whole = try Data(contentsOf: Self.decode.appendingPathComponent("photo.jpg"))
        let cut = folder.appendingPathComponent("cut-closed.jpg")
        try (whole.prefix(whole.count / 2) + Data([0xFF, 0xD9])).write(to: cut)
        let result = try CLI.run(["sniff", "--format", "json", cut.path])
        let decoded = result.json["decoded"] as? [String: Any] ?? [:]
        #expect(decoded["complete"] as? Bool == false, "\(result.stdout)")
        let codes = (result.json["diagnostics"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
        #expect(codes.contains("truncated_media"), "\(result.stdout)")
    }

    /// What a worker keeps is bounded: the oldest answer is forgotten first, a kept one is found again.
    @Test func answersAreBoundedOldestFirst() {
        var memo = BoundedMemo<Int>(capacity: 3)
        for (index, key) in ["a", "b", "c", "d"].enumerated() { memo.keep(index, for: key) }
        #expect(memo.count == 3)
        #expect(memo.value(for: "a") == nil)
        #expect(memo.value(for: "b") == 1 && memo.value(for: "d") == 3)
        for index in 0..<100_000 { memo.keep(index, for: "k\(index)") }
        #expect(memo.count == 3)
        #expect(memo.value(for: "k99999") == 99_999 && memo.value(for: "k99996") == nil)
    }

    /// The preview asks for the door's renditions by the door's names: a rendition named on one side is drawn on the other.
    @Test func thePreviewsRenditionsAreTheDoors() {
        let door = (0...).lazy.map { door_rendition_at(Int32($0)) }.prefix { $0 != nil }.map { String(cString: $0!.pointee.name) }
        #expect(Array(door) == PreviewPictures.Rendition.allCases.map(\.rawValue))
        #expect(DecodedMedia.Decodable.pictureMimes.contains("image/avif") && DecodedMedia.Decodable.pictureMimes.count == 12)
    }

    /// Ctrl-C while the worker decodes a valid picture is no verdict (SPEC 17): the run exits 130 with no record of
    /// it, and `--cache` kept nothing, so the next run downloads and decodes it again, and it passes. The decode is
    /// made slow by the test build's hook (NOTTI_MEDIA_DECODE_DELAY_MS), not by a large picture: a sanitizer's
    /// build decodes slowly enough without it, and the other suites run beside this one.
    @Test func aDecodeCutShortByASignalIsNoVerdictAndIsNotCached() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // Served with an ETag, so that --cache could keep its verdict.
        let server = TestServer(media: Self.decode.path)
        let url = server.url("/media/photo.png?etag=%22v1%22")
        let payload = #"{"aps": {"alert": "hi", "mutable-content": 1}, "notification_id": "n", "notti_image_url": "\#(url)"}"#
        let out = folder.appendingPathComponent("out")
        let options = ["check", "-", "--format", "json", "--cacert", Paths.testCA, "--cache", folder.appendingPathComponent("cache.sqlite").path,
                       "--out", out.path]
        var interrupted = false
        let cut = try CLI.run(options, stdin: payload + "\n", environment: ["NOTTI_MEDIA_DECODE_DELAY_MS": "5000"], holdStdinOpen: false,
                              whileRunning: { pid in
            // Once a worker holds the downloaded file (the decode is under way), the run is interrupted.
            let findBy = Date().addingTimeInterval(60)
            while !interrupted && Date() < findBy {
                if DecodeWorkerFaultTests.workers(of: pid).contains(where: { DecodeWorkerFaultTests.holdsAFile(in: out.path, worker: $0) }) {
                    kill(pid, SIGINT)
                    interrupted = true
                } else {
                    usleep(1_000)
                }
            }
        })
        #expect(interrupted, "the worker was found decoding")
        #expect(cut.status == 130, "\(cut.stdout) \(cut.stderr)")
        #expect(cut.seconds < 5, "cut short, not waited out: \(cut.seconds) s")
        #expect(!cut.stdout.contains("\"source\""), "no record of it: \(cut.stdout)")
        let again = try CLI.run(options, stdin: payload + "\n")
        let record = again.stdout.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }.first { $0["summary"] == nil } ?? [:]
        let facts = record["media"] as? [String: Any] ?? [:]
        #expect(facts["cache"] as? String == "fetched", "nothing was kept of the cut run: \(facts)")
        #expect((facts["decoded"] as? [String: Any])?["complete"] as? Bool == true, "\(again.stdout)")
        #expect(record["passed"] as? Bool == true, "\(again.stdout)")
    }

    /// Braze attaches a CAF as `caf`, a sound iOS plays: the record passes with the sound's facts (it was decoded as a
    /// picture, "the picture does not decode").
    @Test func aCAFBrazeAttachesAsSoundPasses() throws {
        let server = TestServer(media: Self.decode.path)
        let out = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: out) }
        let payload = #"{"aps": {"alert": "x", "mutable-content": 1}, "ab": {"att": {"url": "\#(server.url("/media/tone.caf"))", "type": "caf"}}}"#
        let result = try CLI.run(["process", "-", "--report", "--sdk", "braze", "--cacert", Paths.testCA, "--out", out.path], stdin: payload)
        let decoded = (result.json["media"] as? [String: Any])?["decoded"] as? [String: Any] ?? [:]
        #expect(decoded["kind"] as? String == "audio", "\(result.stdout.prefix(800))")
        let codes = (result.json["diagnostics"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
        #expect(!codes.contains("undecodable_media"), "\(codes)")
        #expect(result.json["outcome"] as? String == "attached" && result.json["passed"] as? Bool == true, "\(codes)")
        OutFolder.expectHoldsExactly(out, namedBy: [result.json])
    }
}

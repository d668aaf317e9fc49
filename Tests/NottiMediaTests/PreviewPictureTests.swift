import Foundation
import Testing

/// SPEC 17's last paragraph: the preview draws each picture as each phone draws it, from
/// the decoded pixels, into small renditions of its own; the downloaded files never go
/// beside the page. Renditions are read back with libvips's own command-line tools.
@Suite(.serialized) struct PreviewPictureTests {
    static let server = DecodeTests.server

    /// A `check --sdk auto --html` run over `lines`: the page's text and its media folder's names.
    private func page(_ lines: [String], environment: [String: String] = [:]) throws -> (html: String, media: URL, names: Set<String>, folder: URL) {
        let folder = Paths.temporaryFolder()
        let page = folder.appendingPathComponent("report.html")
        let result = try CLI.run(
            ["check", "-", "--sdk", "auto", "--cacert", Paths.testCA, "--html", page.path, "--out", folder.appendingPathComponent("out").path],
            stdin: lines.joined(separator: "\n") + "\n", environment: environment)
        #expect(result.status == 0 || result.status == 1, "\(result.stderr)")
        let media = folder.appendingPathComponent("report-media")
        return (try String(contentsOf: page, encoding: .utf8), media, Set(Paths.contents(of: media)), folder)
    }

    private func notti(_ name: String) -> String {
        payload(url: Self.server.url("/media/\(name)"))
    }

    private func size(_ path: URL) throws -> String {
        let width = try CLI.run(executable: "/usr/bin/vipsheader", ["-f", "width", path.path]).stdout
        let height = try CLI.run(executable: "/usr/bin/vipsheader", ["-f", "height", path.path]).stdout
        return "\(width.trimmingCharacters(in: .whitespacesAndNewlines))x\(height.trimmingCharacters(in: .whitespacesAndNewlines))"
    }

    /// The pixel's red, green and blue.
    private func pixel(_ path: URL, _ x: Int, _ y: Int) throws -> [Int] {
        let result = try CLI.run(executable: "/usr/bin/vips", ["getpoint", path.path, String(x), String(y)])
        return result.stdout.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    private func isRed(_ rgb: [Int]) -> Bool { rgb.count == 3 && rgb[0] > 200 && rgb[1] < 60 && rgb[2] < 60 }
    private func isGrey(_ rgb: [Int]) -> Bool { rgb.count == 3 && rgb.allSatisfy { abs($0 - 128) <= 6 } }

    @Test func eachPhoneDrawsThePictureItsOwnWay() throws {
        // rotated-6.jpg stores its picture on its side (EXIF orientation 6): the colour bars run
        // left to right as stored, red at the left; upright, red is at the top.
        let (html, media, names, folder) = try page([
            DecodeTests.request(Self.server.url("/media/rotated-6.jpg")), DecodeTests.request(Self.server.url("/media/photo.jpg")),
        ])
        defer { try? FileManager.default.removeItem(at: folder) }
        let rotated = try Paths.sha256(ofFile: Paths.fixture("decode/rotated-6.jpg"))
        let photo = try Paths.sha256(ofFile: Paths.fixture("decode/photo.jpg"))
        // Firebase's Android display code uses BitmapFactory: the rotated picture as stored, the plain one as it is.
        #expect(names == [
            "\(rotated)-ios-thumbnail.jpg", "\(rotated)-ios-expanded.jpg", "\(rotated)-android-as-stored.jpg",
            "\(photo)-ios-thumbnail.jpg", "\(photo)-ios-expanded.jpg", "\(photo)-android.jpg",
        ])
        #expect(names.allSatisfy { html.contains("report-media/\($0)") }, "the page shows every rendition it stored")
        func file(_ name: String) -> URL { media.appendingPathComponent(name) }

        #expect(try size(file("\(rotated)-ios-thumbnail.jpg")) == "120x120", "the banner's square thumbnail")
        #expect(try size(file("\(rotated)-ios-expanded.jpg")) == "240x320", "iOS turns the 320×240 picture upright")
        #expect(try isRed(pixel(file("\(rotated)-ios-expanded.jpg"), 120, 3)))
        // BigPictureStyle's centerCrop, 416 × 284 dp at 2 px per dp, of the picture as stored: red at the left.
        #expect(try size(file("\(rotated)-android-as-stored.jpg")) == "832x568")
        #expect(try isRed(pixel(file("\(rotated)-android-as-stored.jpg"), 5, 284)))
        #expect(try !isRed(pixel(file("\(rotated)-android-as-stored.jpg"), 416, 3)), "not turned")
        #expect(try size(file("\(photo)-ios-expanded.jpg")) == "320x240")
    }

    /// The verdict's libvips decodes (BMP through ImageMagick, TIFF, a cut PNG) run in a forked, sandboxed child of
    /// the picture worker; a render before them, in the same worker (`--jobs 1`: one), leaves libvips's thread pool
    /// with idle threads the child does not have. The child reads its pixels on its own thread: each file is
    /// decoded, none waits for the record's deadline.
    @Test func filesLibvipsJudgesAfterARenderInTheSameWorkerAreDecoded() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let names = ["photo.jpg", "photo.bmp", "photo.tiff", "truncated.png"]
        let result = try CLI.run(
            ["check", "-", "--format", "json", "--jobs", "1", "--timeout", "5", "--cacert", Paths.testCA,
             "--html", folder.appendingPathComponent("report.html").path, "--out", folder.appendingPathComponent("out").path],
            stdin: names.map(notti).joined(separator: "\n") + "\n")
        let records = OutFolder.records(ofJSONLines: result.stdout)
        #expect(records.count == names.count, "\(result.stderr)")
        for (name, record) in zip(names, records) {
            let decoded = DecodeTests.Records.decoded(record)
            #expect(DecodeTests.Records.message(record, "undecodable_media").isEmpty, "\(name)")
            #expect(decoded["format"] as? String != nil, "\(name): \(decoded)")
            #expect(decoded["complete"] as? Bool == (name != "truncated.png"), "\(name): \(decoded)")
        }
        #expect(DecodeTests.Records.message(records.last ?? [:], "truncated_media").contains("row 164 of 240"), "the cut PNG's rows")
    }

    /// The renditions are drawn in a sandboxed child too (SPEC 17: the worker reads hostile bytes with nothing
    /// else in reach): a call the filter forbids, planted in the JPEG's render alone (the test build's hook), kills
    /// that render; its card says the decoder stopped, its files are gone, and the PNG after it is drawn by a new
    /// worker.
    @Test(.enabled(if: CLI.sanitizer == nil, "a sanitizer's runtime makes calls the filter refuses: its builds decode unfiltered"),
          arguments: ["openat", "socket", "execve", "fork"])
    func aForbiddenCallInARenderCostsThatPictureItsDrawing(call: String) throws {
        let (html, _, names, folder) = try page([notti("photo.jpg"), notti("photo.png")],
                                                environment: ["NOTTI_MEDIA_DECODE_TRY": "\(call):render:image/jpeg"])
        defer { try? FileManager.default.removeItem(at: folder) }
        let png = try Paths.sha256(ofFile: Paths.fixture("decode/photo.png"))
        #expect(names == ["\(png)-ios-thumbnail.jpg", "\(png)-ios-expanded.jpg"], "\(call): the JPEG's renditions are gone")
        #expect(html.contains("not drawn: the decoder stopped") && html.contains("(signal \(SIGSYS))"), "\(call)")
        #expect(html.components(separatedBy: "not drawn:").count == html.components(separatedBy: "not drawn: the decoder stopped").count,
                "\(call): what is not drawn is the JPEG")
        #expect(names.allSatisfy { html.contains("report-media/\($0)") }, "\(call): the PNG is drawn")
    }

    @Test func aCutFileIsGreyBelowWhereItEnds() throws {
        // truncated.png draws 164 of its 240 rows.
        let (_, media, names, folder) = try page([notti("truncated.png")])
        defer { try? FileManager.default.removeItem(at: folder) }
        let cut = try Paths.sha256(ofFile: Paths.fixture("decode/truncated.png"))
        #expect(names == ["\(cut)-ios-thumbnail.jpg", "\(cut)-ios-expanded.jpg"])
        let expanded = media.appendingPathComponent("\(cut)-ios-expanded.jpg")
        #expect(try size(expanded) == "320x240")
        #expect(try isGrey(pixel(expanded, 160, 200)) && isGrey(pixel(expanded, 10, 238)), "below row 164")
        #expect(try !isGrey(pixel(expanded, 10, 100)), "above it, the picture")
    }

    /// The fetch threads draw the cards' pictures as their records are rendered (not the writer): forty
    /// pushes of one picture at forty URLs, eight fetched at a time, draw it once, and every card shows it.
    @Test func aPictureManyPushesNameIsDrawnOnceForEveryCard() throws {
        let lines = (0..<40).map { payload(url: Self.server.url("/media/photo.jpg?u=\($0)")) }
        let (html, _, names, folder) = try page(lines)
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(names.count == 2 && names.allSatisfy { $0.hasSuffix("-ios-thumbnail.jpg") || $0.hasSuffix("-ios-expanded.jpg") },
                "\(names)")
        for name in names {
            #expect(html.components(separatedBy: "report-media/\(name)").count - 1 >= 40, "every card shows \(name)")
        }
    }

    @Test func nothingUndrawableAndNoStreamIsCopiedBesideThePage() throws {
        let (html, _, names, folder) = try page([notti("corrupt.jpg"), notti("avc1.mp4"), notti("tone.mp3")])
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(names.isEmpty, "\(names)")
        #expect(html.contains("nothing to draw: the phone&apos;s decoder cannot read it (VipsJpeg: Corrupt JPEG data"))
        #expect(html.contains("video · h264 · 160×120 · 1 s"), "the video is described where its player would be")
        #expect(!html.contains("<video") && !html.contains("<audio"))
    }
}

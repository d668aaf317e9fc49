import Foundation
import Testing
@testable import NottiMedia

/// `fix`'s renditions are verified by the one judge (`EntryJudge.judge(file:servedAt:…)`): a file on
/// this machine is judged as a record's phone judges a download of the same bytes, with the type the
/// rewritten payload states and the decoder's facts.
@Suite struct FileJudgementTests {
    static let photo = Paths.fixtures.appendingPathComponent("decode/photo.jpg").path
    static let sha256 = SHA256.hex(ofFileAt: photo) ?? ""
    static let url = "https://renditions.invalid/\(sha256).jpg"

    static var bytes: Int {
        var info = stat()
        return stat(photo, &info) == 0 ? Int(info.st_size) : 0
    }

    static func judged(_ profile: SDKProfile, typeField: String?, decoded: DecodedMedia = JudgeTableTests.picture()) -> String {
        let verdict = EntryJudge.judge(
            file: photo, servedAt: url, sniffedMime: "image/jpeg", bytes: bytes, sha256: sha256, decoded: decoded,
            typeField: typeField, profile: profile, policy: profile.policy(FetchOptions()))
        return verdict.map(JudgeTableTests.describe) ?? "no verdict"
    }

    static let profiles: [(SDKProfile, String?)] = [
        (.notti, nil), (.braze, "jpg"), (.batch, "public.jpeg"), (.cleverTap, "image"), (.oneSignal, nil), (.airship, nil), (.androidFCM, nil), (.androidAirship, nil),
    ]

    @Test func aRenditionIsJudgedAsADownloadOfTheSameBytes() throws {
        #expect(Self.bytes > 0 && Self.sha256.count == 64)
        for (profile, typeField) in Self.profiles {
            let made = JudgeTableTests.Made(
                url: Self.url, sniffed: "image/jpeg", declared: "image/jpeg", bytes: Self.bytes, leading: [0xFF, 0xD8, 0xFF],
                decoded: JudgeTableTests.picture())
            let downloaded = JudgeTableTests.describe(try JudgeTableTests.judge(made, profile: profile, typeField: typeField))
            #expect(Self.judged(profile, typeField: typeField) == downloaded, "\(profile.sdk) \(profile.platform)")
            #expect(downloaded.hasPrefix("attached"), "\(profile.sdk) \(profile.platform): \(downloaded)")
        }
    }

    /// The old check of a rendition read its size and the decoder's findings alone: a type field the payload
    /// states wrongly is the judge's finding now (a warning, which stops the rendition), and the decoder's
    /// findings are what a download's get (an undecodable attachment is attached and fails, SPEC 17).
    @Test func theStatedTypeAndTheDecodersFactsAreJudged() {
        #expect(Self.judged(.braze, typeField: "jpg") == "attached jpg")
        #expect(Self.judged(.braze, typeField: "mp3") == "attached mp3 type_mismatch")
        #expect(Self.judged(.notti, typeField: nil, decoded: JudgeTableTests.picture { $0.undecodable = "the picture does not decode" })
            == "attached jpg undecodable_media")
    }
}

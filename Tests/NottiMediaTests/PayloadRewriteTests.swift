import Testing
@testable import notti_media

/// `fix --rewrite`'s splice, in process: only the fixed URLs and the type fields that follow them
/// change; every other byte (spacing, key order, number text, escapes, arrays) stays as written.
@Suite struct PayloadRewriteTests {
    static let rewrite = PayloadRewrite(replacements: [
        "https://m.example/a.webp": .init(newURL: "https://cdn.example/f/ab.jpg", type: "jpg"),
        "https://m.example/b.heic": .init(newURL: "https://cdn.example/f/\"q\".png", type: "png"),
    ])

    static func rewritten(_ text: String) -> String? {
        Self.rewrite.rewrite(ArraySlice(text.utf8)).map { String(decoding: $0, as: UTF8.self) }
    }

    @Test func onlyTheURLAndItsTypeFieldChange() {
        let before = #"{ "aps" :{"alert":"h\u00e9\n","mutable-content":1},"ab":{"att":{"url":"https://m.example/a.webp" ,"type":"webp"}},"n":[1.50,{"x":[]}] }"#
        #expect(Self.rewritten(before)
            == #"{ "aps" :{"alert":"h\u00e9\n","mutable-content":1},"ab":{"att":{"url":"https://cdn.example/f/ab.jpg" ,"type":"jpg"}},"n":[1.50,{"x":[]}] }"#)
    }

    @Test func aNewURLIsWrittenAsEveryJSONStringIs() {
        // Batch's hint follows a PNG; the quotes in the new URL are escaped as JSONWriter escapes them.
        let before = #"{"com.batch":{"at":{"u":"https://m.example/b.heic","t":"public.heic"}}}"#
        #expect(Self.rewritten(before) == #"{"com.batch":{"at":{"u":"https://cdn.example/f/\"q\".png","t":"public.png"}}}"#)
    }

    @Test(arguments: [
        #"{"notti_image_url":"https://m.example/other.jpg"}"#,  // nothing to replace
        #"{"notti_image_url":"https://m.example/a.webp""#,  // not one JSON value: left alone
        #"{"k":"https://m.example/a.webp"} {}"#,
        #"["https://m.example/a.webp",]"#,
    ])
    func textThatDoesNotChangeIsNotRewritten(text: String) {
        #expect(Self.rewritten(text) == nil)
    }

    /// Video and sound renditions: CleverTap's kind and Batch's UTI follow them, not an image's (SPEC 19).
    @Test(arguments: [
        ("mp4", #"{"ct_mediaUrl":"https://m.example/v.webm","ct_mediaType":"video"}"#, #"{"ct_mediaUrl":"https://cdn.example/v.mp4","ct_mediaType":"video"}"#),
        ("mp3", #"{"ct_mediaUrl":"https://m.example/v.webm","ct_mediaType":"image"}"#, #"{"ct_mediaUrl":"https://cdn.example/v.mp3","ct_mediaType":"audio"}"#),
        ("mp3", #"{"com.batch":{"at":{"u":"https://m.example/v.webm","t":"public.mp3"}}}"#, #"{"com.batch":{"at":{"u":"https://cdn.example/v.mp3","t":"public.mp3"}}}"#),
        ("mp4", #"{"com.batch":{"at":{"u":"https://m.example/v.webm","t":"video/webm"}}}"#, #"{"com.batch":{"at":{"u":"https://cdn.example/v.mp4","t":"public.mpeg-4"}}}"#),
        ("gif", #"{"com.batch":{"at":{"u":"https://m.example/v.webm","t":"image/gif"}}}"#, #"{"com.batch":{"at":{"u":"https://cdn.example/v.gif","t":"com.compuserve.gif"}}}"#),
    ])
    func theStatedTypeFollowsAVideoOrSoundRendition(type: String, before: String, after: String) {
        let rewrite = PayloadRewrite(replacements: ["https://m.example/v.webm": .init(newURL: "https://cdn.example/v.\(type)", type: type)])
        #expect(rewrite.rewrite(ArraySlice(before.utf8)).map { String(decoding: $0, as: UTF8.self) } ?? before == after)
    }

    @Test func aURLInAnArrayIsReplacedWhereverItIs() {
        #expect(Self.rewritten(#"{"att":[ "https://m.example/a.webp" , "x" ]}"#) == #"{"att":[ "https://cdn.example/f/ab.jpg" , "x" ]}"#)
    }

    /// A video's still for Android goes in `message.android.notification.image`, inserted into the deepest
    /// of `message`, `android`, `notification` the request has (or replacing Android's own image of the
    /// video); the shared image stays the video, every other byte as written.
    @Test(arguments: [
        (#"{"message":{"notification":{"image":"https://m.example/v.mp4"}}}"#,
         #"{"message":{"android":{"notification":{"image":"https://cdn.example/s.jpg"}},"notification":{"image":"https://m.example/v.mp4"}}}"#),
        (#"{"message": {"android": {"priority": "high"}, "notification": {"image": "https://m.example/v.mp4"}}}"#,
         #"{"message": {"android": {"notification":{"image":"https://cdn.example/s.jpg"},"priority": "high"}, "notification": {"image": "https://m.example/v.mp4"}}}"#),
        (#"{"message":{"android":{"notification":{ }},"notification":{"image":"https://m.example/v.mp4"}}}"#,
         #"{"message":{"android":{"notification":{"image":"https://cdn.example/s.jpg" }},"notification":{"image":"https://m.example/v.mp4"}}}"#),
        (#"{"message":{"android":{"notification":{"image":"https://m.example/v.mp4"}}}}"#,
         #"{"message":{"android":{"notification":{"image":"https://cdn.example/s.jpg"}}}}"#),
    ])
    func aVideosStillIsAndroidsOwnImage(before: String, after: String) {
        let rewrite = PayloadRewrite(replacements: [:], androidStills: ["https://m.example/v.mp4": "https://cdn.example/s.jpg"])
        #expect(rewrite.rewrite(ArraySlice(before.utf8)).map { String(decoding: $0, as: UTF8.self) } == after)
    }
}

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

    @Test func aURLInAnArrayIsReplacedWhereverItIs() {
        #expect(Self.rewritten(#"{"att":[ "https://m.example/a.webp" , "x" ]}"#) == #"{"att":[ "https://cdn.example/f/ab.jpg" , "x" ]}"#)
    }
}

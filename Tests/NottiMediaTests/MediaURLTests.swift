import Foundation
import Testing
@testable import NottiMedia

@Suite struct MediaURLTests {
    enum Expected: Sendable, CustomStringConvertible {
        case absent, invalid, notHTTPS, valid(ext: String?)
        var description: String {
            switch self {
            case .absent: "absent"
            case .invalid: "invalid_url"
            case .notHTTPS: "not_https"
            case .valid(let ext): "valid(\(ext ?? "nil"))"
            }
        }
    }

    static let cases: [(JSONValue?, Expected)] = [
        (nil, .absent),
        (.string("https://cdn.example.com/a/photo.png"), .valid(ext: "png")),
        (.string("HTTPS://CDN.example.com/a/Photo.JPEG?x=1.gif#y.mp3"), .valid(ext: "jpeg")),
        (.string("https://cdn.example.com/media"), .valid(ext: nil)),
        (.string("https://cdn.example.com/.hidden"), .valid(ext: nil)),
        (.string("https://cdn.example.com:8443/x.mp4"), .valid(ext: "mp4")),
        (.string("https://user:pw@cdn.example.com/x.gif"), .valid(ext: "gif")),
        (.string("https://[::1]:8443/x.mp3"), .valid(ext: "mp3")),
        (.string("http://cdn.example.com/photo.png"), .notHTTPS),
        (.string("HTTP://cdn.example.com/photo.png"), .notHTTPS),
        (.string("ftp://files.example.com/photo.png"), .notHTTPS),
        // The scheme is judged on the text as written, before a URL library reads it.
        (.string("file:///etc/passwd"), .notHTTPS),
        (.string("file://localhost/etc/hosts"), .notHTTPS),
        // An empty authority has no host, even where libcurl would read the next segment as one.
        (.string("https:///f/logo.png"), .invalid),
        (.string("https:///"), .invalid),
        (.string(""), .invalid),
        (.number("42"), .invalid),
        (.null, .invalid),
        (.bool(true), .invalid),
        (.array([.string("https://cdn.example.com/a.png")]), .invalid),
        (.string("photo.png"), .invalid),
        (.string("/relative/photo.png"), .invalid),
        (.string("//cdn.example.com/photo.png"), .invalid),
        (.string("https://"), .invalid),
        (.string("https:/cdn.example.com/photo.png"), .invalid),
        (.string("https://cdn.example.com:99999/photo.png"), .invalid),
        (.string("data:image/png;base64,iVBORw0KGgo="), .invalid),
        (.string("javascript:alert(1)"), .invalid),
        // Valid once encoded (SPEC 20: url_needs_encoding): fetched as %20 and %C2%A0.
        (.string("https://cdn.example.com/a photo.png"), .valid(ext: "png")),
        (.string(" https://cdn.example.com/photo.png"), .invalid),
        (.string("https://cdn.example.com/photo.png\n"), .invalid),
        (.string("https://cdn.example.com/\tphoto.png"), .invalid),
        (.string("https://cdn.example.com/photo\u{00A0}.png"), .valid(ext: "png")),
        (.string("https://cdn.example.com/photo\u{7F}.png"), .invalid),
        (.string("https://cdn.example.com/photo\u{200B}.png"), .invalid),
    ]

    @Test(arguments: cases)
    func verdict(value: JSONValue?, expected: Expected) {
        let verdict = MediaURL.check(value)
        switch (verdict, expected) {
        case (.absent, .absent), (.invalid, .invalid), (.notHTTPS, .notHTTPS): break
        case (.valid(let url), .valid(let ext)): #expect(url.pathExtension == ext)
        default: Issue.record("\(String(describing: value)): got \(verdict), expected \(expected)")
        }
    }
}

/// SPEC 20: template code left in a campaign's URL (personalisation did not run) is
/// `unrendered_template`, in every URL position and whatever the SDK makes of the text.
@Suite struct UnrenderedTemplateTests {
    @Test(arguments: [
        ("https://cdn.example/{{user.id}}.png", "{{"), ("https://cdn.example/a.png?u={{ user.id }}", "{{"),
        ("https://cdn.example/{% if x %}a{% endif %}.png", "{%"), ("https://cdn.example/${id}.png", "${"),
        ("https://cdn.example/<%= id %>.png", "<%"), ("https://cdn.example/x}}.png", "}}"),
        ("https://cdn.example/%7b%7Buser%7D%7D.png", "%7B%7B"), ("https://cdn.example/%24%7Bid%7D.png", "%24%7B"),
    ])
    func templateCodeIsFound(url: String, marker: String) {
        #expect(MediaURL.check(.string(url)) == .unrenderedTemplate(marker))
    }

    @Test(arguments: ["https://cdn.example/a.png", "https://cdn.example/a%20b.png?x=%7B", "https://cdn.example/{a}.png"])
    func otherURLsAreNot(url: String) {
        #expect(MediaURL.templateMarker(in: url) == nil)
    }

    @Test func everyURLPositionAndProfileSaysSo() throws {
        let template = "https://cdn.example/{{recipient.image}}.png"
        let lines = [
            #"{"aps":{"alert":"a","mutable-content":1},"notification_id":"n","notti_image_url":"\#(template)"}"#,
            #"{"aps":{"alert":"a","mutable-content":1},"ab":{"att":{"url":"\#(template)","type":"png"}}}"#,
            #"{"aps":{"alert":"a","mutable-content":1},"att":{"hero":"\#(template)"}}"#,
            #"{"message":{"notification":{"title":"t","body":"b","image":"\#(template)"},"apns":{"payload":{"aps":{"mutable-content":1}}}}}"#,
        ]
        let result = try CLI.run(["check", "-", "--sdk", "auto", "--format", "json", "--out", Paths.temporaryFolder().path],
                                 stdin: lines.joined(separator: "\n") + "\n")
        #expect(result.status == 1)
        let records = OutFolder.records(ofJSONLines: result.stdout)
        #expect(records.count == 5)
        for record in records {
            let codes = (record["diagnostics"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
            #expect(codes.contains("unrendered_template"), "\(record["source"] ?? "?"): \(codes)")
        }
        #expect(records.allSatisfy { $0["reason"] as? String == "unrendered_template" && $0["passed"] as? Bool == false })
    }
}

/// SPEC 20: a signed URL's expiry against the send time plus the push's lifetime (`url_expires`).
@Suite struct SignedURLTests {
    @Test func theThreeKindsOfSignatureAreRead() {
        #expect(SignedURL.expiry(of: "https://b.s3.amazonaws.com/a.png?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date=20261201T000000Z&X-Amz-Expires=604800&X-Amz-Signature=ab")
            == SignedURL.Expiry(at: 1_796_083_200 + 604_800, scheme: "X-Amz-Date + X-Amz-Expires"))
        #expect(SignedURL.expiry(of: "https://storage.googleapis.com/b/a.png?x-goog-date=20261201T000000Z&x-goog-expires=3600")?.at == 1_796_083_200 + 3_600)
        #expect(SignedURL.expiry(of: "https://d.cloudfront.net/a.png?Expires=1767225600&Signature=x&Key-Pair-Id=K")
            == SignedURL.Expiry(at: 1_767_225_600, scheme: "Expires"))
        #expect(SignedURL.expiry(of: "https://cdn.example/a.png?v=2") == nil)
        #expect(SignedURL.expiry(of: "https://cdn.example/a.png?X-Amz-Date=soon&X-Amz-Expires=60") == nil)
    }

    @Test func expiredIsAnErrorBeforeTheLatestDeliveryAWarningAfterItNothing() {
        let url = "https://d.cloudfront.net/a.png?Expires=1000000"
        #expect(SignedURL.finding(for: url, now: 1_000_000, sendAt: 1_000_000)?.severity == .error)
        let warning = SignedURL.finding(for: url, now: 900_000, sendAt: 900_000, lifetime: .seconds(100_001))
        #expect(warning?.severity == .warning && warning?.code == .urlExpires)
        #expect(warning?.message.contains("expires at 1970-01-12T13:46:40Z (Expires), before the push's latest delivery at 1970-01-12T13:46:41Z") == true)
        #expect(SignedURL.finding(for: url, now: 900_000, sendAt: 900_000, lifetime: .seconds(100_000)) == nil)
    }

    /// SPEC 20's round five: expired by the send time is an error, whatever the clock says (it was a warning: the
    /// check compared with the run's clock); and without --send-at the message holds no date of the run's clock.
    @Test func theSendTimeDecidesExpiredAndTheMessageHoldsNoClock() {
        let url = "https://d.cloudfront.net/a.png?Expires=1000000"
        let afterExpiry = SignedURL.finding(for: url, now: 900_000, sendAt: 1_000_500)
        #expect(afterExpiry?.severity == .error)
        #expect(afterExpiry?.message.contains("expired at 1970-01-12T13:46:40Z (Expires), before the send time 1970-01-12T13:55:00Z") == true)
        let first = SignedURL.finding(for: url, now: 999_000, sendAt: nil)?.message
        let second = SignedURL.finding(for: url, now: 999_500, sendAt: nil)?.message
        #expect(first != nil && first == second, "\(first ?? "")")
        #expect(first?.contains("within the 30 days APNs keeps the push for phones that are off, from a send now") == true)
        let ttl = SignedURL.finding(for: url, now: 999_000, sendAt: nil, lifetime: .seconds(3_600), platform: .android)?.message
        #expect(ttl?.contains("within the 3600 s the request keeps the push") == true, "\(ttl ?? "")")
    }

    /// A request's own lifetime (`android.ttl`, `apns-expiration`) bounds each platform's latest delivery.
    @Test func aRequestsLifetimeDecidesPerPlatform() throws {
        // Sent on 2030-01-01 at midnight; the URL ends two hours later.
        let url = "https://cdn.example/a.png?Expires=\(1_893_456_000 + 7_200)"
        let request = #"{"message": {"notification": {"title": "t", "body": "b", "image": "\#(url)"}, "android": {"ttl": "3600s"}, "#
            + #""apns": {"headers": {"apns-expiration": "\#(1_893_456_000 + 86_400)"}, "payload": {"aps": {"mutable-content": 1}}}}}"#
        let result = try CLI.run(["check", "-", "--format", "json", "--send-at", "2030-01-01T01:00:00+01:00", "--timeout", "1",
                                  "--out", Paths.temporaryFolder().path], stdin: request + "\n")
        let records = OutFolder.records(ofJSONLines: result.stdout)
        func codes(_ record: [String: Any]) -> [String] { (record["diagnostics"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String } }
        #expect(records.count == 2)
        #expect(codes(records[0]).contains("url_expires"), "iOS keeps it a day: \(codes(records[0]))")
        #expect(!codes(records[1]).contains("url_expires"), "Android drops it after an hour: \(codes(records[1]))")
    }
}

/// SPEC 20: a URL valid once its spaces and non-ASCII characters are percent-encoded is fetched
/// encoded, with the warning `url_needs_encoding` instead of `invalid_url`.
@Suite struct URLNeedsEncodingTests {
    @Test(arguments: [
        ("https://cdn.example/summer sale.png", "https://cdn.example/summer%20sale.png"),
        ("https://cdn.example/café.png?q=ü", "https://cdn.example/caf%C3%A9.png?q=%C3%BC"),
    ])
    func spacesAndNonASCIIAreEncoded(written: String, encoded: String) {
        guard case .valid(let url) = MediaURL.check(.string(written)) else {
            Issue.record("\(written) is not valid once encoded")
            return
        }
        #expect(url.string == encoded)
        #expect(url.encodedFrom == written)
    }

    @Test(arguments: ["https://cdn.example/\tphoto.png", "https://cdn.example/a\u{200B}b.png", "https:// cdn.example/a.png"])
    func whatNoEncodingMendsStaysInvalid(text: String) {
        guard case .invalid = MediaURL.check(.string(text)) else {
            Issue.record("\(text) passed")
            return
        }
    }

    @Test func theRecordWarnsAndFetchesTheEncodedURL() throws {
        let server = TestServer.shared
        let written = server.url("/media/logo.png") + "?name=summer sale"
        let result = try CLI.run(
            ["process", "-", "--report", "--cacert", Paths.testCA, "--out", Paths.temporaryFolder().path],
            stdin: #"{"aps":{"alert":"a","mutable-content":1},"notification_id":"n","notti_image_url":"\#(written)"}"#)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.json["outcome"] as? String == "attached")
        #expect((result.json["media"] as? [String: Any])?["url"] as? String == server.url("/media/logo.png") + "?name=summer%20sale")
        #expect(result.stderr.contains("warning: url_needs_encoding: "), "\(result.stderr)")
    }
}

/// A record's source names its payload file; only a delivery's `#ios` / `#android` is cut, never a `#` of the file's own name.
@Suite struct RecordSourceTests {
    @Test(arguments: [
        ("summer sale#1.json", "summer sale#1.json"), ("summer sale#1.json#android", "summer sale#1.json"),
        ("campaign.jsonl:7#ios", "campaign.jsonl"), ("campaign.jsonl:7", "campaign.jsonl"), ("-:3", "-"),
    ])
    func theFileOfASourceKeepsItsOwnHash(source: String, file: String) {
        #expect(CheckSummary.file(of: source) == file)
    }
}

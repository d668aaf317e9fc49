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
        (.string("https://cdn.example.com/a photo.png"), .invalid),
        (.string(" https://cdn.example.com/photo.png"), .invalid),
        (.string("https://cdn.example.com/photo.png\n"), .invalid),
        (.string("https://cdn.example.com/\tphoto.png"), .invalid),
        (.string("https://cdn.example.com/photo\u{00A0}.png"), .invalid),
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

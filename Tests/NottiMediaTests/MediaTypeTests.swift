import Testing
@testable import NottiMedia

@Suite struct MediaTypeTests {
    @Test(arguments: [
        ("image/jpeg", MediaType.jpg, "public.jpeg", false),
        ("image/png", .png, "public.png", false),
        ("image/gif", .gif, "com.compuserve.gif", false),
        ("video/mp4", .mp4, "public.mpeg-4", false),
        ("video/x-m4v", .mp4, "public.mpeg-4", false),
        ("audio/mpeg", .mp3, "public.mp3", false),
        ("image/webp", .jpg, "public.jpeg", true),
        ("audio/x-m4a", .jpg, "public.jpeg", true),
        ("image/svg+xml", .jpg, "public.jpeg", true),
        ("text/html", .jpg, "public.jpeg", true),
        ("application/octet-stream", .jpg, "public.jpeg", true),
    ])
    func sniffedMimeDecidesTheTypeWithAJPGFallback(mime: String, type: MediaType, uti: String, fallback: Bool) {
        let decision = TypeDecision(sniffedMime: mime, declaredMime: nil, urlExtension: nil)
        #expect(decision.type == type)
        #expect(decision.type.uti == uti)
        #expect(decision.fallback == fallback)
        #expect(decision.diagnostics.contains { $0.code == .unsupportedType } == fallback)
    }

    @Test(arguments: [
        ("image/png", "jpg", MediaType.png),
        ("IMAGE/PNG; charset=binary", nil, .png),
        ("image/pjpeg", nil, .jpg),
        ("audio/mp3", nil, .mp3),
        ("Audio/MPEG", nil, .mp3),
        ("video/mp4", nil, .mp4),
        ("application/octet-stream", "gif", .gif),
        (nil, "jpeg", .jpg),
        (nil, "mp3", .mp3),
        ("text/plain", "webp", .jpg),
        (nil, nil, .jpg),
    ] as [(String?, String?, MediaType)])
    func theSDKTypeComesFromContentTypeThenExtensionThenJPG(declared: String?, ext: String?, expected: MediaType) {
        // The header as served, its media type taken as the download keeps it.
        let declaredMime = declared.map(TransferFacts.essence(ofContentType:))
        #expect(TypeDecision.sdkType(declaredMime: declaredMime, urlExtension: ext).0 == expected)
    }

    @Test func aMismatchBetweenBytesAndHeadersWarns() {
        let decision = TypeDecision(sniffedMime: "image/jpeg", declaredMime: "image/png", urlExtension: "png")
        #expect(decision.sdkType == .png)
        #expect(decision.diagnostics.map(\.codeText) == ["type_mismatch"])
        #expect(decision.diagnostics[0].severity == .warning)
        #expect(decision.diagnostics[0].message.contains("image/png"))
    }

    @Test func agreementRaisesNothing() {
        #expect(TypeDecision(sniffedMime: "video/mp4", declaredMime: "video/mp4", urlExtension: "mp4").diagnostics.isEmpty)
    }
}

import Foundation
import Testing
@testable import NottiMedia

/// The download path against a real TLS server on 127.0.0.1: every reason
/// code of SPEC section 3 and every limit edge, seen through the CLI.
@Suite struct DownloadTests {
    let server = TestServer.shared

    @Test func attachesAPNGWithItsFactsAndStoresItByHash() throws {
        let run = try ProcessRun.fetch(server.url("/media/logo.png"))
        #expect(run.result.status == 0)
        #expect(run.outcome == "attached")
        #expect(run.report["reason"] is NSNull)
        #expect(run.report["passed"] as? Bool == true)
        let expectedHash = "ad83e46a4895f5560fdc8a6a51fe30c3528aaad38d06b99a572f6808a669fb2b"
        #expect(run.media["type"] as? String == "png")
        #expect(run.media["sniffedMime"] as? String == "image/png")
        #expect(run.media["declaredMime"] as? String == "image/png")
        #expect(run.media["bytes"] as? Int == 539)
        #expect(run.media["sha256"] as? String == expectedHash)
        #expect(run.media["httpStatus"] as? Int == 200)
        #expect(run.filesLeft == ["\(expectedHash).png"])
        let attachment = try #require(run.attachments.first)
        #expect(attachment["identifier"] as? String == "notti_image")
        #expect(attachment["uti"] as? String == "public.png")
        #expect(attachment["url"] as? String == "file://\(run.outFolder.path)/\(expectedHash).png")
    }

    /// Past 256 KiB the hash is made on a helper thread that reads the file back (WrittenFileHasher): every
    /// byte is hashed once, in order, whether the body arrives at once or in bursts the helper sleeps between.
    @Test(arguments: [
        // 3,000 copies of a 539-byte PNG (1.6 MB): a byte read at a wrong offset changes the hash.
        ("/repeat/3000/logo.png", "media/logo.png", 3000, 0),
        // 600 KiB of a padded JPEG in two bursts 0.1 s apart (rate: 10 sends a second).
        ("/bytes/614400?mode=length&rate=3072000", "media/photo.jpg", 1, 614_400),
    ])
    func aLargeBodyIsHashedWholeBesideItsTransfer(path: String, fixture: String, copies: Int, paddedTo: Int) throws {
        let one = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Paths.fixture(fixture))))
        var body = Array(repeatElement(one, count: copies).joined())
        body += [UInt8](repeating: 0, count: max(0, paddedTo - body.count))
        #expect(body.count > WrittenFileHasher.helperThreshold)
        let run = try ProcessRun.fetch(server.url(path))
        let expected = SHA256.hex(of: body)
        #expect(run.media["bytes"] as? Int == body.count)
        #expect(run.media["sha256"] as? String == expected)
        #expect(run.filesLeft.count == 1 && run.filesLeft.first?.hasPrefix(expected + ".") == true)
    }

    @Test func reportsTheSDKDefaultLimitsWhenNoneAreGiven() throws {
        let run = try ProcessRun.fetch(server.url("/media/photo.jpg"))
        let limits = try #require(run.media["limits"] as? [String: Any])
        #expect(limits["maxBytes"] as? Int == 10_485_760)
        #expect(limits["timeoutSeconds"] as? Int == 20)
    }

    @Test func reportsOverriddenLimits() throws {
        let run = try ProcessRun.fetch(server.url("/media/photo.jpg"), ["--timeout", "1.5", "--max-bytes", "4096"])
        let limits = try #require(run.media["limits"] as? [String: Any])
        #expect(limits["maxBytes"] as? Int == 4096)
        #expect(limits["timeoutSeconds"] as? Double == 1.5)
    }

    // MARK: Size limit edges: 10,485,760 bytes pass, one more fails, however the length is sent.

    @Test(arguments: ["length", "nolength", "chunked", "lie"])
    func exactlyTheLimitIsAttached(mode: String) throws {
        let run = try ProcessRun.fetch(server.url("/bytes/10485760?mode=\(mode)"))
        #expect(run.outcome == "attached", "\(mode): \(run.result.stderr)")
        #expect(run.media["bytes"] as? Int == 10_485_760)
        #expect(run.filesLeft.count == 1)
    }

    @Test(arguments: ["length", "nolength", "chunked", "lie"])
    func oneByteOverTheLimitIsTooLargeAndLeavesNoFile(mode: String) throws {
        let run = try ProcessRun.fetch(server.url("/bytes/10485761?mode=\(mode)"))
        #expect(run.result.status == 0, "content is still delivered")
        #expect(run.outcome == "unchanged")
        #expect(run.reason == "too_large", "\(mode)")
        #expect(run.diagnosticCodes == ["too_large"])
        #expect(run.attachments.isEmpty)
        #expect(run.filesLeft.isEmpty, "\(mode) left \(run.filesLeft)")
    }

    @Test func announcedLengthOverTheLimitIsRefusedBeforeTheBody() throws {
        let run = try ProcessRun.fetch(server.url("/bytes/20971520?mode=length"))
        #expect(run.reason == "too_large")
        let message = (run.report["diagnostics"] as? [[String: Any]])?.first?["message"] as? String ?? ""
        #expect(message.contains("announced a Content-Length over the 10485760-byte limit"))
    }

    @Test func aLowerMaxBytesMovesTheEdge() throws {
        #expect(try ProcessRun.fetch(server.url("/bytes/1000?mode=chunked"), ["--max-bytes", "1000"]).outcome == "attached")
        #expect(try ProcessRun.fetch(server.url("/bytes/1001?mode=chunked"), ["--max-bytes", "1000"]).reason == "too_large")
    }

    @Test func anEndlessStreamStopsAtTheLimit() throws {
        let run = try ProcessRun.fetch(server.url("/endless"))
        #expect(run.reason == "too_large")
        #expect(run.filesLeft.isEmpty)
    }

    @Test func aGzipBombStopsAtTheLimitOfDecodedBytes() throws {
        let run = try ProcessRun.fetch(server.url("/gzip-bomb"))
        #expect(run.reason == "too_large")
        #expect(run.filesLeft.isEmpty)
    }

    // MARK: Deadline

    @Test func aTrickleTimesOutAtTheDeadlineAndIsDeliveredUnchanged() throws {
        let run = try ProcessRun.fetch(server.url("/trickle"), ["--timeout", "2"])
        #expect(run.result.status == 0)
        #expect(run.outcome == "unchanged")
        #expect(run.reason == "timeout")
        #expect(run.result.seconds >= 1.9 && run.result.seconds < 4, "took \(run.result.seconds) s")
        #expect(run.filesLeft.isEmpty)
        let content = try #require(run.report["content"] as? [String: Any])
        #expect(content["title"] as? String == "Sale")
    }

    // MARK: Redirects

    @Test func fiveRedirectsAreFollowed() throws {
        let run = try ProcessRun.fetch(server.url("/redirect/5/media/spinner.gif"))
        #expect(run.outcome == "attached")
        #expect(run.media["redirects"] as? Int == 5)
        #expect(run.media["finalUrl"] as? String == server.url("/media/spinner.gif"))
        #expect(run.media["type"] as? String == "gif")
    }

    @Test func aRelativeRedirectIsResolved() throws {
        let run = try ProcessRun.fetch(server.url("/relative-redirect/media/clip.mp4"))
        #expect(run.media["type"] as? String == "mp4")
        #expect(run.media["redirects"] as? Int == 1)
    }

    @Test(arguments: ["/redirect/6/media/spinner.gif", "/loop"])
    func aSixthRedirectIsTooMany(path: String) throws {
        let run = try ProcessRun.fetch(server.url(path))
        #expect(run.reason == "too_many_redirects")
        #expect(run.media["redirects"] as? Int == 5)
        #expect(run.filesLeft.isEmpty)
    }

    @Test(arguments: ["http", "ftp"])
    func aRedirectToAnotherSchemeIsInsecure(scheme: String) throws {
        let target = "\(scheme)://127.0.0.1:\(server.port)/media/logo.png"
        let run = try ProcessRun.fetch(server.url("/redirect-to?url=\(target)"))
        #expect(run.reason == "insecure_redirect")
        #expect(run.result.stderr.contains(target))
    }

    // MARK: Status and body

    @Test(arguments: [404, 500, 403])
    func aNon2xxStatusIsAnHTTPErrorWithTheStatus(status: Int) throws {
        let run = try ProcessRun.fetch(server.url("/status/\(status)"))
        #expect(run.reason == "http_error")
        #expect(run.media["httpStatus"] as? Int == status)
        #expect(run.result.stderr.contains("HTTP \(status)"))
        #expect(run.filesLeft.isEmpty)
    }

    @Test(arguments: ["/status/204", "/empty"])
    func aSuccessWithNoBodyIsEmptyMedia(path: String) throws {
        let run = try ProcessRun.fetch(server.url(path))
        #expect(run.reason == "empty_media")
        #expect(run.filesLeft.isEmpty)
    }

    // MARK: TLS and network

    @Test func anUntrustedCertificateIsATLSError() throws {
        let run = try ProcessRun.fetch("https://127.0.0.1:\(server.untrustedPort)/media/logo.png")
        #expect(run.reason == "tls_error")
        #expect(run.filesLeft.isEmpty)
    }

    @Test func withoutTheTestCATheServerIsNotTrusted() throws {
        let out = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: out) }
        let result = try CLI.run(["process", "-", "--report", "--out", out.path], stdin: payload(url: server.url("/media/logo.png")))
        #expect(result.json["reason"] as? String == "tls_error")
    }

    @Test func aHostNameNotInTheCertificateIsATLSError() throws {
        // The certificate names media.notti.test, localhost and 127.0.0.1, not this name.
        let run = try ProcessRun.fetch(
            "https://wrong.notti.test:\(server.port)/media/logo.png",
            ["--connect-to", "wrong.notti.test:\(server.port):127.0.0.1:\(server.port)"])
        #expect(run.reason == "tls_error")
    }

    @Test func aRefusedConnectionIsANetworkError() throws {
        let run = try ProcessRun.fetch("https://127.0.0.1:\(server.closedPort)/media/logo.png")
        #expect(run.reason == "network_error")
        #expect(run.result.stderr.contains("network_error"))
    }

    @Test func anUnresolvableHostIsANetworkError() throws {
        // .invalid never resolves (RFC 6761), so no query leaves the machine.
        let run = try ProcessRun.fetch("https://media.invalid/photo.jpg")
        #expect(run.reason == "network_error")
    }

    // MARK: Output folder

    @Test func theSameMediaTwiceIsStoredOnceByHash() throws {
        let out = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: out) }
        for path in ["/media/photo.jpg", "/redirect/1/media/photo.jpg"] {
            let result = try CLI.run(["process", "-", "--cacert", Paths.testCA, "--out", out.path], stdin: payload(url: server.url(path)))
            #expect(result.status == 0)
        }
        #expect(Paths.contents(of: out) == ["0ee1dc89eff1e598e88c547892107a0e02c769834bc4d031cfdeee1e2956d19d.jpg"])
    }
}

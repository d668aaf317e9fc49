import Foundation
import Testing

/// Send-time risk (SPEC section 13): caching headers, timings, download
/// estimates on slow networks, and the campaign's load per host and network.
@Suite struct SendTimeRiskTests {
    let server = TestServer.shared

    @Test(arguments: [
        ("cc=no-store", "Cache-Control: no-store"),
        ("cc=no-cache", "Cache-Control: no-cache"),
        ("cc=private,%20max-age=600", "Cache-Control: private"),
        ("cc=public,%20max-age=0", "Cache-Control: max-age=0"),
        ("cc=public,%20s-maxage=0", "Cache-Control: s-maxage=0"),
        ("cc=public,%20max-age=86400&cookie=session=1", "Set-Cookie"),
        ("cc=public,%20max-age=86400&vary=*", "Vary: *"),
    ])
    func mediaACDNWillNotCacheIsNotCacheable(query: String, why: String) throws {
        let run = try ProcessRun.fetch(server.url("/media/logo.png?\(query)"))
        #expect(run.outcome == "attached", "a warning only")
        #expect(run.diagnosticCodes == ["not_cacheable"])
        #expect(run.message("not_cacheable").hasPrefix("the media is served with \(why): a CDN will not cache it"))
    }

    @Test func cacheableMediaHasNoWarningAndItsHeadersAreReported() throws {
        let run = try ProcessRun.fetch(server.url(
            "/media/logo.png?cc=public,%20max-age=86400&etag=%22v1%22&lm=Mon,%2030%20Nov%202026%2006:00:00%20GMT&age=12&expires=Tue,%2001%20Dec%202026%2006:00:00%20GMT"))
        #expect(run.diagnosticCodes.isEmpty)
        let http = try #require(run.media["http"] as? [String: Any])
        #expect(http["cacheControl"] as? String == "public, max-age=86400")
        #expect(http["etag"] as? String == "\"v1\"")
        #expect(http["lastModified"] as? String == "Mon, 30 Nov 2026 06:00:00 GMT")
        #expect(http["age"] as? String == "12")
        #expect(http["expires"] as? String == "Tue, 01 Dec 2026 06:00:00 GMT")
        let timings = try #require(run.media["timings"] as? [String: Int])
        #expect(Set(timings.keys) == ["dnsMs", "connectMs", "tlsMs", "firstByteMs", "totalMs"])
        #expect(timings["totalMs"]! >= timings["firstByteMs"]!)
        #expect(timings["totalMs"]! <= run.media["elapsedMs"] as! Int)
    }

    @Test func estimatesAreExactArithmeticOnBytesAndRedirects() throws {
        // 539 bytes, 0 redirects: ceil(4 × rtt + 4312 bits / kbit/s).
        let direct = try ProcessRun.fetch(server.url("/media/logo.png"))
        #expect(direct.media["estimates"] as? [String: Int] == ["3g": 1207, "slow-4g": 603, "4g": 161])
        // 2 redirects: three hops of four round trips.
        let redirected = try ProcessRun.fetch(server.url("/redirect/2/media/logo.png"))
        #expect(redirected.media["redirects"] as? Int == 2)
        #expect(redirected.media["estimates"] as? [String: Int] == ["3g": 3607, "slow-4g": 1803, "4g": 481])
        // 2,048 bytes on slow-4g is exactly 10 ms of transfer: no floating-point rounding up to 11.
        let exact = try ProcessRun.fetch(server.url("/bytes/2048"))
        #expect((exact.media["estimates"] as? [String: Int])?["slow-4g"] == 610)
        let failed = try ProcessRun.fetch(server.url("/status/404"))
        #expect(failed.media["estimates"] is NSNull, "no size, no estimate")
    }

    @Test(arguments: [
        (["--network", "3g", "--timeout", "1"], true),
        (["--network", "3g", "--timeout", "2"], false),
        (["--network", "1000/200", "--timeout", "0.8"], true),
        (["--network", "1000/200", "--timeout", "0.81"], false),
    ])
    func slowNetworkWarnsWhereTheLeastTimeIsOverTheDeadline(arguments: [String], warns: Bool) throws {
        let run = try ProcessRun.fetch(server.url("/media/logo.png"), arguments)
        #expect(run.diagnosticCodes.contains("slow_network") == warns, "\(run.diagnostics)")
        if warns {
            #expect(run.message("slow_network").contains("users on that network get the push without media"))
        }
    }

    @Test(arguments: ["fast", "0/100", "1000/", "1000/x", "/200", "1.2345/10"])
    func aBadNetworkIsAUsageError(value: String) throws {
        let result = try CLI.run(["check", "-", "--network", value])
        #expect(result.status == 2)
        #expect(result.stderr == "notti-media: --network expects 3g, slow-4g, 4g or KBITS/RTTMS (e.g. 1000/200), not '\(value)'\n")
    }

    @Test func theCampaignSummaryCountsWhatEachHostServesAndWhoMissesOnEachNetwork() throws {
        // Three hosts: 127.0.0.1, localhost and media.notti.test (connected to the same server).
        let port = server.port
        let tag = UUID().uuidString
        let logo = "https://127.0.0.1:\(port)/u/\(tag)/media/logo.png"  // 539 bytes
        let clip = "https://localhost:\(port)/u/\(tag)/media/clip.mp4?cc=no-store"  // 2,860 bytes, not cacheable
        let tone = "https://media.notti.test/u/\(tag)/media/tone.mp3"  // 4,180 bytes
        let lines = Array(repeating: payload(url: logo), count: 5) + Array(repeating: payload(url: clip), count: 3)
            + Array(repeating: payload(url: tone), count: 2) + [payload(url: server.url("/status/404"))]
        let out = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: out) }
        let result = try CLI.run(
            ["check", "--format", "json", "--network", "1000/200", "--timeout", "0.84", "--cacert", Paths.testCA,
             "--connect-to", "media.notti.test:443:127.0.0.1:\(port)", "--out", out.path, "-"],
            stdin: lines.joined(separator: "\n"))
        let last = try #require(result.stdout.split(separator: "\n").last)
        let summary = try #require(((try JSONSerialization.jsonObject(with: Data(last.utf8))) as? [String: Any])?["summary"] as? [String: Any])
        let hosts = try #require(summary["hosts"] as? [[String: Any]])
        func load(_ host: String) -> [Int] {
            let entry = hosts.first { $0["host"] as? String == host } ?? [:]
            return ["downloads", "bytes", "notCacheableBytes"].map { entry[$0] as? Int ?? -1 }
        }
        #expect(load("media.notti.test") == [2, 8_360, 0])
        #expect(load("localhost") == [3, 8_580, 8_580])
        #expect(load("127.0.0.1") == [6, 2_695, 0], "five logos and the 404 (a request, no bytes)")
        #expect(hosts.map { $0["host"] as? String } == ["localhost", "media.notti.test", "127.0.0.1"], "the most bytes first")
        // On 1000/200 the least times are 805 ms (logo), 823 ms (clip), 834 ms (tone): over 0.84 s none; over 0.83 s, the tones.
        let networks = try #require(summary["networks"] as? [[String: Any]])
        #expect(networks.map { $0["network"] as? String } == ["3g", "slow-4g", "4g", "1000/200"])
        #expect(networks.last?["payloadsMissingMedia"] as? Int == 0)
        #expect(networks.first?["payloadsMissingMedia"] as? Int == 10, "on 3g every fetched payload misses 0.84 s")
        #expect(networks[2]["payloadsMissingMedia"] as? Int == 0, "4g makes it")
        let tighter = try CLI.run(
            ["check", "--summary-only", "--network", "1000/200", "--timeout", "0.83", "--cacert", Paths.testCA,
             "--connect-to", "media.notti.test:443:127.0.0.1:\(port)", "--out", out.path, "-"],
            stdin: lines.joined(separator: "\n"))
        #expect(tighter.stdout.contains("  1000/200 (1000 kbit/s, 200 ms round trip): 2 of 11"), "\(tighter.stdout)")
        #expect(tighter.stdout.range(of: #"\n  localhost +3 +8\.6 KB +8\.6 KB\n"#, options: .regularExpression) != nil, "\(tighter.stdout)")
    }

    @Test func thePreviewDrawsTheHostAndNetworkTables() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let page = folder.appendingPathComponent("report.html")
        let lines = [payload(url: server.url("/media/logo.png?cc=no-store")), payload(url: server.url("/media/photo.jpg"))]
        _ = try CLI.run(["check", "--cacert", Paths.testCA, "--html", page.path, "--out", folder.path, "-"], stdin: lines.joined(separator: "\n"))
        let dom = try Browser.renderedDOM(of: page.path)
        #expect(dom.contains("<table class=\"hosts\">"))
        #expect(dom.contains("<tr><td><code>127.0.0.1</code></td><td>2</td><td>957 B</td><td>539 B</td>"))
        #expect(Browser.count("<span class=\"bar miss\"", in: dom) == 3, "one bar per network")
    }
}

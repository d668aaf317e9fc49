import Foundation
import Testing

/// SPEC 21: `notti-media serve`, asked over real sockets, its media from the loopback TLS server.
@Suite(.serialized) struct ServeTests {
    let media = TestServer.shared

    /// A running `notti-media serve`, its port read from its first line on stderr.
    ///
    /// Its stderr is read as it comes, all the while: a gate that says more than a pipe holds (a sanitizer's
    /// report is tens of kilobytes) would otherwise block in its write, holding the sanitizer's locks, and
    /// never exit. `stop` fails the test on a sanitizer's report and on a gate that does not exit.
    final class Gate {
        let process = Process()
        let port: Int
        private let errors = Pipe()
        private let logged = Guarded(Data())
        private let reader: Thread
        private let readerDone = DispatchSemaphore(value: 0)

        init(_ arguments: [String] = [], environment: [String: String] = [:]) throws {
            process.executableURL = URL(fileURLWithPath: CLI.binary)
            process.arguments = ["serve", "--listen", "127.0.0.1:0", "--cacert", Paths.testCA] + arguments
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
            process.standardError = errors
            process.standardOutput = FileHandle.nullDevice
            let (handle, logged, done) = (errors.fileHandleForReading, logged, readerDone)
            reader = Thread {
                while case let chunk = handle.availableData, !chunk.isEmpty { logged.update { $0.append(chunk) } }
                done.signal()
            }
            try process.run()
            reader.start()
            var port = 0
            let deadline = Date().addingTimeInterval(20)
            while port == 0, Date() < deadline, process.isRunning || !logged.values.isEmpty {
                let text = String(decoding: logged.values, as: UTF8.self)
                if let range = text.range(of: "listening on http://127.0.0.1:") {
                    port = Int(text[range.upperBound...].prefix { $0.isNumber }) ?? 0
                } else if !process.isRunning {
                    break
                } else {
                    Thread.sleep(forTimeInterval: 0.02)
                }
            }
            self.port = port
        }

        /// Stops it with `signal`; its exit status and everything it said on stderr.
        func stop(_ signal: Int32 = SIGTERM) -> (status: Int32, log: String) {
            kill(process.processIdentifier, signal)
            let deadline = Date().addingTimeInterval(120)
            while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
            if process.isRunning {
                Issue.record("serve did not exit within 120 s of signal \(signal)")
                kill(process.processIdentifier, SIGKILL)
            }
            process.waitUntilExit()
            _ = readerDone.wait(timeout: .now() + 30)
            let log = String(decoding: logged.values, as: UTF8.self)
            for report in ["WARNING: ThreadSanitizer", "ERROR: AddressSanitizer", "ERROR: LeakSanitizer"] where log.contains(report) {
                Issue.record("serve's stderr has a sanitizer's report:\n\(log)")
            }
            return (process.terminationStatus, log)
        }

        deinit { if process.isRunning { process.terminate(); process.waitUntilExit() } }
    }

    /// One HTTP/1.1 exchange over a socket of its own (`Connection: close`): status, headers (lower-cased names), body.
    struct Reply {
        var status: Int
        var headers: [String: String]
        var body: Data
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }
    }

    static func ask(_ port: Int, _ method: String = "GET", path: String, headers: [String] = [], body: Data = Data()) throws -> Reply {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw POSIXError(.EIO) }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
        var request = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: \(body.count)\r\n"
        for header in headers { request += header + "\r\n" }
        let bytes = Data((request + "\r\n").utf8) + body
        _ = bytes.withUnsafeBytes { send(socket, $0.baseAddress, $0.count, 0) }
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(socket, &buffer, buffer.count, 0)
            if count <= 0 { break }
            received.append(contentsOf: buffer[0..<count])
        }
        guard let split = received.range(of: Data("\r\n\r\n".utf8)) else { return Reply(status: 0, headers: [:], body: received) }
        let head = String(decoding: received[..<split.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let status = Int(head.first?.split(separator: " ").dropFirst().first ?? "") ?? 0
        var found: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            found[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return Reply(status: status, headers: found, body: received[split.upperBound...])
    }

    static func encoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? text
    }

    /// `/v1/media?url=…` for the test server's `path`.
    func mediaPath(_ path: String, _ query: String = "") -> String {
        "/v1/media?url=\(Self.encoded(media.url(path)))" + (query.isEmpty ? "" : "&" + query)
    }

    // MARK: verdicts

    @Test func aColdThenACachedVerdictWithItsFreshness() throws {
        let gate = try Gate()
        let path = mediaPath("/u/cold-\(UUID().uuidString.prefix(8))/media/logo.png?cc=max-age%3D300", "sdk=braze&platform=ios")
        let cold = try Self.ask(gate.port, path: path)
        #expect(cold.status == 200)
        #expect(cold.json["verdict"] as? String == "pass", "\(String(decoding: cold.body, as: UTF8.self))")
        #expect((cold.json["cache"] as? [String: Any])?["hit"] as? Bool == false)
        #expect(cold.headers["cache-control"] == "max-age=300")
        #expect((cold.json["ios"] as? [String: Any])?["outcome"] as? String == "attached")
        #expect(cold.json["android"] is NSNull, "platform=ios asks for iPhones alone")
        #expect((cold.json["media"] as? [String: Any])?["httpStatus"] as? Int == 200)
        let warm = try Self.ask(gate.port, path: path)
        #expect((warm.json["cache"] as? [String: Any])?["hit"] as? Bool == true)
        let age = (warm.json["cache"] as? [String: Any])?["ageSeconds"] as? Int ?? -1
        #expect(warm.headers["cache-control"] == "max-age=\(300 - age)")
        #expect(warm.json["checkedAt"] as? String == cold.json["checkedAt"] as? String)
        let (status, log) = gate.stop()
        #expect(status == 0, "SIGTERM drains and exits 0")
        #expect(log.contains("GET /v1/media 200") && log.contains(" ms miss") && log.contains(" ms hit"), "\(log)")
        #expect(!log.contains("?url="), "the access log leaves the query out")
    }

    /// A verdict is the one that SDK's records give: a WebP fails on iPhones under Braze and shows on Android.
    @Test func aFailingVerdictIsStill200AndSaysWhichPhone() throws {
        let gate = try Gate()
        let reply = try Self.ask(gate.port, path: mediaPath("/media/badge.webp", "sdk=braze&platform=all"))
        #expect(reply.status == 200)
        #expect(reply.json["verdict"] as? String == "fail")
        #expect((reply.json["ios"] as? [String: Any])?["reason"] as? String == "unsupported_type")
        #expect((reply.json["android"] as? [String: Any])?["passed"] as? Bool == true)
        let missing = try Self.ask(gate.port, path: mediaPath("/status/404", "sdk=onesignal"))
        #expect(missing.json["verdict"] as? String == "fail" && missing.headers["cache-control"] == "max-age=0")
        _ = gate.stop()
    }

    /// The gate is a shared cache: the media server's `s-maxage` is its freshness, before `max-age`, whichever comes
    /// first (RFC 9111 5.2.2.10); `private` is not for it at all.
    @Test func aSharedCachesFreshnessIsSMaxage() throws {
        let gate = try Gate()
        let tag = UUID().uuidString.prefix(8)
        let shared = try Self.ask(gate.port, path: mediaPath("/u/sm-\(tag)/media/logo.png?cc=max-age%3D600%2C%20s-maxage%3D60", "sdk=notti"))
        #expect(shared.headers["cache-control"] == "max-age=60", "\(shared.headers)")
        let onlyPrivate = try Self.ask(gate.port, path: mediaPath("/u/pr-\(tag)/media/logo.png?cc=private%2C%20max-age%3D600", "sdk=notti"))
        #expect(onlyPrivate.headers["cache-control"] == "max-age=0")
        _ = gate.stop()
    }

    @Test func badRequestsAndRoutes() throws {
        let gate = try Gate(["--max-body", "1K"])
        #expect(try Self.ask(gate.port, path: "/v1/media").status == 400)
        let unknown = try Self.ask(gate.port, path: mediaPath("/media/logo.png", "sdk=firebase"))
        #expect(unknown.status == 400 && (unknown.json["error"] as? String)?.hasPrefix("unknown sdk 'firebase'") == true)
        #expect(try Self.ask(gate.port, path: mediaPath("/media/logo.png", "platform=watch")).status == 400)
        #expect(try Self.ask(gate.port, path: mediaPath("/media/logo.png", "send_at=tomorrow")).status == 400)
        #expect(try Self.ask(gate.port, path: "/v2/media").status == 404)
        #expect(try Self.ask(gate.port, "POST", path: "/v1/media").status == 405)
        let large = try Self.ask(gate.port, "POST", path: "/v1/check", body: Data(repeating: UInt8(ascii: " "), count: 1025))
        #expect(large.status == 413, "\(large.status)")
        #expect(try Self.ask(gate.port, "POST", path: "/v1/check", body: Data("  \n".utf8)).status == 400)
        let health = try Self.ask(gate.port, path: "/healthz")
        #expect(health.status == 200 && health.json["status"] as? String == "serving")
        // HEAD answers as GET does, without the body: its Content-Length is the body's GET gets (RFC 9110 9.3.2).
        // Both from the cache (a fresh check's timings differ in length from one ask to the next); the first GET fills it.
        let cached = mediaPath("/u/head-\(UUID().uuidString.prefix(8))/media/logo.png?cc=max-age%3D300", "sdk=notti")
        _ = try Self.ask(gate.port, path: cached)
        let verdict = try Self.ask(gate.port, path: cached)
        let head = try Self.ask(gate.port, "HEAD", path: cached)
        #expect(verdict.json["cache"] as? [String: Any] != nil && (verdict.json["cache"] as? [String: Any])?["hit"] as? Bool == true)
        #expect(head.status == 200 && head.body.isEmpty, "\(head)")
        #expect(head.headers["content-length"] == "\(verdict.body.count)", "\(head.headers) against \(verdict.body.count) bytes")
        _ = gate.stop()
    }

    @Test func credentialsAreAskedAndComparedWhole() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let token = folder.appendingPathComponent("token"), basic = folder.appendingPathComponent("basic")
        try "s3cret-token\n".write(to: token, atomically: true, encoding: .utf8)
        try "braze:pass word\n".write(to: basic, atomically: true, encoding: .utf8)
        let gate = try Gate(["--token", token.path, "--basic-auth", basic.path])
        let path = mediaPath("/media/logo.png")
        #expect(try Self.ask(gate.port, path: path).status == 401)
        #expect(try Self.ask(gate.port, path: path, headers: ["Authorization: Bearer s3cret-toke"]).status == 401)
        #expect(try Self.ask(gate.port, path: path, headers: ["Authorization: Bearer s3cret-token!"]).status == 401)
        #expect(try Self.ask(gate.port, path: "/metrics").status == 401)
        #expect(try Self.ask(gate.port, path: path, headers: ["Authorization: Bearer s3cret-token"]).status == 200)
        let basicHeader = "Authorization: Basic " + Data("braze:pass word".utf8).base64EncodedString()
        #expect(try Self.ask(gate.port, path: path, headers: [basicHeader]).status == 200)
        #expect(try Self.ask(gate.port, path: "/healthz").status == 200, "health needs no credentials")
        let (_, log) = gate.stop()
        #expect(!log.contains("s3cret") && !log.contains(Data("braze:pass word".utf8).base64EncodedString()), "credentials never logged")
    }

    /// `--cache DIR`: the verdicts' validators outlive a restart; the restarted gate asks with If-None-Match and reuses on 304.
    @Test func theCacheFolderOutlivesARestart() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = mediaPath("/u/restart-\(UUID().uuidString.prefix(8))/bytes/2000?mode=length")
        let first = try Gate(["--cache", folder.path])
        let cold = try Self.ask(first.port, path: path)
        #expect((cold.json["media"] as? [String: Any])?["cache"] as? String == "fetched")
        #expect(first.stop().status == 0)
        // The cache and the file its verdict names, nothing else.
        let sha = try #require((cold.json["media"] as? [String: Any])?["sha256"] as? String)
        #expect(Set(Paths.contents(of: folder)) == ["notti-media-cache.sqlite", "notti-media-attachments"], "\(Paths.contents(of: folder))")
        #expect(Paths.contents(of: folder.appendingPathComponent("notti-media-attachments")) == ["\(sha).jpg"])
        let second = try Gate(["--cache", folder.path])
        let again = try Self.ask(second.port, path: path)
        #expect(again.status == 200 && again.json["verdict"] as? String == cold.json["verdict"] as? String)
        #expect((again.json["media"] as? [String: Any])?["cache"] as? String == "revalidated", "\(again.json["media"] ?? "")")
        _ = second.stop()
    }

    /// Without --cache, a check's files go in a private folder in $TMPDIR, removed once judged; the folder goes at the end.
    @Test func nothingIsLeftInTheTemporaryFolder() throws {
        let tmp = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: tmp) }
        try FileManager.default.createDirectory(at: tmp, withIntermediateDirectories: true)
        let gate = try Gate([], environment: ["TMPDIR": tmp.path])
        let private_ = try #require(Paths.contents(of: tmp).first, "the private folder")
        #expect(private_.hasPrefix("notti-media-serve-"))
        for path in ["/media/logo.png", "/media/photo.jpg", "/media/spinner.gif"] {
            #expect(try Self.ask(gate.port, path: mediaPath("/u/tmp-\(UUID().uuidString.prefix(8))\(path)")).status == 200)
        }
        let payload = #"{"aps": {"mutable-content": 1, "alert": "a"}, "notti_image_url": "\#(media.url("/u/tmp-post/media/logo.png"))"}"#
        let checked = try Self.ask(gate.port, "POST", path: "/v1/check", body: Data(payload.utf8))
        #expect(checked.status == 200 && String(decoding: checked.body, as: UTF8.self).contains(#""passed":true"#))
        #expect(Paths.contents(of: tmp.appendingPathComponent(private_)).isEmpty, "each check's files go once judged")
        #expect(gate.stop().status == 0)
        #expect(Paths.contents(of: tmp).isEmpty, "\(Paths.contents(of: tmp))")
    }

    /// A credentials file must be a regular file (a link to one is fine); the cache's folder for files must be a folder.
    @Test func aFIFOOrADeviceIsNoCredentialAndALinkIsNoCacheFolder() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let fifo = folder.appendingPathComponent("token-fifo").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let refused = try CLI.run(["serve", "--listen", "127.0.0.1:0", "--token", fifo])
        #expect(refused.status == 2 && refused.stderr.contains("--token: \(fifo) is not a regular file"), "\(refused.stderr)")
        #expect(try CLI.run(["serve", "--listen", "127.0.0.1:0", "--basic-auth", "/dev/zero"]).status == 2)
        let elsewhere = folder.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        let cache = folder.appendingPathComponent("cache")
        try FileManager.default.createDirectory(at: cache, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: cache.appendingPathComponent("notti-media-attachments").path, withDestinationPath: elsewhere.path)
        let linked = try CLI.run(["serve", "--listen", "127.0.0.1:0", "--cache", cache.path])
        #expect(linked.status == 2 && linked.stderr.contains("it is not a folder"), "\(linked.stderr)")
        #expect(Paths.contents(of: elsewhere).isEmpty)
        #expect(Paths.contents(of: cache) == ["notti-media-attachments"], "nothing made: \(Paths.contents(of: cache))")
    }

    @Test func anotherAddressThanLoopbackNeedsCredentials() throws {
        let result = try CLI.run(["serve", "--listen", "0.0.0.0:0"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("--listen 0.0.0.0:0 is not a loopback address: serving it needs --token FILE or --basic-auth FILE"))
        #expect(try CLI.run(["serve", "--listen", "localhost"]).status == 2)
        #expect(try CLI.run(["serve", "extra"]).status == 2)
    }

    // MARK: load and faults

    /// 200 concurrent asks for one URL nobody has asked for yet: one download (the test server counts its requests);
    /// those that arrive while it runs wait for it, the later ones find its verdict fresh.
    @Test func concurrentAsksForOneURLMakeOneDownload() throws {
        let gate = try Gate()
        let tag = "single-\(UUID().uuidString.prefix(8))"
        let path = mediaPath("/slow/1000/u/\(tag)/media/photo.jpg?cc=max-age%3D300")
        let port = gate.port
        let replies = Guarded([Int]())
        let threads = (0..<200).map { _ in Thread { replies.append((try? Self.ask(port, path: path).status) ?? -1) } }
        threads.forEach { $0.start() }
        let deadline = Date().addingTimeInterval(30)
        while replies.values.count < 200, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        #expect(replies.values.count == 200 && replies.values.allSatisfy { $0 == 200 }, "\(Set(replies.values))")
        let counts = try media.requestCounts()
        #expect(counts.filter { $0.key.contains(tag) }.values.reduce(0, +) == 1, "\(counts.filter { $0.key.contains(tag) })")
        _ = gate.stop()
    }

    /// Past `--queue` checks waiting or running, an ask that needs a check is refused (503), never answered with a guess.
    @Test func overTheQueueIs503() throws {
        let gate = try Gate(["--queue", "1", "--jobs", "1"])
        let slow = mediaPath("/slow/3000/u/queue-\(UUID().uuidString.prefix(8))/media/logo.png")
        let first = Guarded([Int]())
        let port = gate.port
        let thread = Thread { first.append((try? Self.ask(port, path: slow).status) ?? -1) }
        thread.start()
        Thread.sleep(forTimeInterval: 0.5)
        let refused = try Self.ask(gate.port, path: mediaPath("/u/other-\(UUID().uuidString.prefix(8))/media/logo.png"))
        #expect(refused.status == 503 && refused.headers["retry-after"] == "1", "\(refused.status)")
        while first.values.isEmpty { Thread.sleep(forTimeInterval: 0.1) }
        #expect(first.values == [200], "the check in flight still answers")
        _ = gate.stop()
    }

    /// A client sending its request a byte a second is dropped at --client-timeout; others are served meanwhile.
    @Test func aSlowClientIsDroppedAtTheClientTimeout() throws {
        let gate = try Gate(["--client-timeout", "2"])
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(gate.port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        let started = Date()
        var dropped: TimeInterval?
        for byte in Array("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaa\r\n".utf8) {
            var one = byte
            if send(socket, &one, 1, Int32(MSG_NOSIGNAL)) != 1 { dropped = Date().timeIntervalSince(started); break }
            if Date().timeIntervalSince(started) > 1 {
                #expect(try Self.ask(gate.port, path: "/healthz").status == 200, "others are served")
            }
            var probe: UInt8 = 0
            if recv(socket, &probe, 1, Int32(MSG_DONTWAIT)) == 0 { dropped = Date().timeIntervalSince(started); break }
            Thread.sleep(forTimeInterval: 1)
        }
        let seconds = try #require(dropped, "the slow client was never dropped")
        #expect(seconds >= 1.5 && seconds < 5, "\(seconds) s")
        _ = gate.stop()
    }

    /// The client timeout is for a client's own sending: a request received whole waits for its check however long it takes.
    @Test func aCheckLongerThanTheClientTimeoutIsStillAnswered() throws {
        let gate = try Gate(["--client-timeout", "1"])
        let reply = try Self.ask(gate.port, path: mediaPath("/slow/2500/u/long-\(UUID().uuidString.prefix(8))/media/logo.png"))
        #expect(reply.status == 200 && reply.json["verdict"] as? String == "pass", "\(reply.status)")
        _ = gate.stop()
    }

    /// A decoder that dies on a file costs that verdict (`undecodable_media`), not the server.
    @Test func aDecoderThatDiesCostsOneVerdict() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let dying = folder.appendingPathComponent("dying-decoder").path
        try "#!/bin/sh\nkill -SEGV $$\n".write(toFile: dying, atomically: true, encoding: .utf8)
        chmod(dying, 0o755)
        let gate = try Gate([], environment: ["NOTTI_MEDIA_DECODER": dying])
        let reply = try Self.ask(gate.port, path: mediaPath("/u/dies-\(UUID().uuidString.prefix(8))/media/photo.jpg", "platform=ios"))
        #expect(reply.status == 200 && reply.json["verdict"] as? String == "fail")
        let codes = ((reply.json["ios"] as? [String: Any])?["diagnostics"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
        #expect(codes.contains("undecodable_media"), "\(codes)")
        #expect(try Self.ask(gate.port, path: "/healthz").status == 200, "the server stays up")
        _ = gate.stop()
    }

    /// SIGTERM while a check runs: it stops accepting, the request in flight is answered, and the exit is 0.
    @Test func sigtermFinishesTheRequestInFlightAndExitsZero() throws {
        let gate = try Gate()
        let answer = Guarded([Int]())
        let port = gate.port
        let path = mediaPath("/slow/1500/u/term-\(UUID().uuidString.prefix(8))/media/logo.png")
        let thread = Thread { answer.append((try? Self.ask(port, path: path).status) ?? -1) }
        thread.start()
        Thread.sleep(forTimeInterval: 0.5)
        let (status, log) = gate.stop(SIGTERM)
        #expect(status == 0, "\(log)")
        #expect(answer.values == [200], "the request in flight completes")
        #expect(log.contains("notti-media serve: stopped"))
    }

    /// docs/serve.md's Braze snippet reads fields of the saved answer: each is in a real answer (Braze adds
    /// `__http_status_code__` itself), under the route and parameters the snippet asks.
    @Test func theBrazeSnippetReadsFieldsTheAnswerHas() throws {
        let doc = try String(contentsOf: Paths.packageRoot.appendingPathComponent("docs/serve.md"), encoding: .utf8)
        let snippet = try #require(doc.components(separatedBy: "```liquid\n").dropFirst().first?.components(separatedBy: "```").first)
        #expect(snippet.contains("/v1/media?url={{hero | url_param_escape}}&sdk=braze&platform=all"))
        #expect(snippet.contains(":save gate") && snippet.contains(":cache_max_age") && snippet.contains(":retry") && snippet.contains("abort_message"))
        let fields = Set(snippet.matches(of: /[ {(]gate\.([a-z_]+(?:\.[a-z_]+)?)/).map { String($0.1) }).subtracting(["__http_status_code__"])
        #expect(fields == ["verdict", "ios.reason", "android.reason"], "\(fields)")
        let gate = try Gate()
        let reply = try Self.ask(gate.port, path: mediaPath("/status/404", "sdk=braze&platform=all")).json
        for field in fields {
            let parts = field.split(separator: ".").map(String.init)
            let value: Any? = parts.count == 1 ? reply[parts[0]] : (reply[parts[0]] as? [String: Any])?[parts[1]]
            #expect(value as? String != nil, "\(field) in \(reply)")
        }
        #expect(reply["verdict"] as? String == "fail", "the snippet aborts on it")
        _ = gate.stop()
    }

    @Test func checkAndWarmAndMetrics() throws {
        let gate = try Gate()
        let tag = "warm-\(UUID().uuidString.prefix(8))"
        let picture = media.url("/u/\(tag)/media/photo.jpg?cc=max-age%3D600")
        let payload = #"{"aps": {"alert": "hi", "mutable-content": 1}, "notification_id": "n", "notti_image_url": "\#(media.url("/media/logo.png"))"}"#
        let braze = #"{"messages": {"apple_push": {"alert": "x", "asset_url": 7}}}"#
        let checked = try Self.ask(gate.port, "POST", path: "/v1/check", body: Data((payload + "\n" + braze + "\n").utf8))
        #expect(checked.status == 200)
        let lines = String(decoding: checked.body, as: UTF8.self).split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(lines.map { $0["index"] as? Int } == [0, 1, 1, nil])
        #expect(lines.prefix(3).map { $0["passed"] as? Bool } == [true, false, false])
        // The same records and summary as `check --format json` of the same lines (which names its source `-:N`,
        // and whose summary says when and how long it ran, and its operands).
        let checkRun = try CLI.run(["check", "--format", "json", "--cacert", Paths.testCA, "-"], stdin: payload + "\n" + braze + "\n")
        let checkLines = checkRun.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        // Apart from those, and what is not deterministic (timings) or names the run's folder (an attachment's file).
        func comparable(_ value: Any) -> Any {
            if let object = value as? [String: Any] {
                var kept: [String: Any] = [:]
                for (key, member) in object where !["source", "timings", "elapsedMs", "operands"].contains(key) {
                    if key == "url", (member as? String)?.hasPrefix("file://") == true { continue }
                    kept[key] = comparable(member)
                }
                return kept as NSDictionary
            }
            if let array = value as? [Any] { return array.map(comparable) as NSArray }
            return value
        }
        #expect(lines.count == checkLines.count && zip(lines, checkLines).allSatisfy { (comparable($0) as? NSDictionary) == (comparable($1) as? NSDictionary) },
                "\(lines.last ?? [:]) against \(checkLines.last ?? [:])")
        let summary = lines.last?["summary"] as? [String: Any]
        #expect(summary?["inputs"] as? Int == 2 && summary?["payloads"] as? Int == 3)
        #expect((summary?["platforms"] as? [String: [String: Int]])?["android"]?["failed"] == 1)
        #expect((summary?["diagnostics"] as? [String: Int])?["invalid_payload"] == 2)
        #expect((summary?["media"] as? [[String: Any]])?.count == 1)

        let warm = try Self.ask(gate.port, "POST", path: "/v1/warm", body: Data((picture + "\n" + payload + "\n").utf8))
        #expect(warm.status == 200 && warm.json["queued"] as? Int == 2, "\(warm.json)")
        var hit = false
        for _ in 0..<50 where !hit {
            Thread.sleep(forTimeInterval: 0.1)
            let reply = try Self.ask(gate.port, path: "/v1/media?url=\(Self.encoded(picture))")
            hit = (reply.json["cache"] as? [String: Any])?["hit"] as? Bool == true
        }
        #expect(hit, "a warmed URL's render-time ask is a cache hit")

        let metrics = try Self.ask(gate.port, path: "/metrics")
        #expect(metrics.status == 200 && metrics.headers["content-type"]?.hasPrefix("text/plain; version=0.0.4") == true)
        let parser = """
        import sys
        from prometheus_client.parser import text_string_to_metric_families
        names = {}
        for family in text_string_to_metric_families(sys.stdin.read()):
            for sample in family.samples:
                names[sample.name + str(sorted(sample.labels.items()))] = sample.value
        print(int(names["notti_media_cache_hits_total[]"]), int(names["notti_media_requests_total[('route', '/v1/check'), ('status', '200')]"]),
              int(names["notti_media_request_seconds_count[]"]) > 0, names["notti_media_heap_bytes[]"] >= float(sys.argv[1]))
        """
        // The heap in use is malloc's count: a sanitizer's allocator, which replaces glibc's, leaves it at 0.
        let leastHeap = CLI.sanitizer == nil ? 1024 * 1024 : 0
        let parsed = try CLI.run(executable: "/usr/bin/env", ["python3", "-c", parser, String(leastHeap)],
                                 stdin: String(decoding: metrics.body, as: UTF8.self))
        #expect(parsed.status == 0, "\(parsed.stderr)")
        #expect(parsed.stdout == "1 1 True True\n", "\(parsed.stdout)")
        _ = gate.stop()
    }
}

/// A value several test threads append to.
final class Guarded<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    var values: Value { lock.withLock { value } }
    func append<Element>(_ element: Element) where Value == [Element] { lock.withLock { value.append(element) } }
    func update(_ change: (inout Value) -> Void) { lock.withLock { change(&value) } }
}

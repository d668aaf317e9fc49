import Foundation
import Testing

/// `--cache FILE` (SPEC section 14): stored verdicts revalidated with the
/// server's validators, a 304 reusing verdict and file, never a different verdict.
@Suite struct CacheTests {
    let server = TestServer.shared

    private func conditional(_ path: String) throws -> Int {
        try server.requestCounts()["conditional:" + path] ?? 0
    }

    @Test func aSecondRunRevalidatesAndReusesTheVerdictAndFile() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // One attachment folder for every run: a 304 reuses the file the first run stored there.
        let options = ["--cache", folder.appendingPathComponent("verdicts.sqlite").path, "--out", folder.appendingPathComponent("out").path]
        let tag = UUID().uuidString
        let path = "/u/\(tag)/media/logo.png"
        let first = try ProcessRun.fetch(server.url(path + "?etag=%22v1%22"), options)
        #expect(first.media["cache"] as? String == "fetched")
        #expect(try conditional(path) == 0)
        let second = try ProcessRun.fetch(server.url(path + "?etag=%22v1%22"), options)
        #expect(second.media["cache"] as? String == "revalidated")
        #expect(try conditional(path) == 1, "If-None-Match was sent")
        #expect(second.outcome == first.outcome)
        #expect(second.media["sha256"] as? String == first.media["sha256"] as? String)
        #expect(second.attachments.first?["url"] as? String == first.attachments.first?["url"] as? String)
        #expect(second.diagnosticCodes == first.diagnosticCodes)
        // Last-Modified alone revalidates too (If-Modified-Since).
        let dated = "/u/\(tag)/media/photo.jpg"
        let query = "?lm=Mon,%2030%20Nov%202026%2006:00:00%20GMT"
        _ = try ProcessRun.fetch(server.url(dated + query), options)
        let again = try ProcessRun.fetch(server.url(dated + query), options)
        #expect(again.media["cache"] as? String == "revalidated")
    }

    @Test func withoutCacheNoRequestIsConditional() throws {
        let path = "/u/\(UUID().uuidString)/media/logo.png"
        for _ in 0..<2 {
            let run = try ProcessRun.fetch(server.url(path + "?etag=%22v1%22"))
            #expect(run.media["cache"] == nil, "no cache key without --cache")
        }
        #expect(try conditional(path) == 0)
    }

    @Test func changedMediaIsFetchedAndJudgedAgain() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let options = ["--cache", folder.appendingPathComponent("verdicts.sqlite").path, "--out", folder.appendingPathComponent("out").path]
        let key = UUID().uuidString
        let url = server.url("/versioned/\(key)")
        let first = try ProcessRun.fetch(url, options)
        #expect(first.media["sniffedMime"] as? String == "image/png")
        _ = try CLI.curl(server.url("/bump/\(key)"))
        let changed = try ProcessRun.fetch(url, options)
        #expect(changed.media["cache"] as? String == "fetched", "a new ETag: downloaded again")
        #expect(changed.media["sniffedMime"] as? String == "image/jpeg", "and judged again")
        let same = try ProcessRun.fetch(url, options)
        #expect(same.media["cache"] as? String == "revalidated")
        #expect(same.media["sniffedMime"] as? String == "image/jpeg")
    }

    @Test(arguments: ["garbage", "foreign", "newer"])
    func aCacheFileThatCannotBeUsedIsAWarningAndIsLeftAlone(kind: String) throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = folder.appendingPathComponent("cache.db")
        switch kind {
        case "garbage": try Data("this is not a database\n".utf8).write(to: cache)
        default:
            let sql = kind == "foreign"
                ? "CREATE TABLE accounts (id INTEGER);"
                : "CREATE TABLE notti_media_meta (key TEXT PRIMARY KEY, value TEXT); CREATE TABLE media (url TEXT); "
                    + "INSERT INTO notti_media_meta VALUES ('tool', 'notti-media'), ('schema', '99');"
            let made = try CLI.run(executable: "/usr/bin/env", ["python3", "-c", "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.executescript(sys.argv[2]); c.commit()", cache.path, sql])
            #expect(made.status == 0, "\(made.stderr)")
        }
        let before = try Data(contentsOf: cache)
        let run = try ProcessRun.fetch(server.url("/media/logo.png"), ["--cache", cache.path])
        #expect(run.result.status == 0)
        #expect(run.outcome == "attached", "the run goes on without the cache")
        #expect(run.result.stderr.contains("notti-media: warning: --cache: "), "\(run.result.stderr)")
        #expect(try Data(contentsOf: cache) == before, "never changed")
    }

    @Test func twoProcessesShareOneCacheFileAtOnce() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = folder.appendingPathComponent("shared.sqlite").path
        let tag = UUID().uuidString
        let lines = (0..<40).map { payload(url: server.url("/u/\(tag)/bytes/\(1000 + $0)")) }
        let input = folder.appendingPathComponent("campaign.jsonl")
        try Data(lines.joined(separator: "\n").utf8).write(to: input)
        let script = """
            for shard in 1 2; do
              "$NOTTI" check --shard $shard/2 --format json --jobs 8 --cache "$CACHE" --cacert "$CA" --out "$WORK/out" "$INPUT" > "$WORK/$shard.json" 2> "$WORK/$shard.err" &
            done
            wait
            cat "$WORK/1.err" "$WORK/2.err"
            """
        let both = try CLI.run(
            executable: "/bin/bash", ["-c", script],
            environment: ["NOTTI": CLI.binary, "CACHE": cache, "CA": Paths.testCA, "WORK": folder.path, "INPUT": input.path,
                          "XDG_CACHE_HOME": CLI.cacheHome.path])
        #expect(both.stdout.isEmpty, "no warning, no lock error: \(both.stdout)")
        // A third run revalidates every URL both wrote.
        let again = try CLI.run(["check", "--format", "json", "--cache", cache, "--cacert", Paths.testCA, "--out", folder.appendingPathComponent("out").path, input.path])
        let states = again.stdout.split(separator: "\n").dropLast().compactMap {
            (((try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any])?["media"] as? [String: Any])?["cache"] as? String
        }
        #expect(states.count == 40)
        #expect(states.allSatisfy { $0 == "revalidated" }, "\(Set(states))")
    }

    /// The binary names libsqlite3 among the libraries it needs, so dpkg-shlibdeps puts it in
    /// the package's Depends: a missing library is an error of the install, never a --cache
    /// that silently does nothing (SPEC 14). (It was loaded with dlopen, unseen by the packaging.)
    @Test func theBinaryNeedsSQLiteAsItNeedsLibcurl() throws {
        let dynamic = try CLI.run(executable: "/usr/bin/env", ["readelf", "-d", CLI.binary])
        #expect(dynamic.status == 0)
        #expect(dynamic.stdout.contains("Shared library: [libcurl.so.4]"))
        #expect(dynamic.stdout.contains("Shared library: [libsqlite3.so.0]"))
    }
}

/// SPEC 14: failing verdicts are kept too: a file that fails is not downloaded again while its validators hold.
@Suite struct FailingVerdictCacheTests {
    let server = TestServer.shared

    private func counts(_ path: String) throws -> (all: Int, conditional: Int) {
        let counts = try server.requestCounts()
        return (counts[path] ?? 0, counts["conditional:" + path] ?? 0)
    }

    private func options(_ folder: URL, _ extra: [String] = []) -> [String] {
        ["--cache", folder.appendingPathComponent("verdicts.sqlite").path, "--out", folder.appendingPathComponent("out").path] + extra
    }

    private func braze(_ url: String, type: String) -> String {
        #"{"aps": {"alert": "x", "mutable-content": 1}, "ab": {"att": {"url": "\#(url)", "type": "\#(type)"}}}"#
    }

    @Test func aFileIOSRefusesIsRevalidatedNotDownloadedAgain() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // 6,000,000 bytes of JPEG named mp3 by Braze: downloaded whole, then over iOS's 5 MiB for audio.
        let path = "/u/\(UUID().uuidString)/bytes/6000000"
        let text = braze(server.url(path), type: "mp3")
        let first = try ProcessRun.fetch("", options(folder, ["--sdk", "braze"]), payloadText: text)
        #expect(first.reason == "too_large")
        #expect(first.media["cache"] as? String == "fetched")
        let second = try ProcessRun.fetch("", options(folder, ["--sdk", "braze"]), payloadText: text)
        #expect(second.reason == "too_large")
        #expect(second.media["cache"] as? String == "revalidated")
        #expect(second.diagnosticCodes == first.diagnosticCodes)
        #expect(try counts(path) == (2, 1), "the second request was conditional and answered 304")
        #expect(Paths.contents(of: folder.appendingPathComponent("out")).isEmpty, "nothing a record names, nothing in --out")
        // The same bytes named jpg by a later payload: attached, from the bytes the cache kept.
        let attached = try ProcessRun.fetch("", options(folder, ["--sdk", "braze"]), payloadText: braze(server.url(path), type: "jpg"))
        #expect(attached.outcome == "attached")
        #expect(attached.media["cache"] as? String == "revalidated")
        #expect(attached.media["sha256"] as? String == first.media["sha256"] as? String)
        #expect(try counts(path) == (3, 2))
    }

    @Test func aDownloadRefusedForItsLengthIsRevalidatedToo() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // Notti's 10 MiB: a Content-Length of 11,000,000 is refused before the body.
        let path = "/u/\(UUID().uuidString)/bytes/11000000"
        let first = try ProcessRun.fetch(server.url(path), options(folder))
        #expect(first.reason == "too_large")
        let second = try ProcessRun.fetch(server.url(path), options(folder))
        #expect(second.reason == "too_large")
        #expect(second.media["cache"] as? String == "revalidated")
        #expect(try counts(path) == (2, 1))
    }
}

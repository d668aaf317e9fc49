import Foundation
import FoundationXML
import Testing

/// One diagnostic language (SPEC section 10): every finding printed for people
/// is `SOURCE: SEVERITY: CODE: MESSAGE`, in every command, escaped.
@Suite struct FindingLineTests {
    let server = TestServer.shared

    private func write(_ text: String, named name: String, in folder: URL) throws -> String {
        let url = folder.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    @Test func checkTextListsEveryFindingOfEveryPayloadInEachSourceForm() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let warned = payload(url: server.url("/media/photo.jpg?type=image/png"))
        let lines = try write(
            [warned, #"{"aps": {"alert": "x"}, "notti_image_url": }"#, payload(url: server.url("/status/404"))].joined(separator: "\n"),
            named: "campaign.jsonl", in: folder)
        let file = try write("{\n  \"aps\": [,]\n}", named: "broken.json", in: folder)
        let arguments = ["check", "--cacert", Paths.testCA, "--out", folder.appendingPathComponent("out").path, lines, file]
        let result = try CLI.run(arguments)
        let output = result.stdout.split(separator: "\n").map(String.init)
        let findings = Array(output.prefix { !$0.hasPrefix("checked ") })
        #expect(findings == [
            "\(lines):1: warning: type_mismatch: the bytes are image/jpeg but the Content-Type is image/png: without sniffing a device "
                + "would attach it as png, not jpg; serve it with Content-Type: image/jpeg",
            "\(lines):2:44: error: invalid_payload: unexpected '}': expected a JSON value; make the payload one JSON object, as sent to APNs",
            "\(lines):3: error: http_error: the server answered HTTP 404; fix the link, or make the server answer 200 with the media",
            "\(file):2:11: error: invalid_payload: unexpected ',': expected a JSON value; make the payload one JSON object, as sent to APNs",
        ], "a passing payload's warning is listed too: \(output)")
        #expect(result.status == 1)
        let errorsOnly = try CLI.run(arguments + ["--errors-only"])
        #expect(!errorsOnly.stdout.contains(": warning: "))
        #expect(errorsOnly.stdout.split(separator: "\n").filter { $0.contains(": error: ") }.count == 3)
    }

    @Test func processAndSniffSpeakTheSameLine() throws {
        let process = try CLI.run(["process", "-", "--cacert", Paths.testCA], stdin: payload(url: server.url("/media/badge.webp")))
        #expect(process.stderr.hasPrefix("-: warning: unsupported_type: the media is image/webp"))
        let sniff = try CLI.run(["sniff", Paths.medium("badge.webp")])
        let lines = sniff.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 2)
        #expect(lines[1].hasPrefix("\(Paths.medium("badge.webp")): warning: unsupported_type: the file is image/webp"))
    }

    @Test func controlCharactersFromFileNamesAndServersAreEscaped() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // A file name that would forge a line of its own, a terminal escape and a C1 control.
        _ = try write("1", named: "evil\nx.json: ok\u{1B}[2J\u{9B}.json", in: folder)
        let result = try CLI.run(["check", folder.path])
        #expect(result.stdout.hasPrefix("\(folder.path)/evil\\nx.json: ok\\u001b[2J\\u009b.json: error: invalid_payload: "), "\(result.stdout)")
        #expect(!result.stdout.contains("\u{1B}"))
        #expect(result.stdout.split(separator: "\n").count == 3, "one finding, the summary's two lines")
        // A server's Content-Type with ESC, echoed in a finding (Firebase names the file after it).
        let served = server.url("/file/logo.png/banner?type=image/png%1B%5B2J")
        let process = try CLI.run(
            ["process", "-", "--sdk", "fcm", "--cacert", Paths.testCA, "--out", folder.path],
            stdin: sdkPayload(#""fcm_options": {"image": "\#(served)"}"#))
        #expect(process.stderr.contains("names the file .png\\u001b[2j "), "\(process.stderr)")
        #expect(!process.stderr.contains("\u{1B}"))
    }

    @Test func junitCarriesWarningsInSystemOutAndTheSuiteItsTimeTimestampAndShard() throws {
        let lines = [payload(url: server.url("/media/photo.jpg?type=image/png")), payload(url: server.url("/status/404"))]
        let result = try CLI.run(
            ["check", "--format", "junit", "--shard", "1/1", "--cacert", Paths.testCA, "-"], stdin: lines.joined(separator: "\n"))
        let document = try XMLDocument(data: Data(result.stdout.utf8))
        let suite = try #require(try document.nodes(forXPath: "//testsuite").first as? XMLElement)
        #expect(suite.attribute(forName: "name")?.stringValue == "notti-media check (shard 1/1)")
        #expect(Double(suite.attribute(forName: "time")?.stringValue ?? "") != nil)
        let timestamp = suite.attribute(forName: "timestamp")?.stringValue ?? ""
        #expect(timestamp.range(of: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$"#, options: .regularExpression) != nil, "\(timestamp)")
        let cases = try document.nodes(forXPath: "//testcase").compactMap { $0 as? XMLElement }
        #expect(cases.count == 2)
        let warned = try #require(cases.first)
        #expect(warned.elements(forName: "failure").isEmpty, "a warning does not fail the payload")
        #expect(warned.elements(forName: "system-out").first?.stringValue?.hasPrefix("-:1: warning: type_mismatch: ") == true)
        let failed = try #require(cases.last?.elements(forName: "failure").first)
        #expect(failed.attribute(forName: "type")?.stringValue == "http_error")
        #expect(failed.stringValue?.hasPrefix("-:2: error: http_error: ") == true)
    }

    @Test(arguments: [
        (["check", "-", "--timout", "5"], "unknown option '--timout' for check: did you mean '--timeout'?"),
        (["check", "-", "--jbos", "2"], "did you mean '--jobs'?"),
        (["chekc", "-"], "unknown command 'chekc': did you mean 'check'?"),
        (["process", "-", "--max-bytes", "10X"], "--max-bytes expects N, a whole number of bytes greater than 0"),
    ])
    func mistypesSaySoAndSuggest(arguments: [String], message: String) throws {
        let result = try CLI.run(arguments)
        #expect(result.status == 2)
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }

    @Test(arguments: [("1500", 1500), ("2K", 2048), ("10M", 10_485_760), ("10MiB", 10_485_760), ("10MB", 10_000_000)])
    func maxBytesTakesSizeSuffixes(text: String, bytes: Int) throws {
        let result = try CLI.run(["process", "-", "--report", "--max-bytes", text], stdin: payload(url: "http://cdn.example.com/a.png"))
        let limits = (result.json["media"] as? [String: Any])?["limits"] as? [String: Any]
        #expect(limits?["maxBytes"] as? Int == bytes)
    }

    @Test func versionNamesTheLibrariesItRunsOn() throws {
        let result = try CLI.run(["--version"])
        #expect(result.stdout.range(of: #"^notti-media \d+\.\d+\.\d+ \(libcurl \d+\.\d+\.\d+, libmagic \d+\.\d+\)\n$"#, options: .regularExpression) != nil,
                "\(result.stdout)")
    }
}

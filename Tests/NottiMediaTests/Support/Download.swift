import Foundation
import Testing

/// One `notti-media process --report` run against the test server, with what
/// was left in its `--out` folder.
struct ProcessRun {
    var result: CLI.Result
    var report: [String: Any]
    /// Every name in the `--out` folder afterwards, hidden partial files included.
    var filesLeft: [String]
    var outFolder: URL

    var reason: String? { report["reason"] as? String }
    var outcome: String? { report["outcome"] as? String }
    var media: [String: Any] { report["media"] as? [String: Any] ?? [:] }
    var diagnosticCodes: [String] {
        (report["diagnostics"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
    }
    var attachments: [[String: Any]] {
        ((report["content"] as? [String: Any])?["attachments"] as? [[String: Any]]) ?? []
    }

    /// Runs a payload pointing at `url`; `--cacert` trusts the test CA. The
    /// `--out` folder is a new one, or the caller's own `--out` among `extraArguments`
    /// (shared by runs): either way it must hold, afterwards, what it held before
    /// plus exactly the files the report names.
    static func fetch(_ url: String, _ extraArguments: [String] = [], payloadText: String? = nil) throws -> ProcessRun {
        let given = extraArguments.firstIndex(of: "--out").map { URL(fileURLWithPath: extraArguments[$0 + 1]) }
        let out = given ?? Paths.temporaryFolder()
        defer { if given == nil { try? FileManager.default.removeItem(at: out) } }
        let before = Set(Paths.contents(of: out))
        let result = try CLI.run(
            ["process", "-", "--report", "--cacert", Paths.testCA] + (given == nil ? ["--out", out.path] : []) + extraArguments,
            stdin: payloadText ?? payload(url: url))
        OutFolder.expectHoldsExactly(out, namedBy: [result.json], before: before)
        return ProcessRun(result: result, report: result.json, filesLeft: Paths.contents(of: out), outFolder: out)
    }
}

import Foundation

/// Where the package's files are, found from this source file's location.
enum Paths {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    static let fixtures = packageRoot.appendingPathComponent("Tests/Fixtures")
    static let media = fixtures.appendingPathComponent("media")
    static let testCA = packageRoot.appendingPathComponent("Tests/Support/tls/test-ca.pem").path
    static let serverScript = packageRoot.appendingPathComponent("Tests/Support/https_server.py").path

    static func medium(_ name: String) -> String { media.appendingPathComponent(name).path }
    /// A file under Tests/Fixtures, e.g. `decode/rotated-6.jpg`.
    static func fixture(_ relative: String) -> String { fixtures.appendingPathComponent(relative).path }

    /// The file's SHA-256 in hex, by coreutils' sha256sum (what the tool names content by).
    static func sha256(ofFile path: String) throws -> String {
        let result = try CLI.run(executable: "/usr/bin/sha256sum", [path])
        return String(result.stdout.prefix(64))
    }

    /// A new empty folder, removed by the caller's `defer`.
    static func temporaryFolder() -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("notti-media-tests-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Names in `folder`, hidden ones (partial downloads) included, sorted.
    static func contents(of folder: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
    }
}

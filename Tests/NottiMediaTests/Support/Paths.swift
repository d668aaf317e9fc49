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

    /// A new empty folder, removed by the caller's `defer`; made inside this test process's own folder,
    /// which goes when the process exits, so a folder a test keeps (a failure, a `--out` it asserts) is not
    /// left in the system's temporary folder (a full run left about 150 there).
    static func temporaryFolder() -> URL {
        let url = processFolder.appendingPathComponent(UUID().uuidString)
        try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// The tools' `TMPDIR` unless a test sets its own: a tool killed by a test (SIGKILL leaves its empty
    /// `mkdtemp` folder, SPEC 9) leaves it inside this process's folder, not in the system's.
    static let toolsTemporaryFolder: URL = {
        let url = processFolder.appendingPathComponent("tmp")
        try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        chmod(url.path, 0o1777)  // as /tmp is: the tests that run the tool unprivileged make their folders here too
        return url
    }()

    private static let processFolder: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("notti-media-tests-\(getpid())-\(UUID().uuidString.prefix(8))")
        try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        atexit { removeProcessFolder() }
        return url
    }()

    private static func removeProcessFolder() {
        // A test may leave a folder unwritable (a full or read-only output); it is made writable to be removed.
        let manager = FileManager.default
        if let walker = manager.enumerator(atPath: processFolder.path) {
            while let relative = walker.nextObject() as? String {
                chmod(processFolder.appendingPathComponent(relative).path, 0o700)
            }
        }
        try? manager.removeItem(at: processFolder)
    }

    /// Names in `folder`, hidden ones (partial downloads) included, sorted.
    static func contents(of folder: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
    }
}

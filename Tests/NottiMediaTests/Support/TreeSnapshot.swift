import Foundation

/// Everything under a folder, as a user would check it had not changed: each
/// entry's relative path, kind, size, mode and modification time, and a link's target.
struct TreeSnapshot: Equatable, CustomStringConvertible {
    var entries: [String: String]

    init(_ folder: URL) {
        var entries: [String: String] = [:]
        func visit(_ path: String, _ relative: String) {
            var info = stat()
            guard lstat(path, &info) == 0 else { return }
            let kind = info.st_mode & S_IFMT
            var line = "mode \(String(info.st_mode, radix: 8)) size \(info.st_size) mtime \(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
            if kind == S_IFLNK, let target = try? FileManager.default.destinationOfSymbolicLink(atPath: path) {
                line += " -> \(target)"
            }
            if !relative.isEmpty { entries[relative] = line }
            guard kind == S_IFDIR, let names = try? FileManager.default.contentsOfDirectory(atPath: path) else { return }
            for name in names { visit(path + "/" + name, relative.isEmpty ? name : relative + "/" + name) }
        }
        visit(folder.path, "")
        self.entries = entries
    }

    var description: String {
        entries.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: "\n")
    }
}

/// Running the binary as a user who cannot write where root can: `setpriv` to
/// `nobody` when the tests run as root, the tests' own user otherwise.
enum Unprivileged {
    static let uid: uid_t = 65534

    /// True when the binary can be run as a user for whom permissions hold.
    static let available: Bool = {
        guard geteuid() == 0 else { return true }
        let probe = try? CLI.run(executable: "/usr/bin/setpriv", wrap(["--version"]))
        return probe?.status == 0
    }()

    /// The arguments for `/usr/bin/setpriv` that run the binary as `nobody` (as root),
    /// or nil when the tests already run unprivileged.
    static func wrap(_ arguments: [String]) -> [String] {
        ["--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", "--", readable.binary] + arguments
    }

    /// The binary and the test CA, copied into a world-readable folder: the
    /// checkout may sit in a folder only its owner can enter (a 0700 home, a
    /// `mktemp -d`), where `nobody` can neither run the one nor read the other.
    static let readable: (binary: String, testCA: String) = {
        let folder = Paths.temporaryFolder()
        chmod(folder.path, 0o755)
        let binary = folder.appendingPathComponent("notti-media").path
        let ca = folder.appendingPathComponent("test-ca.pem").path
        // The decode worker beside it: without it the tool refuses to run (SPEC 17).
        let worker = folder.appendingPathComponent("notti-media-decode").path
        try! FileManager.default.copyItem(atPath: CLI.binary, toPath: binary)
        try! FileManager.default.copyItem(atPath: CLI.binary + "-decode", toPath: worker)
        try! FileManager.default.copyItem(atPath: Paths.testCA, toPath: ca)
        chmod(binary, 0o755)
        chmod(worker, 0o755)
        chmod(ca, 0o644)
        return (binary, ca)
    }()

    /// Runs `notti-media arguments...` unprivileged (the test CA read from its readable copy).
    static func run(_ arguments: [String], stdin: String? = nil, environment: [String: String]) throws -> CLI.Result {
        if geteuid() != 0 { return try CLI.run(arguments, stdin: stdin, environment: environment) }
        let arguments = arguments.map { $0 == Paths.testCA ? readable.testCA : $0 }
        return try CLI.run(executable: "/usr/bin/setpriv", wrap(arguments), stdin: stdin, environment: environment)
    }

    /// A folder the unprivileged user can write in.
    static func writableFolder() -> URL {
        let folder = Paths.temporaryFolder()
        if geteuid() == 0 { chown(folder.path, uid, uid) }
        return folder
    }

    /// A folder the unprivileged user can read but not write in, after `fill` put files in it.
    static func readOnlyFolder(_ fill: (URL) throws -> Void = { _ in }) rethrows -> URL {
        let folder = Paths.temporaryFolder()
        try fill(folder)
        chmod(folder.path, 0o555)
        return folder
    }

    /// Makes `folder` removable again and removes it.
    static func remove(_ folder: URL) {
        chmod(folder.path, 0o755)
        try? FileManager.default.removeItem(at: folder)
    }

    /// Runs the binary as the unprivileged user beside a read-only folder (its files put
    /// there by `fill`), with a cache home of its own; `command` makes the arguments and
    /// environment from the folder. Both folders are removed afterwards.
    /// - Returns: the run, the read-only folder's path, and whether that folder is exactly as it was.
    static func runBesideReadOnlyFolder(
        _ fill: (URL) throws -> Void, stdin: String?, _ command: (URL) -> (arguments: [String], environment: [String: String])
    ) throws -> (result: CLI.Result, folder: String, unchanged: Bool) {
        let folder = try readOnlyFolder(fill)
        defer { remove(folder) }
        let cache = writableFolder()
        defer { try? FileManager.default.removeItem(at: cache) }
        let before = TreeSnapshot(folder)
        let (arguments, environment) = command(folder)
        let result = try run(arguments, stdin: stdin, environment: ["XDG_CACHE_HOME": cache.path].merging(environment) { $1 })
        return (result, folder.path, TreeSnapshot(folder) == before)
    }
}

import Glibc

/// A build of the team's own app (SPEC 22): its facts and the findings they give, read from the file or
/// folder a build produces.
package struct AppBuild: Sendable {
    /// The build as the user named it: every finding's source.
    package let path: String
    package let facts: IOSBuild
    package let findings: [Diagnostic]

    /// Exit 1 for `notti-media app` when a build has an error.
    package var failed: Bool { findings.contains { $0.severity == .error } }

    /// SPEC 22's object: the build's file, its facts, its findings.
    package var json: JSONValue {
        .object([JSONMember("file", .string(path))] + facts.json + [JSONMember("diagnostics", .array(findings.map(\.json)))])
    }

    /// Reads the build at `path`: an `.ipa`, an `.xcarchive` or `.app` folder.
    /// - Throws: `BuildError` for what is none of these, a damaged one, or an entry named outside it.
    package static func read(_ path: String) throws(BuildError) -> AppBuild {
        let (files, app) = try open(path)
        let facts = try IOSBuildReader(files: files, app: app).read()
        return AppBuild(path: path, facts: facts, findings: BuildFindings.of(facts, app: app))
    }

    /// The build's files and the app bundle's folder among them.
    private static func open(_ path: String) throws(BuildError) -> (BuildFiles, String) {
        var facts = stat()
        guard stat(path, &facts) == 0 else { throw BuildError("\(path): cannot read it (\(String(cString: strerror(errno))))") }
        switch facts.st_mode & S_IFMT {
        case S_IFDIR: return try folder(path)
        case S_IFREG: return try archive(path)
        default: throw BuildError("\(path): not a build: neither a regular file (.ipa) nor a folder (.app, .xcarchive)")
        }
    }

    private static func folder(_ path: String) throws(BuildError) -> (BuildFiles, String) {
        let trimmed = path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
        if trimmed.hasSuffix(".app") { return (try FolderBuild(root: trimmed, name: path), "") }
        guard trimmed.hasSuffix(".xcarchive") else {
            throw BuildError("\(path): a folder that is neither an .app bundle nor an .xcarchive")
        }
        let files = try FolderBuild(root: trimmed, name: path)
        return (files, try onlyApp(in: "Products/Applications", of: files))
    }

    private static func archive(_ path: String) throws(BuildError) -> (BuildFiles, String) {
        let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { throw BuildError("\(path): cannot open it (\(String(cString: strerror(errno))))") }
        var facts = stat()
        var magic = [UInt8](repeating: 0, count: 4)
        guard fstat(descriptor, &facts) == 0, facts.st_mode & S_IFMT == S_IFREG, pread(descriptor, &magic, 4, 0) >= 0 else {
            close(descriptor)
            throw BuildError("\(path): cannot read it as a regular file")
        }
        guard Int(facts.st_size) <= ZipBuild.maxArchiveBytes else {
            close(descriptor)
            throw BuildError("\(path): \(facts.st_size) bytes, more than the 2 GiB a build may be (SPEC 22)")
        }
        // A zip archive starts with a local file header (or, empty, with its end record).
        guard magic == [0x50, 0x4B, 0x03, 0x04] || magic == [0x50, 0x4B, 0x05, 0x06] else {
            close(descriptor)
            throw BuildError("\(path): not a build: an .ipa is a zip archive, and this is none")
        }
        let files = try ZipBuild(descriptor: descriptor, name: path)
        if files.contains("AndroidManifest.xml") || files.contains("base/manifest/AndroidManifest.xml") {
            throw BuildError("\(path): an Android build (.apk or .aab): this version reads iOS builds only (.ipa, .app, .xcarchive)")
        }
        return (files, try onlyApp(in: "Payload", of: files))
    }

    /// The one `NAME.app` folder in `folder`.
    private static func onlyApp(in folder: String, of files: BuildFiles) throws(BuildError) -> String {
        let apps = files.children(of: folder).filter { $0.hasSuffix(".app") }
        guard apps.count == 1 else {
            throw BuildError("\(files.name): " + (apps.isEmpty ? "no \(folder)/NAME.app/ in it: not an iOS build"
                : "\(apps.count) apps in \(folder)/ (\(apps.joined(separator: ", "))): a build holds one"))
        }
        return folder + "/" + apps[0]
    }
}

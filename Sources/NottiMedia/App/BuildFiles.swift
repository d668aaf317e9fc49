/// Why a build cannot be read (SPEC 22): one line naming the file and what is wrong; the command exits 2.
/// The message holds names as the build wrote them: the command escapes it as it prints it.
package struct BuildError: Error, Sendable, Equatable {
    package let message: String
    package init(_ message: String) { self.message = message }
}

/// The files of a build, read where they are: an archive's entries (never unpacked to disk) or a folder's
/// files. Paths are relative and `/`-separated (`Payload/App.app/Info.plist`); every one was checked when the
/// build was opened, so none leaves it.
package protocol BuildFiles: AnyObject {
    /// The build file or folder, as the user named it: what every message names.
    var name: String { get }
    /// Every file's path (folders are the prefixes of these).
    var paths: [String] { get }
    /// At most `count` bytes of the file at `path`, from `offset` (fewer at its end); nil when there is no such file.
    func bytes(of path: String, from offset: Int, count: Int) throws(BuildError) -> [UInt8]?
    /// The file's size in bytes, as the build records it; nil when there is no such file.
    func size(of path: String) -> Int?
}

extension BuildFiles {
    /// The whole file at `path`, which may be at most `limit` bytes; nil when there is no such file.
    /// - Throws: `BuildError` for a larger file (said in words: `what`, e.g. "a property list").
    package func whole(_ path: String, limit: Int, what: String) throws(BuildError) -> [UInt8]? {
        guard let size = size(of: path) else { return nil }
        guard size <= limit else {
            throw BuildError("\(name): \(path) is \(size) bytes, more than \(what) may be (\(limit))")
        }
        guard let bytes = try bytes(of: path, from: 0, count: limit + 1) else { return nil }
        // An archive's entry that inflates past the size it declares (a zip bomb) is damaged, not read on.
        guard bytes.count <= limit else {
            throw BuildError("\(name): \(path) holds more than the \(size) bytes it declares: the archive is damaged")
        }
        return bytes
    }

    /// The names directly inside folder `folder` (`Payload` gives `App.app`), sorted, each once.
    package func children(of folder: String) -> [String] {
        let prefix = folder.isEmpty ? "" : folder + "/"
        var names = Set<String>()
        for path in paths where path.hasPrefix(prefix) {
            let rest = path.dropFirst(prefix.count)
            guard let first = rest.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: true).first else { continue }
            names.insert(String(first))
        }
        return names.sorted()
    }
}

/// What every path of a build must be: relative, with no `..`, no empty or `.` component, no NUL or backslash
/// (a Windows separator), so that none names anything outside the build, whatever reads it.
enum BuildPath {
    /// nil when `path` is acceptable; else why not, in words.
    static func problem(_ path: String) -> String? {
        if path.hasPrefix("/") { return "an absolute path" }
        if path.utf8.contains(0) || path.contains("\\") { return "a NUL or backslash in its name" }
        let components = path.split(separator: "/", omittingEmptySubsequences: false)
        for (index, component) in components.enumerated() {
            if component == ".." { return "a '..' component" }
            // A folder's own entry ends with `/`: its one empty component is the last.
            if component.isEmpty && index != components.count - 1 || component == "." { return "an empty or '.' component" }
        }
        return nil
    }
}

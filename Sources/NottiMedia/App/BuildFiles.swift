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
    /// Whether the build has a file at `path`.
    func contains(_ path: String) -> Bool
}

extension BuildFiles {
    /// The whole file at `path`, which may be at most `limit` bytes; nil when there is no such file.
    /// - Throws: `BuildError` for a larger file (said in words: `what`, e.g. "a property list").
    package func whole(_ path: String, limit: Int, what: String) throws(BuildError) -> [UInt8]? {
        guard let size = size(of: path) else { return nil }
        guard size <= limit else {
            throw BuildError("\(name): \(path) is \(size) bytes, more than \(what) may be (\(limit))")
        }
        // One byte past the size it declares: an archive's entry that inflates further (a zip bomb) is damaged,
        // not read on. (Asked for its limit, each read zeroed 8 MiB: 31 MiB and 60 ms for a 200 MB .ipa.)
        guard let bytes = try bytes(of: path, from: 0, count: size + 1) else { return nil }
        guard bytes.count <= size else {
            throw BuildError("\(name): \(path) holds more than the \(size) bytes it declares: the archive is damaged")
        }
        return bytes
    }

    /// The names directly inside folder `folder` (`Payload` gives `App.app`), sorted, each once.
    package func children(of folder: String) -> [String] {
        let prefix = Array((folder.isEmpty ? "" : folder + "/").utf8)
        var names = Set<String>()
        // Compared as bytes: a build lists thousands of files, and String's prefix test decodes each.
        for path in paths where path.utf8.starts(with: prefix) {
            let name = path.utf8.dropFirst(prefix.count).prefix { $0 != UInt8(ascii: "/") }
            if !name.isEmpty { names.insert(String(Substring(name))) }
        }
        return names.sorted()
    }
}

/// What every path of a build must be: relative, with no `..`, no empty or `.` component, no NUL or backslash
/// (a Windows separator), so that none names anything outside the build, whatever reads it.
enum BuildPath {
    /// nil when `path` is acceptable; else why not, in words.
    static func problem(_ path: String) -> String? {
        // One pass over the bytes, a component at a time: an archive holds thousands of names.
        let bytes = path.utf8
        if bytes.first == UInt8(ascii: "/") { return "an absolute path" }
        var length = 0, dots = 0, index = 0
        for byte in bytes {
            index += 1
            switch byte {
            case 0, UInt8(ascii: "\\"): return "a NUL or backslash in its name"
            case UInt8(ascii: "/"):
                if length == 2 && dots == 2 { return "a '..' component" }
                if length == 0 || length == 1 && dots == 1 { return "an empty or '.' component" }
                length = 0
                dots = 0
            default:
                length += 1
                if byte == UInt8(ascii: ".") { dots += 1 }
            }
        }
        // The last component (empty after a folder's own trailing `/`).
        if length == 2 && dots == 2 { return "a '..' component" }
        if length == 1 && dots == 1 { return "an empty or '.' component" }
        return nil
    }
}

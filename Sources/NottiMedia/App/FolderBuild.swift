import Glibc

/// An `.app` or `.xcarchive` folder (SPEC 22), walked once without following links. A link or anything that is
/// not a regular file is listed but refused when read, so no build can make the tool read outside it.
package final class FolderBuild: BuildFiles {
    package let name: String
    package let paths: [String]
    private let root: String
    private let listed: Set<String>
    /// Paths that are not regular files (links, devices, pipes): why each is refused, in words.
    private let refused: [String: String]

    /// The most files walked, and the deepest folder: a build holds thousands, a few levels deep.
    static let maxFiles = 1_000_000
    static let maxDepth = 64

    /// - Throws: `BuildError` when the folder cannot be walked, or holds more than `maxFiles` or deeper folders.
    package init(root: String, name: String) throws(BuildError) {
        self.root = root
        self.name = name
        var paths: [String] = []
        var refused: [String: String] = [:]
        try Self.walk(root, relative: "", depth: 0, name: name, into: &paths, refused: &refused)
        self.paths = paths.sorted()
        self.listed = Set(paths)
        self.refused = refused
    }

    private static func walk(_ folder: String, relative: String, depth: Int, name: String,
                             into paths: inout [String], refused: inout [String: String]) throws(BuildError) {
        guard depth <= maxDepth else { throw BuildError("\(name): folders nested deeper than \(maxDepth) at \(relative)") }
        guard let directory = opendir(folder) else {
            throw BuildError("\(name): cannot read the folder \(relative.isEmpty ? "itself" : relative) (\(String(cString: strerror(errno))))")
        }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            let entryName = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            if entryName == "." || entryName == ".." { continue }
            let full = folder + "/" + entryName
            let path = relative.isEmpty ? entryName : relative + "/" + entryName
            var facts = stat()
            guard lstat(full, &facts) == 0 else { continue }
            switch facts.st_mode & S_IFMT {
            case S_IFDIR:
                try walk(full, relative: path, depth: depth + 1, name: name, into: &paths, refused: &refused)
                continue
            case S_IFREG: break
            case S_IFLNK: refused[path] = "a symbolic link"
            default: refused[path] = "not a regular file"
            }
            paths.append(path)
            guard paths.count <= maxFiles else { throw BuildError("\(name): more than \(maxFiles) files") }
        }
    }

    package func contains(_ path: String) -> Bool { listed.contains(path) }

    package func size(of path: String) -> Int? {
        guard refused[path] == nil else { return 0 }
        var facts = stat()
        guard lstat(root + "/" + path, &facts) == 0, facts.st_mode & S_IFMT == S_IFREG else { return nil }
        return Int(facts.st_size)
    }

    package func bytes(of path: String, from offset: Int, count: Int) throws(BuildError) -> [UInt8]? {
        if let why = refused[path] { throw BuildError("\(name): \(path) is \(why), not a file: refused, nothing read") }
        // O_NOFOLLOW and O_NONBLOCK: a file swapped for a link or a pipe since the walk is refused, never waited on.
        let descriptor = open(root + "/" + path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT { return nil }
            throw BuildError("\(name): cannot open \(path) (\(String(cString: strerror(errno))))")
        }
        defer { close(descriptor) }
        var facts = stat()
        guard fstat(descriptor, &facts) == 0, facts.st_mode & S_IFMT == S_IFREG else {
            throw BuildError("\(name): \(path) is not a regular file: refused, nothing read")
        }
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let got = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress! + filled, count - filled, off_t(offset + filled)) }
            if got < 0 && errno == EINTR { continue }
            guard got >= 0 else { throw BuildError("\(name): cannot read \(path) (\(String(cString: strerror(errno))))") }
            if got == 0 { break }
            filled += got
        }
        bytes.removeSubrange(filled...)
        return bytes
    }
}

import Glibc

/// Paths, file URLs and folders on Glibc alone.
///
/// The library and the tool do not load Foundation: its static copy made the
/// binary 8 MB larger and a run 2 MB larger in memory, for the handful of path
/// operations below.
package enum FilePaths {
    /// `path` made absolute against the working folder, `.` and `..` kept as written.
    package static func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return path }
        let folder = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return folder.hasSuffix("/") ? folder + path : folder + "/" + path
    }

    /// `path` made absolute, with `.`, `..` and repeated slashes resolved by
    /// name (links are not followed), and no trailing slash: `out/../a/` in
    /// `/w` is `/w/a`.
    package static func standardized(_ path: String) -> String {
        var components: [Substring] = []
        for component in absolute(path).split(separator: "/", omittingEmptySubsequences: true) {
            switch component {
            case ".": continue
            case "..": _ = components.popLast()
            default: components.append(component)
            }
        }
        return "/" + components.joined(separator: "/")
    }

    /// The last component: `a.png` for `/m/a.png` (and for `/m/a.png/`).
    package static func lastComponent(_ path: String) -> String {
        let trimmed = path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
        guard let slash = trimmed.lastIndex(of: "/") else { return trimmed }
        return String(trimmed[trimmed.index(after: slash)...])
    }

    /// The folder holding `path`: `/m` for `/m/a.png`, `/` for `/a.png`.
    package static func parent(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// `path` without the extension of its last component: `/m/report` for `/m/report.html`.
    package static func deletingExtension(_ path: String) -> String {
        let name = lastComponent(path)
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return path }
        return String(path.dropLast(name.distance(from: dot, to: name.endIndex)))
    }

    /// The `file://` URL of an absolute path, each byte outside RFC 3986's path
    /// characters percent-encoded: `/m/a b.png` is `file:///m/a%20b.png`.
    package static func fileURL(_ absolutePath: String) -> String {
        var encoded = "file://"
        for byte in absolutePath.utf8 {
            if isPathCharacter(byte) {
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                let hex = Array("0123456789ABCDEF".utf8)
                encoded.unicodeScalars.append("%")
                encoded.unicodeScalars.append(Unicode.Scalar(hex[Int(byte >> 4)]))
                encoded.unicodeScalars.append(Unicode.Scalar(hex[Int(byte & 0xF)]))
            }
        }
        return encoded
    }

    /// unreserved, sub-delims, ":", "@" and "/" (RFC 3986, 3.3).
    private static func isPathCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            "-._~!$&'()*+,;=:@/".utf8.contains(byte)
        }
    }

    /// Makes `path` and its missing parents (as `mkdir -p`), each with `mode`
    /// less the umask.
    /// - Returns: nil when `path` is a folder afterwards, else the errno.
    package static func makeFolders(_ path: String, mode: mode_t) -> Errno? {
        var prefix = ""
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            prefix += "/" + component
            if mkdir(prefix, mode) != 0 && errno != EEXIST { return Errno(errno) }
        }
        var info = stat()
        guard stat(path, &info) == 0 else { return Errno(errno) }
        return info.st_mode & S_IFMT == S_IFDIR ? nil : Errno(ENOTDIR)
    }

    /// The names in `folder` (not `.` and `..`), in the order the folder gives them.
    /// - Throws: the errno when the folder cannot be opened.
    package static func contents(ofFolder folder: String) throws(Errno) -> [String] {
        guard let stream = opendir(folder) else { throw Errno(errno) }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// The whole of the file at `path`.
    /// - Throws: the errno when it cannot be opened or read.
    package static func bytes(ofFileAt path: String) throws(Errno) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw Errno(errno) }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var block = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = block.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count < 0 { throw Errno(errno) }
            guard count > 0 else { return bytes }
            bytes += block[..<count]
        }
    }

    /// Gives the bytes at `source` a second name, `target`: a hard link, or a copy
    /// (`copyFile`) where the two cannot share an inode (another file system, a
    /// folder that refuses links). The one way the tool places a file by content
    /// hash: a regular file already at `target` holds the same bytes and is kept;
    /// a link, folder or device there is never written through nor replaced.
    /// - Throws: the errno; `EEXIST` when something other than a regular file has the name.
    package static func linkOrCopy(from source: String, to target: String, ownedPaths: OwnedPaths = .run) throws(Errno) {
        // AT_SYMLINK_FOLLOW: a working file with no name is linked through its /proc/self/fd/N.
        if linkat(AT_FDCWD, source, AT_FDCWD, target, AT_SYMLINK_FOLLOW) == 0 { return }
        let failure = errno
        if failure == EEXIST {
            var existing = stat()
            if lstat(target, &existing) == 0, existing.st_mode & S_IFMT == S_IFREG { return }
            throw Errno(EEXIST)
        }
        guard failure == EXDEV || failure == EPERM || failure == EMLINK || failure == EOPNOTSUPP else { throw Errno(failure) }
        try copyFile(from: source, to: target, ownedPaths: ownedPaths)
    }

    /// Copies the file at `source` to a new file `target` (mode 0644 less the
    /// umask). `target` must not exist: it is created exclusively and tracked in
    /// `ownedPaths` until the copy is complete, so a copy that fails half way,
    /// or a run a signal stops mid-copy, removes it, and nothing else.
    /// - Throws: the errno of the first failing call.
    package static func copyFile(from source: String, to target: String, ownedPaths: OwnedPaths = .run) throws(Errno) {
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw Errno(errno) }
        defer { close(input) }
        let output: Int32
        switch ownedPaths.createFile(target) {
        case .success(let descriptor): output = descriptor
        case .failure(let error): throw error
        }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var failure: Int32?
        while true {
            let count = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                failure = errno
                break
            }
            failure = buffer.withUnsafeBytes { writeAll(output, UnsafeRawBufferPointer(rebasing: $0[..<count])) }
            if failure != nil { break }
        }
        if close(output) != 0 && failure == nil { failure = errno }
        if let failure {
            ownedPaths.remove(target)
            throw Errno(failure)
        }
        ownedPaths.release(target)
    }
}

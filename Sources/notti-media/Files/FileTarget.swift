import Glibc
import NottiMedia

/// A file the tool writes (`--html`, `--cache`): a regular file, or nothing yet.
/// A symbolic link, FIFO, device, socket or folder at the path is a usage
/// error before any download: nothing is written through it or beside it.
enum FileTarget {
    static func check(_ path: String, option: String) throws(UsageError) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        let kind: String? = switch info.st_mode & S_IFMT {
        case S_IFREG: nil
        case S_IFDIR: "a folder"
        case S_IFLNK: "a symbolic link"
        case S_IFIFO: "a FIFO"
        case S_IFCHR, S_IFBLK: "a device"
        case S_IFSOCK: "a socket"
        default: "not a regular file"
        }
        if let kind {
            throw UsageError("--\(option) expects a FILE to write, but \(path) is \(kind): the tool writes only regular files it creates")
        }
    }

    /// The folder `path` is in must exist already (`--cache`: a typo must not turn caching off).
    static func requireFolder(of path: String, option: String) throws(UsageError) {
        let folder = FilePaths.parent(FilePaths.standardized(path))
        var info = stat()
        guard stat(folder, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            // Unlike --out and --html, whose folders are made: a cache in a mistyped folder would
            // silently start empty, so the folder must be there already (SPEC 9).
            throw UsageError("--\(option): the folder \(folder) does not exist (the cache file is created, its folder is not: "
                + "a mistyped path would start an empty cache); create it, or name a file in a folder that does")
        }
    }

    /// The first operand (`-` aside) that `path` is or lies inside, as paths go after `standardized`;
    /// with `orHolds`, also one that lies inside `path`. An output folder there would be read as input
    /// by a later run, or written over the originals.
    static func overlappingOperand(_ path: String, _ operands: [String], orHolds: Bool = false) -> String? {
        let folder = FilePaths.standardized(path)
        return operands.first { operand in
            guard operand != "-" else { return false }
            let source = FilePaths.standardized(operand)
            return folder == source || folder.hasPrefix(source + "/") || (orHolds && source.hasPrefix(folder + "/"))
        }
    }
}

import Glibc
import NottiMedia

/// Where attachments are stored: `--out DIR`, or the user's own cache folder,
/// `$XDG_CACHE_HOME/notti-media/attachments` (else `$HOME/.cache/...`).
///
/// Files there are named by content hash, so the folder is shared by runs,
/// stays valid after them, and keeps output deterministic. Both are settled
/// before any download: a folder that cannot be used is exit 2, at once.
enum AttachmentFolder {
    /// The absolute path to store attachments in, created and checked.
    /// - Throws: `LocalError` naming the folder and what is wrong with it.
    static func resolve(out: String?, environment: [String: String]) throws(LocalError) -> String {
        if let out { return try prepare(explicit: out) }
        return try prepareDefault(environment: environment)
    }

    /// `--out DIR`: created with its parents when missing (as `mkdir -p` would);
    /// it must then be a folder this user can write in.
    static func prepare(explicit path: String) throws(LocalError) -> String {
        let absolute = FilePaths.absolute(path)
        var info = stat()
        if stat(absolute, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFDIR else {
                throw LocalError("--out \(path) is a file, not a folder")
            }
        } else if let error = FilePaths.makeFolders(absolute, mode: 0o777) {
            throw LocalError("--out: cannot create the folder \(path): \(error.message)")
        }
        guard access(absolute, W_OK) == 0 else {
            throw LocalError("--out: cannot write in \(path): \(Errno(errno).message)")
        }
        return absolute
    }

    /// The private default. Its two folders of our own are made with mode 0700;
    /// one that is a symbolic link, not a folder, or owned by someone else is
    /// refused, never followed: another user could otherwise choose where
    /// downloads land.
    static func prepareDefault(environment: [String: String]) throws(LocalError) -> String {
        let cacheHome: String
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") {
            cacheHome = xdg
        } else if let home = environment["HOME"], home.hasPrefix("/") {
            cacheHome = (home.hasSuffix("/") ? home : home + "/") + ".cache"
        } else {
            throw LocalError("no folder for attachments: neither XDG_CACHE_HOME nor HOME is an absolute path; pass --out DIR")
        }
        if let error = FilePaths.makeFolders(cacheHome, mode: 0o700) {
            throw LocalError("cannot create the cache folder \(cacheHome): \(error.message); pass --out DIR")
        }
        let tool = cacheHome + "/notti-media"
        let attachments = tool + "/attachments"
        try ownPrivateFolder(tool)
        try ownPrivateFolder(attachments)
        guard access(attachments, W_OK) == 0 else {
            throw LocalError("cannot write in \(attachments): \(Errno(errno).message); pass --out DIR")
        }
        return attachments
    }

    /// Makes `path` (mode 0700) unless it exists, then opens it without
    /// following a link and checks what it is and who owns it.
    private static func ownPrivateFolder(_ path: String) throws(LocalError) {
        if mkdir(path, 0o700) != 0 && errno != EEXIST {
            throw LocalError("cannot create \(path): \(Errno(errno).message); pass --out DIR")
        }
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            var info = stat()
            if lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK {
                throw LocalError("refusing \(path): it is a symbolic link, not a folder of yours (remove it, or pass --out DIR)")
            }
            if code == ENOTDIR {
                throw LocalError("refusing \(path): it is not a folder (remove it, or pass --out DIR)")
            }
            throw LocalError("cannot open \(path): \(Errno(code).message); pass --out DIR")
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            throw LocalError("cannot inspect \(path): \(Errno(errno).message); pass --out DIR")
        }
        guard info.st_uid == geteuid() else {
            throw LocalError("refusing \(path): it is owned by user \(info.st_uid), not by you (user \(geteuid())); pass --out DIR")
        }
    }
}

import Glibc
import NottiMedia

/// An input the tool cannot read, said the one way every command says it:
/// `cannot read PATH: <the operating system's reason>; <a fix that fits it>`.
enum ReadFailure {
    static func message(_ path: String, _ code: Int32) -> String {
        "cannot read \(path): \(Errno(code).message); \(fix(for: code, path: path))"
    }

    /// A folder where a file was expected.
    static func folder(_ path: String) -> String {
        "cannot read \(path): \(Errno(EISDIR).message); name a file, or pass the folder to check, which walks it"
    }

    private static func fix(for code: Int32, path: String) -> String {
        switch code {
        case EACCES, EPERM: "make it readable by this user (chmod), or run as a user who can read it"
        case ENOENT, ENOTDIR: "check the path"
        case EBADF where path == "-": "standard input is closed: pipe or redirect the input in"
        case ELOOP: "a symbolic link loops: name the file itself"
        default: "check the file and the disk it is on"
        }
    }
}

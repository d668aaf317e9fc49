import Glibc
import NottiMedia

/// The names the tool gives files by content: `<64 lowercase hex digits>` then a suffix
/// (`.jpg`, `-ios-thumbnail.jpg`). A folder the tool keeps for a page or for `fix` holds only
/// names of this shape; anything else in it is somebody else's, and refuses the folder.
enum ContentHashName {
    /// 64 lowercase hex digits: a SHA-256 as the tool writes it.
    static func isHash(_ text: Substring) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// `<sha256>.<extension>`, the extension of digits and lowercase letters (and, with
    /// `uppercaseExtension`, capitals too: attachments named by an earlier version).
    static func isHashDotExtension(_ name: String, uppercaseExtension: Bool = false) -> Bool {
        let bytes = Array(name.utf8)
        guard bytes.count > 65, bytes[64] == UInt8(ascii: "."), isHash(name.prefix(64)) else { return false }
        return bytes[65...].allSatisfy {
            (0x30...0x39).contains($0) || (0x61...0x7A).contains($0) || (uppercaseExtension && (0x41...0x5A).contains($0))
        }
    }

    /// Why a folder the tool keeps by content hash is not used.
    enum FolderRefusal: Error {
        /// Missing, a file, or a link (even to a folder).
        case notAFolder
        case unlistable(Errno)
        /// The first name that is not a regular file `isOurs` accepts: somebody else's.
        case holds(String)
    }

    /// The names in `folder`, when it is a folder (not a link to one) holding only regular files
    /// whose names `isOurs` accepts: the check the page's media folder and `fix`'s DIR share.
    static func names(inFolder folder: String, isOurs: (String) -> Bool) throws(FolderRefusal) -> Set<String> {
        var info = stat()
        guard lstat(folder, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { throw .notAFolder }
        let names: [String]
        do {
            names = try FilePaths.contents(ofFolder: folder)
        } catch {
            throw .unlistable(error)
        }
        for name in names {
            var entry = stat()
            guard lstat("\(folder)/\(name)", &entry) == 0, entry.st_mode & S_IFMT == S_IFREG, isOurs(name) else { throw .holds(name) }
        }
        return Set(names)
    }
}

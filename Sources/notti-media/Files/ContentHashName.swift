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
}

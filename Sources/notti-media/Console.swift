import Foundation

/// Where the tool writes: stdout for results, stderr for people.
enum Console {
    static func out(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    static func err(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// A one-line error from the tool itself: `notti-media: message`.
    static func fail(_ message: String) {
        err("notti-media: \(message)")
    }
}

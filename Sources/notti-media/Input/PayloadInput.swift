import Foundation
import NottiMedia

/// Reading a payload's bytes from a file or standard input, bounded in size.
enum PayloadInput {
    struct ReadError: Error {
        var message: String
    }

    /// Reads at most one byte more than `Payload.maxReadBytes`.
    static func read(_ path: String) throws(ReadError) -> [UInt8] {
        let handle: FileHandle
        if path == "-" {
            handle = FileHandle.standardInput
        } else {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw ReadError(message: "cannot read \(path): no such file")
            }
            guard !isDirectory.boolValue else { throw ReadError(message: "cannot read \(path): it is a folder") }
            guard let opened = FileHandle(forReadingAtPath: path) else {
                throw ReadError(message: "cannot read \(path): permission denied")
            }
            handle = opened
        }
        defer { if path != "-" { try? handle.close() } }
        do {
            // One byte past the cap is enough for `Payload` to refuse an oversized input.
            return [UInt8](try handle.read(upToCount: Payload.maxReadBytes + 1) ?? Data())
        } catch {
            throw ReadError(message: "cannot read \(path): \(error.localizedDescription)")
        }
    }
}

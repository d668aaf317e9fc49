import Glibc
internal import CMagic

/// Decides what bytes are, with libmagic, as the extension does.
///
/// A `magic_t` is not thread-safe (eight threads on one handle crashed every
/// run here): workers borrow one at a time from a `SnifferPool`.
package final class Sniffer {
    private let cookie: magic_t

    /// Opens libmagic with the system's compiled database.
    /// - Throws: `SnifferError` when libmagic or its database cannot be loaded.
    package init() throws(SnifferError) {
        guard let cookie = magic_open(MAGIC_MIME_TYPE | MAGIC_ERROR) else {
            throw SnifferError(message: "libmagic could not be opened")
        }
        let loaded = if let database = CompiledMagic.shared {
            database.load(into: cookie)
        } else {
            magic_load(cookie, nil)
        }
        guard loaded == 0 else {
            let message = magic_error(cookie).map { String(cString: $0) } ?? "unknown error"
            magic_close(cookie)
            throw SnifferError(message: "libmagic could not load its database: \(message)")
        }
        self.cookie = cookie
    }

    deinit {
        magic_close(cookie)
    }

    /// The MIME type of the file at `path`, judged on all of its `size` bytes.
    ///
    /// libmagic reads only the first 7 MiB of a file it opens itself, yet an mp3
    /// whose ID3 tag holds a large cover image reads as `audio/mpeg` only when the
    /// audio after the tag is in reach. So the file is mapped and handed over
    /// whole with `magic_buffer`, as the extension hands over the downloaded data:
    /// only the pages libmagic actually reads come into memory.
    /// - Throws: `SnifferError` when the file cannot be read.
    package func mimeType(ofFileAt path: String, size: Int) throws(SnifferError) -> String {
        try withMapping(ofFileAt: path, size: size) { bytes throws(SnifferError) in try mimeType(of: bytes) }
    }

    private func withMapping<T>(
        ofFileAt path: String, size: Int, _ body: (UnsafeRawBufferPointer) throws(SnifferError) -> T
    ) throws(SnifferError) -> T {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw SnifferError(message: String(cString: strerror(errno))) }
        defer { close(descriptor) }
        guard size > 0 else { return try body(UnsafeRawBufferPointer(start: nil, count: 0)) }
        let mapping = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0)
        guard let mapping, mapping != MAP_FAILED else { throw SnifferError(message: String(cString: strerror(errno))) }
        defer { munmap(mapping, size) }
        return try body(UnsafeRawBufferPointer(start: mapping, count: size))
    }

    /// The MIME type of bytes in memory (an empty buffer is `application/x-empty`).
    package func mimeType(of bytes: UnsafeRawBufferPointer) throws(SnifferError) -> String {
        try result(of: bytes)
    }

    /// What libmagic says of `bytes` under the cookie's current flags.
    private func result(of bytes: UnsafeRawBufferPointer) throws(SnifferError) -> String {
        var empty: UInt8 = 0
        let result = withUnsafePointer(to: &empty) { emptyPointer in
            magic_buffer(cookie, bytes.baseAddress ?? UnsafeRawPointer(emptyPointer), bytes.count)
        }
        guard let result else {
            let message = magic_error(cookie).map { String(cString: $0) } ?? "unknown error"
            throw SnifferError(message: message)
        }
        return String(cString: result)
    }
}

package struct SnifferError: Error, Sendable {
    package var message: String
}

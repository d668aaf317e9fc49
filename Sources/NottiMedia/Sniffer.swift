internal import CMagic

/// Decides what bytes are, with libmagic, as the extension does.
///
/// A `magic_t` is not thread-safe (eight threads on one handle crashed every
/// run here), so each worker owns its own `Sniffer`.
public final class Sniffer {
    private let cookie: magic_t

    /// Opens libmagic with the system's compiled database.
    /// - Throws: `SnifferError` when libmagic or its database cannot be loaded.
    public init() throws(SnifferError) {
        guard let cookie = magic_open(MAGIC_MIME_TYPE | MAGIC_ERROR) else {
            throw SnifferError(message: "libmagic could not be opened")
        }
        guard magic_load(cookie, nil) == 0 else {
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
    /// libmagic reads only its first 7 MiB by default; an mp3 whose ID3 tag holds
    /// a large cover image only reads as `audio/mpeg` when the audio after the tag
    /// is in reach, so the read limit is raised to the whole file.
    /// - Throws: `SnifferError` when the file cannot be read.
    public func mimeType(ofFileAt path: String, size: Int) throws(SnifferError) -> String {
        var limit = max(size, 1 << 20)
        _ = magic_setparam(cookie, Int32(MAGIC_PARAM_BYTES_MAX), &limit)
        guard let result = magic_file(cookie, path) else {
            let message = magic_error(cookie).map { String(cString: $0) } ?? "unknown error"
            throw SnifferError(message: message)
        }
        return String(cString: result)
    }
}

public struct SnifferError: Error, Sendable {
    public var message: String
}

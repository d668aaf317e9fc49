import Glibc
internal import CBuildShim

/// An `.ipa`, `.apk` or `.aab` (SPEC 22): a zip archive read in place by Debian's libzip. Opening it reads the
/// central directory and checks every entry's name; a file is inflated only when it is read, and only as far
/// as asked (a Mach-O's load commands are its first kilobytes), so memory stays bounded whatever the size.
package final class ZipBuild: BuildFiles {
    package let name: String
    package let paths: [String]
    private let archive: OpaquePointer
    private let library: UnsafePointer<build_functions>
    private let indices: [String: UInt64]
    /// Entries whose external attributes make them symbolic links: never read as files.
    private let links: Set<String>

    /// The largest archive read: SPEC 22's 2 GiB.
    package static let maxArchiveBytes = 2 << 30

    /// Opens the archive on `descriptor` (a regular file's, which this takes over).
    /// - Throws: `BuildError` for what is not a zip archive, a damaged one, or an entry named outside the build.
    package init(descriptor: Int32, name: String) throws(BuildError) {
        self.name = name
        let library: UnsafePointer<build_functions>
        do throws(BuildError) {
            library = try BuildLibraries.functions()
        } catch {
            close(descriptor)
            throw error
        }
        self.library = library
        let zip = library.pointee
        var code: Int32 = 0
        guard let archive = zip.zip_fdopen(descriptor, ZIP_RDONLY, &code) else {
            close(descriptor)
            throw BuildError("\(name): not a readable zip archive (\(Self.words(code, zip)))")
        }
        self.archive = archive
        let count = zip.zip_get_num_entries(archive, 0)
        var paths: [String] = []
        var indices: [String: UInt64] = [:]
        var links = Set<String>()
        do throws(BuildError) {
            guard count >= 0 else { throw BuildError("\(name): its zip directory cannot be read") }
            paths.reserveCapacity(Int(count))
            indices.reserveCapacity(Int(count))
            for index in 0..<UInt64(count) {
                guard let raw = zip.zip_get_name(archive, index, zip_flags_t(ZIP_FL_ENC_GUESS)) else {
                    throw BuildError("\(name): entry \(index) has no readable name: the archive is damaged")
                }
                let path = String(cString: raw)
                if let problem = BuildPath.problem(path) {
                    throw BuildError("\(name): entry '\(path)' has \(problem): refused, nothing read")
                }
                if path.hasSuffix("/") { continue }
                guard indices.updateValue(index, forKey: path) == nil else {
                    throw BuildError("\(name): two entries are named '\(path)': which one a phone installs is not known")
                }
                paths.append(path)
                var system: UInt8 = 0
                var attributes: UInt32 = 0
                if zip.zip_file_get_external_attributes(archive, index, 0, &system, &attributes) == 0,
                   system == UInt8(ZIP_OPSYS_UNIX), (attributes >> 16) & UInt32(S_IFMT) == UInt32(S_IFLNK) {
                    links.insert(path)
                }
            }
        } catch {
            zip.zip_discard(archive)
            throw error
        }
        self.paths = paths
        self.indices = indices
        self.links = links
    }

    deinit {
        library.pointee.zip_discard(archive)
    }

    package func contains(_ path: String) -> Bool { indices[path] != nil }

    package func size(of path: String) -> Int? {
        guard let index = indices[path] else { return nil }
        var stat = zip_stat_t()
        library.pointee.zip_stat_init(&stat)
        guard library.pointee.zip_stat_index(archive, index, 0, &stat) == 0, stat.valid & UInt64(ZIP_STAT_SIZE) != 0 else { return nil }
        return Int(clamping: stat.size)
    }

    package func bytes(of path: String, from offset: Int, count: Int) throws(BuildError) -> [UInt8]? {
        guard let index = indices[path] else { return nil }
        guard !links.contains(path) else {
            throw BuildError("\(name): \(path) is a symbolic link, not a file: refused, nothing read")
        }
        guard let file = library.pointee.zip_fopen_index(archive, index, 0) else {
            throw BuildError("\(name): \(path) cannot be opened (\(Self.text(library.pointee.zip_strerror(archive))))")
        }
        defer { _ = library.pointee.zip_fclose(file) }
        // An inflated entry is read from its start: what comes before `offset` is read and dropped, 64 KiB at a time.
        var skipped = 0
        var chunk = [UInt8](repeating: 0, count: offset > 0 ? 64 << 10 : 0)
        while skipped < offset {
            let got = chunk.withUnsafeMutableBytes { library.pointee.zip_fread(file, $0.baseAddress, UInt64(min($0.count, offset - skipped))) }
            guard got >= 0 else { throw damaged(path, file) }
            if got == 0 { return [] }
            skipped += Int(got)
        }
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let got = bytes.withUnsafeMutableBytes { library.pointee.zip_fread(file, $0.baseAddress! + filled, UInt64(count - filled)) }
            guard got >= 0 else { throw damaged(path, file) }
            if got == 0 { break }
            filled += Int(got)
        }
        bytes.removeSubrange(filled...)
        return bytes
    }

    private func damaged(_ path: String, _ file: OpaquePointer) -> BuildError {
        BuildError("\(name): \(path) cannot be read (\(Self.text(library.pointee.zip_file_strerror(file)))): the archive is damaged")
    }

    private static func words(_ code: Int32, _ zip: build_functions) -> String {
        var error = zip_error_t()
        zip.zip_error_init_with_code(&error, code)
        defer { zip.zip_error_fini(&error) }
        return text(zip.zip_error_strerror(&error))
    }

    /// libzip's words for an error (never NULL in its code; the table's pointers say nothing of that).
    private static func text(_ words: UnsafePointer<CChar>?) -> String {
        words.map { String(cString: $0) } ?? "no reason given"
    }
}

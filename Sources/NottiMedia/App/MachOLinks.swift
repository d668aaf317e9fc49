internal import CAppFormats

/// What an extension's executable links, from its Mach-O load commands (SPEC 22), read by `macho_read`
/// (Sources/CAppFormats/macho.c) from the file's first bytes: a fat file's first slice, its header and
/// load commands only, never the code.
struct MachOLinks: Sendable, Equatable {
    /// The dylibs linked, as the load commands name them (`@rpath/BrazeNotificationService.framework/BrazeNotificationService`).
    var dylibs: [String]
    /// The minimum OS the executable was built for (`15.0`), or nil when it names none.
    var minimumOS: String?

    /// The first read: a header and its load commands most often fit in it.
    static let firstRead = 16 << 10

    /// - Returns: nil when the build has no file at `path`.
    /// - Throws: `BuildError` for a file that is no Mach-O executable, or a damaged one.
    static func read(_ path: String, in build: BuildFiles) throws(BuildError) -> MachOLinks? {
        var offset = 0
        var count = firstRead
        var slices = 0
        // Each pass reads more, or moves to a fat file's slice once; three passes end any file.
        for _ in 0..<4 {
            guard let bytes = try build.bytes(of: path, from: offset, count: count) else { return nil }
            let names = NameList()
            let facts = bytes.withUnsafeBufferPointer { buffer in
                macho_read(buffer.baseAddress, buffer.count, { name, length, context in
                    guard let name, let context else { return }
                    let list = Unmanaged<NameList>.fromOpaque(context).takeUnretainedValue()
                    list.names.append(String(decoding: UnsafeRawBufferPointer(start: name, count: length), as: UTF8.self))
                }, Unmanaged.passUnretained(names).toOpaque())
            }
            switch facts.status {
            case MACHO_READ:
                return MachOLinks(dylibs: names.names, minimumOS: facts.minimum_os == 0 ? nil : version(facts.minimum_os))
            case MACHO_FAT:
                slices += 1
                guard slices == 1, facts.slice_offset <= UInt64(ZipBuild.maxArchiveBytes) else { throw damaged(path, build, "a fat slice inside a fat slice") }
                offset = Int(facts.slice_offset)
                count = firstRead
            case MACHO_NEED_MORE:
                guard bytes.count == count, facts.needed > UInt64(count) else { throw damaged(path, build, "it is cut short in its load commands") }
                count = Int(facts.needed)
            case MACHO_NOT_MACHO:
                throw BuildError("\(build.name): \(path) is not a Mach-O executable")
            default:
                throw damaged(path, build, facts.detail.map { String(cString: $0) } ?? "its load commands do not parse")
            }
        }
        throw damaged(path, build, "its load commands do not end")
    }

    private static func damaged(_ path: String, _ build: BuildFiles, _ why: String) -> BuildError {
        BuildError("\(build.name): \(path) is a damaged Mach-O executable: \(why)")
    }

    /// `xxxx.yy.zz` packed in nibbles, as Mach-O writes versions: 0x000F0200 is `15.2`, 0x000E0001 `14.0.1`.
    static func version(_ packed: UInt32) -> String {
        let major = packed >> 16, minor = (packed >> 8) & 0xFF, patch = packed & 0xFF
        return patch == 0 ? "\(major).\(minor)" : "\(major).\(minor).\(patch)"
    }

    private final class NameList {
        var names: [String] = []
    }
}

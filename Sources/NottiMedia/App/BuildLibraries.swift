internal import CBuildShim

/// libzip's and libplist's functions, opened when a build is first read (Sources/CBuildShim: no other command loads them).
enum BuildLibraries {
    /// - Throws: `BuildError` naming the library that is missing (a broken install: exit 2).
    static func functions() throws(BuildError) -> UnsafePointer<build_functions> {
        var error = [CChar](repeating: 0, count: 256)
        guard let table = build_functions_load(&error, error.count) else {
            throw BuildError("cannot open the libraries builds are read with (\(String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))): reinstall notti-media (libzip4, libplist3)")
        }
        return table
    }
}

import Glibc

/// The process's environment and the number of CPUs, read from Glibc
/// (see `FilePaths` for why not Foundation's `ProcessInfo`).
package enum ProcessFacts {
    /// The environment variables, `NAME=value` split at the first `=`; the first of a repeated name wins.
    package static func environment() -> [String: String] {
        var variables: [String: String] = [:]
        var entry = environ
        while let pointer = entry.pointee {
            let text = String(cString: pointer)
            if let equals = text.firstIndex(of: "=") {
                let name = String(text[..<equals])
                if variables[name] == nil { variables[name] = String(text[text.index(after: equals)...]) }
            }
            entry += 1
        }
        return variables
    }

    /// The CPUs online, at least 1: what sizes the pools of parsers and libmagic handles.
    package static var processorCount: Int {
        max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
    }
}

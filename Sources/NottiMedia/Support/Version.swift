internal import CCurl
internal import CMagic

/// The tool's version, as `--version` and the User-Agent show it.
public enum NottiMediaVersion {
    public static let string = "0.2.0"

    /// The C libraries the process runs on, as loaded (not as compiled against):
    /// `libcurl 7.88.1, libmagic 5.44`.
    public static var libraries: String {
        let curl = String(cString: curl_version()).split(separator: " ").first.map { String($0.map { $0 == "/" ? " " : $0 }) } ?? "libcurl"
        let magic = magic_version()
        return "\(curl), libmagic \(magic / 100).\(String(format2: magic % 100))"
    }
}

private extension String {
    /// Two digits: 4 → "04".
    init(format2 value: Int32) {
        self = value < 10 ? "0\(value)" : "\(value)"
    }
}

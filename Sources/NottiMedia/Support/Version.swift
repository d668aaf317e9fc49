internal import CCurl
internal import CMagic

/// The tool's version, as `--version` and the User-Agent show it.
package enum NottiMediaVersion {
    package static let string = "0.3.0"

    /// The C libraries the process runs on, as loaded (not as compiled against):
    /// `libcurl 7.88.1, libmagic 5.44`.
    package static var libraries: String {
        let magic = magic_version()
        return "libcurl \(curlVersion), libmagic \(magic / 100).\(String(format2: magic % 100))"
    }

    /// The loaded libcurl's version number, `7.88.1`. From `curl_version_info`, not
    /// `curl_version`: that one also names every library libcurl links, and to
    /// name OpenLDAP's it initializes OpenLDAP, which loads all of SASL's plug-ins
    /// (a quarter of `--version`'s instructions).
    static var curlVersion: String {
        // Any age will do: `version` is in the first one, and libcurl answers with its newest.
        curl_version_info(CURLVERSION_FIRST).flatMap { $0.pointee.version.map { String(cString: $0) } } ?? "(unknown)"
    }
}

private extension String {
    /// Two digits: 4 → "04".
    init(format2 value: Int32) {
        self = value < 10 ? "0\(value)" : "\(value)"
    }
}

internal import CCurl
internal import CCurlShim

/// Owns one libcurl easy handle: one documented setter per option, freed in `deinit`.
///
/// Reusing one handle for consecutive transfers keeps its connection cache, so
/// redirect hops and repeated fetches from one host reuse the TLS connection.
final class CurlEasy {
    /// libcurl's process-wide set-up, done once, lazily and thread-safely
    /// (a `static let` initializer runs exactly once).
    private static let globalInit: CURLcode = curl_global_init(Int(CURL_GLOBAL_DEFAULT))

    let handle: UnsafeMutableRawPointer
    /// libcurl writes its detailed message for the last failure here (`CURLOPT_ERRORBUFFER`).
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))
    /// Header lists libcurl keeps pointers to; freed with the handle.
    private var lists: [UnsafeMutablePointer<curl_slist>] = []

    init() {
        precondition(Self.globalInit == CURLE_OK, "curl_global_init failed")
        guard let handle = curl_easy_init() else { fatalError("curl_easy_init failed: out of memory") }
        self.handle = handle
        errorBuffer.initialize(to: 0)
        _ = CCurlShim_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer)
    }

    deinit {
        curl_easy_cleanup(handle)
        lists.forEach { curl_slist_free_all($0) }
        errorBuffer.deallocate()
    }

    // MARK: Options

    private func set(_ option: CURLoption, _ value: Int) {
        _ = CCurlShim_setopt_long(handle, option, value)
    }

    private func set(_ option: CURLoption, _ value: String?) {
        _ = CCurlShim_setopt_string(handle, option, value)
    }

    /// `CURLOPT_URL`.
    func setURL(_ url: String) { set(CURLOPT_URL, url) }

    /// `CURLOPT_NOSIGNAL`: never use signals for timeouts; required in threaded code.
    func setNoSignal() { set(CURLOPT_NOSIGNAL, 1) }

    /// `CURLOPT_PROTOCOLS_STR` and `CURLOPT_REDIR_PROTOCOLS_STR`: without both,
    /// libcurl would follow an https → http or ftp redirect on its own.
    func restrictProtocols(to protocols: String) {
        set(CURLOPT_PROTOCOLS_STR, protocols)
        set(CURLOPT_REDIR_PROTOCOLS_STR, protocols)
    }

    /// `CURLOPT_FOLLOWLOCATION`: off, so every hop can be checked before it is taken.
    func setFollowRedirects(_ follow: Bool) { set(CURLOPT_FOLLOWLOCATION, follow ? 1 : 0) }

    /// `CURLOPT_TIMEOUT_MS`: the deadline for the next `perform`, connect and body included.
    func setTimeout(milliseconds: Int) { set(CURLOPT_TIMEOUT_MS, max(1, milliseconds)) }

    /// `CURLOPT_MAXFILESIZE_LARGE`: refuses a response whose Content-Length announces
    /// more; it does not stop unannounced or lying lengths (the write callback does).
    func setMaxFileSize(_ bytes: Int) { _ = CCurlShim_setopt_off(handle, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(bytes)) }

    /// `CURLOPT_SSLVERSION`: TLS 1.2 or newer, as App Transport Security requires.
    func requireTLS12OrNewer() { set(CURLOPT_SSLVERSION, CURL_SSLVERSION_TLSv1_2) }

    /// `CURLOPT_CAINFO` plus `CURLOPT_CAPATH`: trust `file` in addition to the system store
    /// (setting CAINFO alone would replace the system bundle).
    func addTrustedCAs(file: String, systemDirectory: String) {
        set(CURLOPT_CAINFO, file)
        set(CURLOPT_CAPATH, systemDirectory)
    }

    /// `CURLOPT_ACCEPT_ENCODING`: the codings to ask for; libcurl decodes them, so
    /// the write callback sees, and counts, decoded bytes.
    func setAcceptEncoding(_ value: String) { set(CURLOPT_ACCEPT_ENCODING, value) }

    /// `CURLOPT_USERAGENT`.
    func setUserAgent(_ value: String) { set(CURLOPT_USERAGENT, value) }

    /// `CURLOPT_CONNECT_TO`: `HOST:PORT:CONNECT-HOST:CONNECT-PORT` overrides.
    func setConnectTo(_ entries: [String]) {
        guard !entries.isEmpty else { return }
        var list: UnsafeMutablePointer<curl_slist>?
        for entry in entries { list = curl_slist_append(list, entry) }
        if let list {
            lists.append(list)
            _ = CCurlShim_setopt_slist(handle, CURLOPT_CONNECT_TO, list)
        }
    }

    /// `CURLOPT_WRITEFUNCTION` and `CURLOPT_WRITEDATA`.
    func setWriteCallback(_ callback: curl_write_callback, context: UnsafeMutableRawPointer) {
        _ = CCurlShim_setopt_write_function(handle, callback)
        _ = CCurlShim_setopt_pointer(handle, CURLOPT_WRITEDATA, context)
    }

    /// `CURLOPT_XFERINFOFUNCTION`, `CURLOPT_XFERINFODATA` and `CURLOPT_NOPROGRESS` 0:
    /// libcurl calls it at least once a second, even while stalled, which is where
    /// the deadline and interruption are checked.
    func setProgressCallback(_ callback: curl_xferinfo_callback, context: UnsafeMutableRawPointer) {
        _ = CCurlShim_setopt_xferinfo_function(handle, callback)
        _ = CCurlShim_setopt_pointer(handle, CURLOPT_XFERINFODATA, context)
        set(CURLOPT_NOPROGRESS, 0)
    }

    /// `CURLOPT_OPENSOCKETFUNCTION` and `CURLOPT_OPENSOCKETDATA`: called with the
    /// address of every connection before it is made.
    func setOpenSocketCallback(_ callback: curl_opensocket_callback, context: UnsafeMutableRawPointer) {
        _ = CCurlShim_setopt_opensocket_function(handle, callback)
        _ = CCurlShim_setopt_pointer(handle, CURLOPT_OPENSOCKETDATA, context)
    }

    // MARK: Transfer and results

    /// Runs the transfer; returns libcurl's result code.
    func perform() -> CURLcode {
        errorBuffer[0] = 0
        return curl_easy_perform(handle)
    }

    /// libcurl's detailed message for the last failure, or its generic one for `code`.
    func errorDetail(for code: CURLcode) -> String {
        let detail = String(cString: errorBuffer)
        return detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
    }

    /// `CURLINFO_RESPONSE_CODE`: the last response's status, 0 when none arrived.
    var responseCode: Int {
        var code = 0
        _ = CCurlShim_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &code)
        return code
    }

    /// `CURLINFO_CONTENT_TYPE`: the last response's Content-Type header, if any.
    var contentType: String? { string(CURLINFO_CONTENT_TYPE) }

    /// `CURLINFO_REDIRECT_URL`: where a 3xx would lead, resolved to an absolute URL.
    var redirectURL: String? { string(CURLINFO_REDIRECT_URL) }

    private func string(_ info: CURLINFO) -> String? {
        var value: UnsafePointer<CChar>?
        guard CCurlShim_getinfo_string(handle, info, &value) == CURLE_OK, let value else { return nil }
        return String(cString: value)
    }
}

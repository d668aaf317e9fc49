internal import CCurl
internal import CCurlShim

/// Owns one libcurl easy handle and the multi handle it runs in: one
/// documented setter per option, both freed in `deinit`.
///
/// Reusing the pair for consecutive transfers keeps their connection cache, so
/// redirect hops and repeated fetches from one host reuse the TLS connection.
/// Transfers run through the multi interface so the caller is asked whether to
/// go on every 100 ms, even while nothing arrives: a signal stops a stalled
/// download at once, where `curl_easy_perform`'s progress callback can be a
/// second late.
final class CurlEasy {
    /// libcurl's process-wide set-up, done once, lazily and thread-safely
    /// (a `static let` initializer runs exactly once).
    private static let globalInit: CURLcode = curl_global_init(Int(CURL_GLOBAL_DEFAULT))

    let handle: UnsafeMutableRawPointer
    private let multi: UnsafeMutableRawPointer
    /// How long one wait for the network may last before `shouldContinue` is asked again.
    private static let pollMilliseconds: Int32 = 100
    /// libcurl writes its detailed message for the last failure here (`CURLOPT_ERRORBUFFER`).
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))
    /// Header lists libcurl keeps pointers to; freed with the handle.
    private var lists: [UnsafeMutablePointer<curl_slist>] = []
    /// What the shim saw of the current transfer's new connection's TLS handshake, if it made one.
    let tlsWatch = UnsafeMutablePointer<CCurlShim_TLSWatch>.allocate(capacity: 1)
    /// The request headers of the current fetch (`CURLOPT_HTTPHEADER`); replaced by the next.
    private var requestHeaders: UnsafeMutablePointer<curl_slist>?

    /// - Throws: `CurlOptionError` when libcurl cannot start or take its error buffer.
    init() throws(CurlOptionError) {
        guard Self.globalInit == CURLE_OK else {
            errorBuffer.deallocate()
            throw CurlOptionError(option: "curl_global_init", code: Self.globalInit)
        }
        guard let handle = curl_easy_init() else {
            errorBuffer.deallocate()
            throw CurlOptionError(option: "curl_easy_init", code: CURLE_OUT_OF_MEMORY)
        }
        guard let multi = curl_multi_init() else {
            curl_easy_cleanup(handle)
            errorBuffer.deallocate()
            throw CurlOptionError(option: "curl_multi_init", code: CURLE_OUT_OF_MEMORY)
        }
        self.handle = handle
        self.multi = multi
        errorBuffer.initialize(to: 0)
        tlsWatch.initialize(to: CCurlShim_TLSWatch())
        try check("CURLOPT_ERRORBUFFER", CCurlShim_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer))
        try check("CURLOPT_SSL_CTX_FUNCTION", CCurlShim_watch_tls(handle, tlsWatch))
    }

    deinit {
        curl_easy_cleanup(handle)
        curl_slist_free_all(requestHeaders)
        curl_multi_cleanup(multi)
        lists.forEach { curl_slist_free_all($0) }
        errorBuffer.deallocate()
        CCurlShim_tls_watch_clear(tlsWatch)
        tlsWatch.deallocate()
    }

    /// Whether the last transfer's new connection heard the server answer its TLS
    /// handshake (its hello, or an alert): a failed handshake that did not is the
    /// network's failure (a reset, a close), not TLS's.
    var heardServer: Bool { tlsWatch.pointee.heard_server != 0 }

    /// Whether the last transfer made a new connection whose TLS handshake completed
    /// (`tlsWatch` holds it); false for plain http and a reused connection.
    var completedHandshake: Bool { tlsWatch.pointee.handshake_done != 0 }

    // MARK: Options
    //
    // Every setter checks libcurl's answer: an option the installed libcurl
    // lacks must stop the run, never leave a weaker policy in force.

    private func check(_ name: String, _ code: CURLcode) throws(CurlOptionError) {
        guard code == CURLE_OK else { throw CurlOptionError(option: name, code: code) }
    }

    private func set(_ name: String, _ option: CURLoption, _ value: Int) throws(CurlOptionError) {
        try check(name, CCurlShim_setopt_long(handle, option, value))
    }

    private func set(_ name: String, _ option: CURLoption, _ value: String?) throws(CurlOptionError) {
        try check(name, CCurlShim_setopt_string(handle, option, value))
    }

    /// `CURLOPT_URL`.
    func setURL(_ url: String) throws(CurlOptionError) { try set("CURLOPT_URL", CURLOPT_URL, url) }

    /// `CURLOPT_NOSIGNAL`: never use signals for timeouts; required in threaded code.
    func setNoSignal() throws(CurlOptionError) { try set("CURLOPT_NOSIGNAL", CURLOPT_NOSIGNAL, 1) }

    /// `CURLOPT_PROTOCOLS_STR` and `CURLOPT_REDIR_PROTOCOLS_STR`: without both,
    /// libcurl would follow an https → http or ftp redirect on its own.
    func restrictProtocols(to protocols: String) throws(CurlOptionError) {
        try set("CURLOPT_PROTOCOLS_STR", CURLOPT_PROTOCOLS_STR, protocols)
        try set("CURLOPT_REDIR_PROTOCOLS_STR", CURLOPT_REDIR_PROTOCOLS_STR, protocols)
    }

    /// `CURLOPT_FOLLOWLOCATION`: off, so every hop can be checked before it is taken.
    func setFollowRedirects(_ follow: Bool) throws(CurlOptionError) {
        try set("CURLOPT_FOLLOWLOCATION", CURLOPT_FOLLOWLOCATION, follow ? 1 : 0)
    }

    /// `CURLOPT_TIMEOUT_MS`: the deadline for the next `perform`, connect and body included.
    func setTimeout(milliseconds: Int) throws(CurlOptionError) {
        try set("CURLOPT_TIMEOUT_MS", CURLOPT_TIMEOUT_MS, max(1, milliseconds))
    }

    /// `CURLOPT_CONNECTTIMEOUT_MS`: the most the connection may take (0: libcurl's default; the handle is reused).
    func setConnectTimeout(milliseconds: Int) throws(CurlOptionError) {
        try set("CURLOPT_CONNECTTIMEOUT_MS", CURLOPT_CONNECTTIMEOUT_MS, max(0, milliseconds))
    }

    /// `CURLOPT_MAXFILESIZE_LARGE`: refuses a response whose Content-Length announces
    /// more; it does not stop unannounced or lying lengths (the write callback does).
    func setMaxFileSize(_ bytes: Int) throws(CurlOptionError) {
        try check("CURLOPT_MAXFILESIZE_LARGE", CCurlShim_setopt_off(handle, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(bytes)))
    }

    /// `CURLOPT_SSLVERSION`: TLS 1.2 or newer, as App Transport Security requires.
    func requireTLS12OrNewer() throws(CurlOptionError) {
        try set("CURLOPT_SSLVERSION", CURLOPT_SSLVERSION, CURL_SSLVERSION_TLSv1_2)
    }

    /// `CURLOPT_SSL_CIPHER_LIST`: the TLS 1.2 suites offered (OpenSSL's names); nil: libcurl's default.
    func setCipherList(_ list: String?) throws(CurlOptionError) {
        try set("CURLOPT_SSL_CIPHER_LIST", CURLOPT_SSL_CIPHER_LIST, list)
    }

    /// `CURLOPT_CONNECT_ONLY`: connect (and shake hands) and stop, no request.
    func setConnectOnly() throws(CurlOptionError) { try set("CURLOPT_CONNECT_ONLY", CURLOPT_CONNECT_ONLY, 1) }

    /// `CURLOPT_SSL_SESSIONID_CACHE` 0: every new connection makes a full handshake, so
    /// the chain is verified, and seen, each time (a resumed session shows no chain).
    func disableSessionResumption() throws(CurlOptionError) {
        try set("CURLOPT_SSL_SESSIONID_CACHE", CURLOPT_SSL_SESSIONID_CACHE, 0)
    }

    /// `CURLOPT_CAINFO` plus `CURLOPT_CAPATH`: trust `file` in addition to the system store
    /// (setting CAINFO alone would replace the system bundle).
    func addTrustedCAs(file: String, systemDirectory: String) throws(CurlOptionError) {
        try set("CURLOPT_CAINFO", CURLOPT_CAINFO, file)
        try set("CURLOPT_CAPATH", CURLOPT_CAPATH, systemDirectory)
    }

    /// `CURLOPT_ACCEPT_ENCODING`: the codings to ask for; libcurl decodes them, so
    /// the write callback sees, and counts, decoded bytes.
    func setAcceptEncoding(_ value: String) throws(CurlOptionError) {
        try set("CURLOPT_ACCEPT_ENCODING", CURLOPT_ACCEPT_ENCODING, value)
    }

    /// `CURLOPT_USERAGENT`.
    func setUserAgent(_ value: String) throws(CurlOptionError) { try set("CURLOPT_USERAGENT", CURLOPT_USERAGENT, value) }

    /// `CURLOPT_CONNECT_TO`: `HOST:PORT:CONNECT-HOST:CONNECT-PORT` overrides.
    func setConnectTo(_ entries: [String]) throws(CurlOptionError) {
        guard !entries.isEmpty else { return }
        var list: UnsafeMutablePointer<curl_slist>?
        for entry in entries {
            guard let longer = curl_slist_append(list, entry) else {
                throw CurlOptionError(option: "CURLOPT_CONNECT_TO", code: CURLE_OUT_OF_MEMORY)
            }
            list = longer
        }
        if let list {
            lists.append(list)
            try check("CURLOPT_CONNECT_TO", CCurlShim_setopt_slist(handle, CURLOPT_CONNECT_TO, list))
        }
    }

    /// `CURLOPT_HTTPHEADER`: extra request headers for the next transfers (the
    /// conditional ones of `--cache`), replacing the previous ones; none clears them.
    func setRequestHeaders(_ headers: [String]) throws(CurlOptionError) {
        var list: UnsafeMutablePointer<curl_slist>?
        for header in headers {
            guard let longer = curl_slist_append(list, header) else {
                curl_slist_free_all(list)
                throw CurlOptionError(option: "CURLOPT_HTTPHEADER", code: CURLE_OUT_OF_MEMORY)
            }
            list = longer
        }
        let code = CCurlShim_setopt_slist(handle, CURLOPT_HTTPHEADER, list)
        guard code == CURLE_OK else {
            curl_slist_free_all(list)
            throw CurlOptionError(option: "CURLOPT_HTTPHEADER", code: code)
        }
        curl_slist_free_all(requestHeaders)
        requestHeaders = list
    }

    /// `CURLOPT_WRITEFUNCTION` and `CURLOPT_WRITEDATA`.
    func setWriteCallback(_ callback: curl_write_callback, context: UnsafeMutableRawPointer) throws(CurlOptionError) {
        try check("CURLOPT_WRITEFUNCTION", CCurlShim_setopt_write_function(handle, callback))
        try check("CURLOPT_WRITEDATA", CCurlShim_setopt_pointer(handle, CURLOPT_WRITEDATA, context))
    }

    /// `CURLOPT_XFERINFOFUNCTION`, `CURLOPT_XFERINFODATA` and `CURLOPT_NOPROGRESS` 0:
    /// libcurl calls it at least once a second, even while stalled, which is where
    /// the deadline and interruption are checked.
    func setProgressCallback(_ callback: curl_xferinfo_callback, context: UnsafeMutableRawPointer) throws(CurlOptionError) {
        try check("CURLOPT_XFERINFOFUNCTION", CCurlShim_setopt_xferinfo_function(handle, callback))
        try check("CURLOPT_XFERINFODATA", CCurlShim_setopt_pointer(handle, CURLOPT_XFERINFODATA, context))
        try set("CURLOPT_NOPROGRESS", CURLOPT_NOPROGRESS, 0)
    }

    /// `CURLOPT_OPENSOCKETFUNCTION` and `CURLOPT_OPENSOCKETDATA`: called with the
    /// address of every connection before it is made.
    func setOpenSocketCallback(_ callback: curl_opensocket_callback, context: UnsafeMutableRawPointer) throws(CurlOptionError) {
        try check("CURLOPT_OPENSOCKETFUNCTION", CCurlShim_setopt_opensocket_function(handle, callback))
        try check("CURLOPT_OPENSOCKETDATA", CCurlShim_setopt_pointer(handle, CURLOPT_OPENSOCKETDATA, context))
    }

    // MARK: Transfer and results

    /// Runs the transfer, asking `shouldContinue` at least every 100 ms;
    /// returns libcurl's result code (`CURLE_ABORTED_BY_CALLBACK` when it said no).
    func perform(while shouldContinue: () -> Bool) -> CURLcode {
        errorBuffer[0] = 0
        CCurlShim_tls_watch_clear(tlsWatch)
        guard curl_multi_add_handle(multi, handle) == CURLM_OK else { return CURLE_OUT_OF_MEMORY }
        defer { curl_multi_remove_handle(multi, handle) }
        var running: Int32 = 1
        while true {
            guard curl_multi_perform(multi, &running) == CURLM_OK else { return CURLE_OUT_OF_MEMORY }
            if running == 0 { break }
            if !shouldContinue() { return CURLE_ABORTED_BY_CALLBACK }
            guard curl_multi_poll(multi, nil, 0, Self.pollMilliseconds, nil) == CURLM_OK else { return CURLE_OUT_OF_MEMORY }
        }
        var queued: Int32 = 0
        while let message = curl_multi_info_read(multi, &queued) {
            if message.pointee.msg == CURLMSG_DONE { return message.pointee.data.result }
        }
        return CURLE_OK
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

    /// `CURLINFO_PRIMARY_IP` and `CURLINFO_PRIMARY_PORT`: the address the last transfer's connection went to.
    var primaryAddress: (ip: String, port: Int)? {
        var port = 0
        guard let ip = string(CURLINFO_PRIMARY_IP), !ip.isEmpty,
              CCurlShim_getinfo_long(handle, CURLINFO_PRIMARY_PORT, &port) == CURLE_OK, port > 0 else { return nil }
        return (ip, port)
    }

    /// `CURLINFO_CONTENT_TYPE`: the last response's Content-Type header, if any.
    var contentType: String? { string(CURLINFO_CONTENT_TYPE) }

    /// `CURLINFO_NAMELOOKUP_TIME_T`, `_CONNECT_`, `_APPCONNECT_`, `_STARTTRANSFER_`
    /// and `_TOTAL_TIME_T`: the last transfer's phase times, in microseconds from its start.
    var phaseTimes: (lookup: Int, connect: Int, tls: Int, firstByte: Int, total: Int) {
        func time(_ info: CURLINFO) -> Int {
            var value: curl_off_t = 0
            return CCurlShim_getinfo_off(handle, info, &value) == CURLE_OK ? Int(value) : 0
        }
        return (time(CURLINFO_NAMELOOKUP_TIME_T), time(CURLINFO_CONNECT_TIME_T), time(CURLINFO_APPCONNECT_TIME_T),
                time(CURLINFO_STARTTRANSFER_TIME_T), time(CURLINFO_TOTAL_TIME_T))
    }

    /// `CURLINFO_CONTENT_LENGTH_DOWNLOAD_T`: the last response's Content-Length; nil when it sent none.
    var announcedLength: Int? {
        var length: curl_off_t = -1
        guard CCurlShim_getinfo_off(handle, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length) == CURLE_OK, length >= 0 else { return nil }
        return Int(length)
    }

    /// `CURLINFO_REDIRECT_URL`: where a 3xx would lead, resolved to an absolute URL.
    var redirectURL: String? { string(CURLINFO_REDIRECT_URL) }

    /// `curl_easy_header`: the last response's value of header `name` (the last
    /// one when repeated), nil when absent.
    func header(_ name: String) -> String? {
        var found: UnsafeMutablePointer<curl_header>?
        guard curl_easy_header(handle, name, 0, UInt32(CURLH_HEADER), -1, &found) == CURLHE_OK,
              let value = found?.pointee.value
        else { return nil }
        return String(cString: value)
    }

    private func string(_ info: CURLINFO) -> String? {
        var value: UnsafePointer<CChar>?
        guard CCurlShim_getinfo_string(handle, info, &value) == CURLE_OK, let value else { return nil }
        return String(cString: value)
    }
}

/// libcurl refused an option: the installed libcurl is older than the tool
/// needs or out of memory. The run stops rather than go on with a weaker policy.
package struct CurlOptionError: Error, Sendable {
    /// The option's C name, e.g. `CURLOPT_PROTOCOLS_STR`.
    package var option: String
    package var message: String

    init(option: String, code: CURLcode) {
        self.option = option
        message = "libcurl/\(NottiMediaVersion.curlVersion) refused \(option): \(String(cString: curl_easy_strerror(code)))"
            + " (notti-media needs libcurl \(Self.minimumVersion) or newer)"
    }

    /// The oldest libcurl with every option the download path sets (`CURLOPT_PROTOCOLS_STR` came in 7.85.0).
    package static let minimumVersion = "7.85.0"
}

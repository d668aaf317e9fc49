import Glibc
internal import CCurl

/// Downloads media under a `MediaPolicy`, the way the extension does: https
/// only at every hop (or http too, where the policy allows it), the size cap on
/// decoded bytes, one deadline for all.
///
/// One fetcher owns one libcurl handle and is used by one thread at a time;
/// reusing it keeps connections to a host alive across fetches. The trust
/// settings are the handle's; the rest of the policy is set for each fetch, so
/// one fetcher serves every SDK profile of a run.
final class MediaFetcher {
    /// The redirect statuses URLSession follows.
    static let redirectStatuses: Set<Int> = [301, 302, 303, 307, 308]
    /// The Accept-Encoding iOS sends; the size cap counts the decoded bytes.
    static let iOSAcceptEncoding = "gzip, deflate, br"
    static let systemCADirectory = "/etc/ssl/certs"

    let trust: MediaPolicy.Trust
    private let easy: CurlEasy
    /// The run's forward-secrecy answers, shared with its other fetchers.
    private let probes: ForwardSecrecyProbes
    /// The last connection made to each `host:port`, for a transfer that reuses it (no handshake to read).
    private var connections: [String: TLSFacts] = [:]

    /// - Parameter probes: where the run's forward-secrecy probes are kept, once per host.
    /// - Throws: `CurlOptionError` when libcurl refuses an option.
    init(trust: MediaPolicy.Trust, probes: ForwardSecrecyProbes = ForwardSecrecyProbes()) throws(CurlOptionError) {
        self.trust = trust
        self.probes = probes
        easy = try CurlEasy()
        try easy.disableSessionResumption()
        try easy.setNoSignal()
        try easy.restrictProtocols(to: "https")
        try easy.setFollowRedirects(false)
        try easy.requireTLS12OrNewer()
        try easy.setAcceptEncoding(Self.iOSAcceptEncoding)
        try easy.setUserAgent(Self.toolUserAgent)
        if let file = trust.extraCAFile {
            try easy.addTrustedCAs(file: file, systemDirectory: Self.systemCADirectory)
        }
        try easy.setConnectTo(trust.connectTo)
    }

    /// Downloads `url` into `file`, a new empty working file of the caller's, which
    /// the caller releases on any outcome but `.file`.
    /// - Parameter validators: a stored copy's ETag and Last-Modified: the request is
    ///   conditional, and a 304 is `.notModified`.
    /// The tool's own `User-Agent`.
    static let toolUserAgent = "notti-media/\(NottiMediaVersion.string) (Notification Service Extension)"

    ///   - userAgent: a phone's own (`--device-headers`); nil: the tool's.
    func fetch(
        _ url: MediaURL, policy: MediaPolicy, into file: WorkingFile, cancellation: Cancellation?,
        validators: (etag: String?, lastModified: String?)? = nil, watchedCaps: [Int] = [], userAgent: String? = nil
    ) -> Download {
        precondition(policy.trust == trust, "a fetcher's trust settings are fixed at creation")
        let start = MonotonicInstant.now
        let deadline = start + .milliseconds(Int((policy.timeoutSeconds * 1000).rounded(.up)))
        var download = Download(transfer: TransferFacts(finalURL: url.string), outcome: .interrupted)
        do {
            let fileDescriptor = file.descriptor
            let sink = TransferSink(
                easy: easy, fileDescriptor: fileDescriptor, maxBytes: policy.maxBytes,
                deadline: deadline, cancellation: cancellation, denyPrivateNetworks: policy.denyPrivateNetworks,
                watchedCaps: watchedCaps, start: start)
            let outcome: Download.Outcome
            do {
                try sink.install(on: easy)
                try easy.restrictProtocols(to: policy.allowHTTP ? "https,http" : "https")
                try easy.setUserAgent(userAgent ?? Self.toolUserAgent)
                try easy.setRequestHeaders(
                    [validators?.etag.map { "If-None-Match: \($0)" }, validators?.lastModified.map { "If-Modified-Since: \($0)" }]
                        .compactMap { $0 })
                try easy.setMaxFileSize(policy.announcedLimit)
                outcome = withExtendedLifetime(sink) {
                    transfer(&download, policy: policy, sink: sink, deadline: deadline, conditional: validators != nil)
                }
            } catch {
                outcome = Self.failure(.networkError, error.message)
            }
            download.outcome = outcome
            download.transfer.capCrossings = sink.capCrossings
        }
        download.transfer.elapsedMilliseconds = Self.milliseconds(since: start)
        // Microseconds while summing; whole milliseconds in the report.
        download.transfer.timings = FetchTimings(microseconds: download.transfer.timings)
        return download
    }

    private func transfer(
        _ download: inout Download, policy: MediaPolicy, sink: TransferSink, deadline: MonotonicInstant,
        conditional: Bool
    ) -> Download.Outcome {
        func timeoutFailure() -> Download.Outcome { .failed(.timeout, Self.timeoutMessage(policy)) }
        func tooLargeFailure(announced: Bool) -> Download.Outcome {
            download.transfer.tooLargeAnnounced = announced
            return .failed(.tooLarge, Self.tooLargeMessage(policy, announced: announced))
        }
        while true {
            let remaining = deadline - MonotonicInstant.now
            guard remaining > .zero else { return timeoutFailure() }
            do {
                try easy.setURL(download.transfer.finalURL)
                try easy.setTimeout(milliseconds: Self.milliseconds(remaining))
                try easy.setConnectTimeout(milliseconds: policy.connectTimeoutSeconds.map { Int(($0 * 1000).rounded()) } ?? 0)
            } catch {
                return Self.failure(.networkError, error.message)
            }
            sink.beginResponse()
            let code = easy.perform(while: sink.shouldContinue)
            let status = easy.responseCode
            download.transfer.httpStatus = status > 0 ? status : nil
            download.transfer.declaredMime = easy.contentType.map(TransferFacts.essence(ofContentType:))
            download.transfer.announcedBytes = easy.announcedLength
            record(&download)
            // A handshake libcurl then refused (the host name, the chain) is a `tls_error`, not a connection to judge.
            noteConnection(&download, reachedServer: status > 0 || code == CURLE_OK, refusedByLibcurl: Self.tlsFailures.contains(code.rawValue))

            switch sink.stop {
            case .tooLarge: return tooLargeFailure(announced: false)
            case .writeFailed(let error):
                return Self.failure(.writeError, "cannot write the attachment: \(Errno(error).message)")
            case .deadline: return timeoutFailure()
            case .cancelled: return .interrupted
            case .status, nil: break
            }
            if code != CURLE_OK, let blocked = sink.blockedAddress {
                return Self.failure(.blockedAddress, "refused to connect to \(blocked.text) (\(blocked.refusal)): only public addresses are allowed")
            }
            if code != CURLE_OK && code != CURLE_WRITE_ERROR {
                if code == CURLE_FILESIZE_EXCEEDED && (200..<300).contains(status) {
                    return tooLargeFailure(announced: true)
                }
                if code != CURLE_FILESIZE_EXCEEDED || status == 0 {
                    return Self.failure(for: code, detail: easy.errorDetail(for: code), policy: policy, heardServer: easy.heardServer)
                }
            }
            if Self.redirectStatuses.contains(status), let next = easy.redirectURL {
                guard download.transfer.redirects < policy.maxRedirects else {
                    return Self.failure(.tooManyRedirects, "more than \(policy.maxRedirects) redirects (stopped at \(quoted(next)))")
                }
                let scheme = next.split(separator: ":", maxSplits: 1).first.map { $0.lowercased() } ?? ""
                let hop = RedirectHop(number: download.transfer.redirects + 1, url: next)
                guard scheme == "https" || (policy.allowHTTP && scheme == "http") else {
                    download.transfer.refusedHop = hop
                    return .failed(.insecureRedirect, Self.insecureRedirectMessage(policy, hop))
                }
                if scheme == "http" && download.transfer.httpHop == nil { download.transfer.httpHop = hop }
                download.transfer.redirects += 1
                download.transfer.finalURL = next
                continue
            }
            if conditional && status == 304 { return .notModified }
            guard (200..<300).contains(status) else {
                return Self.failure(.httpError, "the server answered HTTP \(status)")
            }
            guard sink.bytes > 0 else {
                return Self.failure(.emptyMedia, "the server answered HTTP \(status) with an empty body")
            }
            download.transfer.contentDisposition = easy.header("Content-Disposition")
            switch sink.finishHash() {
            case .success(let sha256): return .file(DownloadedFile(bytes: sink.bytes, sha256: sha256))
            case .failure(let error): return Self.failure(.writeError, "cannot read the attachment back to hash it: \(error.message)")
            }
        }
    }

    /// Adds one request's phase times and keeps its caching headers (the last
    /// request's are the final response's).
    private func record(_ download: inout Download) {
        let phases = easy.phaseTimes
        // libcurl's times count from the request's start; a reused connection has no lookup, connect or TLS.
        download.transfer.timings.dnsMs += phases.lookup
        download.transfer.timings.connectMs += max(0, phases.connect - phases.lookup)
        download.transfer.timings.tlsMs += max(0, phases.tls - phases.connect)
        download.transfer.timings.firstByteMs = download.transfer.timings.totalMs + phases.firstByte
        download.transfer.timings.totalMs += phases.total
        download.transfer.http = HTTPFacts(
            cacheControl: easy.header("Cache-Control"), etag: easy.header("ETag"), lastModified: easy.header("Last-Modified"),
            age: easy.header("Age"), expires: easy.header("Expires"), setsCookie: easy.header("Set-Cookie") != nil,
            vary: easy.header("Vary"))
    }

    /// Records this hop's TLS connection: the handshake's facts when it made one (probing forward
    /// secrecy when the handshake chose none), else those of the connection it reused.
    private func noteConnection(_ download: inout Download, reachedServer: Bool, refusedByLibcurl: Bool) {
        let url = download.transfer.finalURL
        var connection: TLSFacts?
        if !refusedByLibcurl, let origin = MediaURL.origin(of: url), origin.scheme == "https" {
            let key = "\(origin.host):\(origin.port)"
            if var fresh = easy.handshakeFacts(host: origin.host, trust: trust) {
                if fresh.forwardSecrecy != .negotiated, let address = easy.primaryAddress {
                    fresh.forwardSecrecy = probes.offered(url: url, host: origin.host, address: address, trust: trust)
                }
                connections[key] = fresh
                connection = fresh
            } else if reachedServer {
                connection = connections[key]
            }
        }
        download.transfer.noteConnection(connection, hop: download.transfer.redirects, now: Int(time(nil)))
    }

    /// A failure whose message ends with what to do about it.
    static func failure(_ reason: DiagnosticCode, _ detail: String) -> Download.Outcome {
        .failed(reason, "\(detail); \(reason.fix)")
    }

    // The messages of the policy-dependent failures, also used to judge one
    // download again under a stricter profile's policy (`MediaResult.judged`).

    static func timeoutMessage(_ policy: MediaPolicy) -> String {
        "the download did not finish within \(NumberText.decimal(policy.timeoutSeconds)) s: the push is delivered without media; "
            + DiagnosticCode.timeout.fix
    }

    static func tooLargeMessage(_ policy: MediaPolicy, announced: Bool) -> String {
        tooLargeDetail(policy, announced: announced) + "; " + DiagnosticCode.tooLarge.fix
    }

    private static func tooLargeDetail(_ policy: MediaPolicy, announced: Bool) -> String {
        if announced, let cap = policy.announcedCapDescription {
            return "the server announced a Content-Length over \(cap): the download is refused before the body"
        }
        if let cap = policy.capDescription {
            return announced
                ? "the server announced a Content-Length over \(cap): the download is refused before the body"
                : "the media is larger than \(cap): stopped there"
        }
        return announced
            ? "the server announced a Content-Length over the \(policy.maxBytes)-byte limit: refused before the body"
            : "the media is larger than \(policy.maxBytes) bytes: stopped at the limit"
    }

    static func insecureRedirectMessage(_ policy: MediaPolicy, _ hop: RedirectHop) -> String {
        let allowed = policy.allowHTTP ? "only https and http are allowed"
            : policy.httpRefusedByATS ? "App Transport Security allows only https unless the app declares an exception"
            : policy.httpRefusedByAndroid ? "Android's default network security policy (apps targeting Android 9, API 28, or later) blocks cleartext http"
            : "only https is allowed"
        return "redirect \(hop.number) leads to \(quoted(hop.url)): \(allowed); \(DiagnosticCode.insecureRedirect.fix)"
    }

    /// libcurl's results that are `tls_error` (once the server answered the handshake).
    static let tlsFailures: Set<UInt32> = Set([
        CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM,
        CURLE_SSL_CIPHER, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR,
        CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_ENGINE_NOTFOUND,
        CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_ENGINE_INITFAILED, CURLE_USE_SSL_FAILED,
        CURLE_SSL_SHUTDOWN_FAILED, CURLE_SSL_CRL_BADFILE, CURLE_SSL_CLIENTCERT,
    ].map(\.rawValue))

    /// Maps a libcurl failure to its reason code, by what happened: a handshake that
    /// ended before the server answered with its hello or an alert (a reset, a close) is the network's failure.
    static func failure(for code: CURLcode, detail: String, policy: MediaPolicy, heardServer: Bool) -> Download.Outcome {
        switch code {
        case CURLE_OPERATION_TIMEDOUT:
            return .failed(.timeout, timeoutMessage(policy))
        case CURLE_SSL_CONNECT_ERROR where !heardServer:
            return Self.failure(
                .networkError, "the connection was reset or closed during the TLS handshake, before the server answered (\(detail))")
        case _ where tlsFailures.contains(code.rawValue):
            return Self.failure(.tlsError, detail + iOSRuleAlsoBroken(detail))
        case CURLE_OUT_OF_MEMORY:
            // What libcurl 7.88 reports for response headers over its 100 KiB cap.
            return Self.failure(.networkError, "the response headers are larger than libcurl accepts (\(detail))")
        default:
            return Self.failure(.networkError, detail)
        }
    }

    /// OpenSSL refuses some servers before iOS's own rules (SPEC 18) could: its refusal names the rule iOS has too.
    private static func iOSRuleAlsoBroken(_ detail: String) -> String {
        if detail.contains("key too weak") || detail.contains("key too small") {
            return " (iOS refuses it too: \(IOSConnectionRules.Rule.keySize.rawValue), RSA keys of at least 2048 bits and ECDSA keys of at least 256)"
        }
        if detail.contains("md too weak") || detail.contains("digest algorithm too weak") {
            return " (iOS refuses it too: \(IOSConnectionRules.Rule.signature.rawValue) across the chain)"
        }
        return ""
    }

    static func milliseconds(since start: MonotonicInstant) -> Int {
        milliseconds(MonotonicInstant.now - start)
    }

    /// Whole milliseconds, rounded down.
    static func milliseconds(_ duration: Duration) -> Int {
        Int((duration / .milliseconds(1)).rounded(.down))
    }
}

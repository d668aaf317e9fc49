/// What one transfer found out, whatever its outcome: where it ended, what the
/// final response said, how long each phase took. One type for the download
/// (`Download`), the report's media facts (`MediaFacts.transfer`) and the
/// `--cache` row, which encodes and decodes it here, in one place.
package struct TransferFacts: Sendable, Equatable {
    /// The URL of the last request made (after any redirects).
    package var finalURL: String
    package var redirects = 0
    /// The last response's status; nil when no response arrived.
    package var httpStatus: Int?
    /// The final response's Content-Type, parameters dropped and case folded.
    package var declaredMime: String?
    /// The final response's Content-Disposition header, as sent.
    package var contentDisposition: String?
    /// What the final response's Content-Length announced, if anything.
    package var announcedBytes: Int?
    /// The first plain-http URL in the chain (the policy allowed it), if any.
    package var httpHop: RedirectHop?
    /// The hop refused as `insecure_redirect`, if that is the outcome.
    package var refusedHop: RedirectHop?
    /// For `too_large`: true when Content-Length announced it, false when counted.
    package var tooLargeAnnounced = false
    /// The final response's caching headers.
    package var http: HTTPFacts?
    /// libcurl's phase times (microseconds while the transfer sums its hops, then milliseconds).
    package var timings = FetchTimings()
    package var elapsedMilliseconds = 0
    /// When the body first went over each cap in play (`MediaPolicy.capsInPlay`), ascending:
    /// a record with a stricter cap than the download's is judged from it (`MediaResult.judged`).
    package var capCrossings: [CapCrossing] = []
    /// The final hop's TLS connection (`media.tls`); nil for plain http, or when no connection was made.
    package var tls: TLSFacts?
    /// Each hop's TLS connection, in hop order: what iOS's connection rules are judged on
    /// (SPEC 18; the rules are the judge's, Decision/IOSConnectionRules.swift).
    package var hopConnections: [HopConnection] = []

    package init(finalURL: String) {
        self.finalURL = finalURL
    }

    /// The moment a body went over `cap` bytes, in milliseconds from the download's start.
    /// A Content-Type header's media type, as `declaredMime` keeps it: `Image/PNG; charset=x` → `image/png`.
    package static func essence(ofContentType contentType: String) -> String {
        let bare = contentType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return bare.trimmingWhitespace().lowercased()
    }

    package struct CapCrossing: Sendable, Equatable {
        package var cap: Int
        package var atMilliseconds: Int

        package init(cap: Int, atMilliseconds: Int) {
            self.cap = cap
            self.atMilliseconds = atMilliseconds
        }
    }

    /// Hop `hop`'s TLS connection (0: the URL itself; n: redirect n), made at `at` (seconds since 1970).
    package struct HopConnection: Sendable, Equatable {
        package var hop: Int
        package var tls: TLSFacts
        package var at: Int
    }

    /// Records hop `hop`'s connection, made at `now` (seconds since 1970): its facts (the last hop's
    /// are `media.tls`).
    mutating func noteConnection(_ connection: TLSFacts?, hop: Int, now: Int) {
        tls = connection
        guard let connection else { return }
        hopConnections.append(HopConnection(hop: hop, tls: connection, at: now))
    }

    /// The connection facts of `fresh`, a revalidation of these (a 304 reuses the stored
    /// verdict, but the phone would connect today: its connection is judged, not the stored one's).
    mutating func takeConnection(of fresh: TransferFacts) {
        tls = fresh.tls
        hopConnections = fresh.hopConnections
    }

    /// The facts as the `--cache` row keeps them.
    var json: JSONValue {
        // The caching headers as the report's `http` gives them (one encoding), then what only the row keeps.
        let served: [JSONMember] = if case .object(let members)? = http?.json { members } else { [] }
        return .object([
            JSONMember("finalUrl", .string(finalURL)),
            JSONMember("redirects", .int(redirects)),
            JSONMember("httpStatus", .optional(httpStatus)),
            JSONMember("declaredMime", .optional(declaredMime)),
            JSONMember("contentDisposition", .optional(contentDisposition)),
            JSONMember("announcedBytes", .optional(announcedBytes)),
            JSONMember("httpHop", httpHop.map { .object([JSONMember("number", .int($0.number)), JSONMember("url", .string($0.url))]) } ?? .null),
            JSONMember("elapsedMs", .int(elapsedMilliseconds)),
            JSONMember("timings", timings.json),
        ] + served + [
            JSONMember("setsCookie", .bool(http?.setsCookie ?? false)),
            JSONMember("vary", .optional(http?.vary)),
        ])
    }

    /// The facts a `--cache` row kept; nil when it is not whole.
    init?(json: JSONValue) {
        guard let finalURL = json["finalUrl"]?.stringValue else { return nil }
        self.finalURL = finalURL
        redirects = json["redirects"]?.intValue ?? 0
        httpStatus = json["httpStatus"]?.intValue
        declaredMime = json["declaredMime"]?.stringValue
        contentDisposition = json["contentDisposition"]?.stringValue
        announcedBytes = json["announcedBytes"]?.intValue
        if let hop = json["httpHop"], let number = hop["number"]?.intValue, let url = hop["url"]?.stringValue {
            httpHop = RedirectHop(number: number, url: url)
        }
        elapsedMilliseconds = json["elapsedMs"]?.intValue ?? 0
        if let measured = json["timings"], measured != .null {
            timings.dnsMs = measured["dnsMs"]?.intValue ?? 0
            timings.connectMs = measured["connectMs"]?.intValue ?? 0
            timings.tlsMs = measured["tlsMs"]?.intValue ?? 0
            timings.firstByteMs = measured["firstByteMs"]?.intValue ?? 0
            timings.totalMs = measured["totalMs"]?.intValue ?? 0
        }
        http = HTTPFacts(
            cacheControl: json["cacheControl"]?.stringValue, etag: json["etag"]?.stringValue,
            lastModified: json["lastModified"]?.stringValue, age: json["age"]?.stringValue,
            expires: json["expires"]?.stringValue, setsCookie: json["setsCookie"] == .bool(true), vary: json["vary"]?.stringValue)
    }
}

/// A leaf on the way that expires soon after the download (`certificate_expiring`, SPEC 18).
package struct ExpiringCertificate: Sendable, Equatable {
    package var host: String
    /// The leaf's notAfter, seconds since 1970.
    package var notAfter: Int

    /// How long before its end a certificate is reported: a campaign scheduled later fails everywhere.
    static let warningSeconds = 30 * 86_400
}

extension TransferFacts {
    /// The first hop's leaf that expires within 30 days of its connection, or nil.
    package var expiringCertificate: ExpiringCertificate? {
        hopConnections.first { $0.tls.leaf.notAfter - $0.at < ExpiringCertificate.warningSeconds }.map {
            ExpiringCertificate(host: $0.tls.host, notAfter: $0.tls.leaf.notAfter)
        }
    }
}

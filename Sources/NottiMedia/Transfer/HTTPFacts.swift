/// What the final response said about caching, as served, and whether a CDN
/// can cache it: every phone's request for media that is not cacheable reaches
/// the origin at send time.
///
/// A class, immutable: every payload naming the media carries the same facts,
/// shared by reference instead of eight strings copied each time.
package final class HTTPFacts: Sendable, Equatable {
    package let cacheControl: String?
    package let etag: String?
    package let lastModified: String?
    package let age: String?
    package let expires: String?
    /// `Set-Cookie` was sent (its value is not kept).
    package let setsCookie: Bool
    package let vary: String?
    /// Why a shared cache will not keep this response, or nil when it can
    /// (decided once per fetch, not once per payload naming the media).
    package let notCacheableBecause: String?

    package init(
        cacheControl: String? = nil, etag: String? = nil, lastModified: String? = nil, age: String? = nil,
        expires: String? = nil, setsCookie: Bool = false, vary: String? = nil
    ) {
        self.cacheControl = cacheControl
        self.etag = etag
        self.lastModified = lastModified
        self.age = age
        self.expires = expires
        self.setsCookie = setsCookie
        self.vary = vary
        notCacheableBecause = Self.notCacheable(cacheControl: cacheControl, setsCookie: setsCookie, vary: vary)
    }

    /// How long a shared cache (serve's verdicts, SPEC 21) may reuse this response without asking again:
    /// `s-maxage` where it is given, else `max-age` (RFC 9111 5.2.2.10), less `Age`; 0 for `no-store`,
    /// `no-cache` or `private`, or when it says none.
    package var freshSeconds: Int {
        let directives = Self.directives(cacheControl)
        if directives.contains(where: { $0.value == nil && ["no-store", "no-cache", "private"].contains($0.name) }) { return 0 }
        let given = { (name: String) in directives.first { $0.name == name && $0.seconds != nil }?.seconds }
        let lifetime = given("s-maxage") ?? given("max-age") ?? 0
        return max(0, lifetime - (age.flatMap { Int($0.trimmingWhitespace()) } ?? 0))
    }

    /// `Cache-Control`'s directives, lowercased, each with its value (quotes taken off) when it has one.
    private static func directives(_ cacheControl: String?) -> [(name: String, value: String?, seconds: Int?)] {
        (cacheControl ?? "").lowercased().split(separator: ",").map { directive in
            let parts = directive.split(separator: "=", maxSplits: 1).map { $0.trimmingWhitespace() }
            let value = parts.count == 2 ? parts[1] : nil
            return (parts.first ?? "", value, value.flatMap { Int($0.trimmingCharacters(in: "\"")) })
        }
    }

    /// `no-store`, `no-cache`, `private`, a zero `max-age` or `s-maxage`,
    /// `Set-Cookie`, or `Vary: *`.
    private static func notCacheable(cacheControl: String?, setsCookie: Bool, vary: String?) -> String? {
        for directive in directives(cacheControl) {
            if directive.value == nil, ["no-store", "no-cache", "private"].contains(directive.name) { return "Cache-Control: \(directive.name)" }
            if let value = directive.value, ["max-age", "s-maxage"].contains(directive.name), let seconds = directive.seconds, seconds <= 0 {
                return "Cache-Control: \(directive.name)=\(value)"
            }
        }
        if setsCookie { return "Set-Cookie" }
        if vary?.split(separator: ",").contains(where: { $0.trimmingWhitespace() == "*" }) == true { return "Vary: *" }
        return nil
    }

    package static func == (lhs: HTTPFacts, rhs: HTTPFacts) -> Bool {
        (lhs.cacheControl, lhs.etag, lhs.lastModified, lhs.age, lhs.expires, lhs.vary) == (rhs.cacheControl, rhs.etag, rhs.lastModified, rhs.age, rhs.expires, rhs.vary)
            && lhs.setsCookie == rhs.setsCookie
    }

    package var json: JSONValue {
        .object([
            JSONMember("cacheControl", .optional(cacheControl)),
            JSONMember("etag", .optional(etag)),
            JSONMember("lastModified", .optional(lastModified)),
            JSONMember("age", .optional(age)),
            JSONMember("expires", .optional(expires)),
        ])
    }
}

/// How long one fetch took, phase by phase, from libcurl (`CURLINFO_*_TIME_T`),
/// summed over its redirect hops: name lookup, TCP connect, TLS handshake, time
/// to the final response's first byte, and the whole fetch.
package struct FetchTimings: Sendable, Equatable {
    package var dnsMs = 0
    package var connectMs = 0
    package var tlsMs = 0
    package var firstByteMs = 0
    package var totalMs = 0

    package init() {}

    /// The same times, from microseconds to whole milliseconds.
    init(microseconds: FetchTimings) {
        dnsMs = microseconds.dnsMs / 1000
        connectMs = microseconds.connectMs / 1000
        tlsMs = microseconds.tlsMs / 1000
        firstByteMs = microseconds.firstByteMs / 1000
        totalMs = microseconds.totalMs / 1000
    }

    package var json: JSONValue {
        .object([
            JSONMember("dnsMs", .int(dnsMs)),
            JSONMember("connectMs", .int(connectMs)),
            JSONMember("tlsMs", .int(tlsMs)),
            JSONMember("firstByteMs", .int(firstByteMs)),
            JSONMember("totalMs", .int(totalMs)),
        ])
    }
}

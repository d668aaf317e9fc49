import Glibc

/// A signed URL's expiry, read from the URL itself (SPEC 20, `url_expires`): AWS SigV4
/// (`X-Amz-Date` + `X-Amz-Expires`), Google Cloud Storage V4 (`X-Goog-Date` + `X-Goog-Expires`),
/// CloudFront and AWS SigV2 (`Expires=` seconds since 1970). A phone downloads the media when the
/// push arrives, which can be as late as the send time plus the push's lifetime.
package enum SignedURL {
    package struct Expiry: Sendable, Equatable {
        /// Seconds since 1970.
        package var at: Int
        /// How the URL says it: `X-Amz-Date + X-Amz-Expires`, `Expires`.
        package var scheme: String
    }

    /// The expiry `url` states, or nil when it is not a signed URL of a known kind.
    package static func expiry(of url: String) -> Expiry? {
        // Most URLs are not signed: no query split for them.
        guard let question = url.utf8.firstIndex(of: UInt8(ascii: "?")),
              url.range(ofBytes: "xpires=") != nil || url.range(ofBytes: "XPIRES=") != nil else { return nil }
        var query = Substring(url)[url.index(after: question)...]
        if let hash = query.firstIndex(of: "#") { query = query[..<hash] }
        var parameters: [String: String] = [:]
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2 else { continue }
            parameters[String(parts[0]).lowercased()] = String(parts[1])
        }
        for prefix in ["x-amz", "x-goog"] {
            if let date = parameters["\(prefix)-date"].flatMap(compactTimestamp), let seconds = parameters["\(prefix)-expires"].flatMap({ Int($0) }) {
                let name = prefix == "x-amz" ? "X-Amz" : "X-Goog"
                return Expiry(at: date + seconds, scheme: "\(name)-Date + \(name)-Expires")
            }
        }
        if let epoch = parameters["expires"].flatMap({ Int($0) }), epoch > 0 { return Expiry(at: epoch, scheme: "Expires") }
        return nil
    }

    /// `20261203T084400Z` (SigV4's and GCS's form), as seconds since 1970.
    static func compactTimestamp(_ text: String) -> Int? {
        let bytes = Array(text.utf8)
        guard bytes.count == 16, bytes[8] == UInt8(ascii: "T"), bytes[15] == UInt8(ascii: "Z") else { return nil }
        let digits = String(decoding: bytes[0..<8] + bytes[9..<15], as: UTF8.self)
        return CertificateFacts.seconds(fromTimestamp:
            "\(digits.prefix(4))-\(digits.dropFirst(4).prefix(2))-\(digits.dropFirst(6).prefix(2))T"
            + "\(digits.dropFirst(8).prefix(2)):\(digits.dropFirst(10).prefix(2)):\(digits.dropFirst(12).prefix(2))Z")
    }

    /// How long a push may wait for an offline phone when the request sets nothing: APNs keeps it 30 days, FCM 28.
    package static func defaultLifetimeSeconds(_ platform: Platform) -> Int {
        platform == .ios ? 30 * 86_400 : 28 * 86_400
    }

    /// `url_expires` for one URL, or nil: an error when it has expired by the send time (`sendAt`, else `now`), a
    /// warning when it expires before the push's latest delivery (the send time plus the request's `lifetime`,
    /// else the platform's default).
    package static func finding(for url: String, now: Int, sendAt: Int?, lifetime: SendRequest.Lifetime? = nil,
                                platform: Platform = .ios) -> Diagnostic? {
        expiry(of: url).flatMap { finding(for: $0, now: now, sendAt: sendAt, lifetime: lifetime, platform: platform) }
    }

    /// As `finding(for:now:sendAt:lifetime:platform:)`, for an expiry already read. Its message gives the URL's
    /// own dates and those the campaign set, never the run's clock: without `--send-at`, the same output every run
    /// (SPEC 20's round five).
    package static func finding(for expiry: Expiry, now: Int, sendAt: Int?, lifetime: SendRequest.Lifetime?,
                                platform: Platform) -> Diagnostic? {
        let ends = "\(CertificateFacts.timestamp(expiry.at)) (\(expiry.scheme))"
        let sent = sendAt ?? now
        if expiry.at <= sent {
            let when = sendAt.map { ", before the send time \(CertificateFacts.timestamp($0))" } ?? ""
            return .error(.urlExpires, "the signed URL expired at \(ends)\(when): every phone gets an error instead of the media; "
                + DiagnosticCode.urlExpires.fix)
        }
        let latest = lifetime?.latestDelivery(sentAt: sent) ?? sent + defaultLifetimeSeconds(platform)
        guard expiry.at < latest else { return nil }
        let before: String
        switch (sendAt, lifetime) {
        case (let sendAt?, _):
            before = "before the push's latest delivery at \(CertificateFacts.timestamp(latest)) (sent at "
                + "\(CertificateFacts.timestamp(sendAt)), kept that long for phones that are off)"
        case (nil, .until(let epoch)?):
            before = "before the push's latest delivery at \(CertificateFacts.timestamp(epoch)) (the request's expiration)"
        case (nil, .seconds(let seconds)?):
            before = "within the \(seconds) s the request keeps the push for phones that are off, from a send now "
                + "(--send-at TIME gives the dates)"
        case (nil, nil):
            before = "within the \(defaultLifetimeSeconds(platform) / 86_400) days \(platform == .ios ? "APNs" : "FCM") keeps the push for "
                + "phones that are off, from a send now (--send-at TIME gives the dates)"
        }
        return Diagnostic(.warning, .urlExpires, "the signed URL expires at \(ends), \(before): those phones get no media; "
            + DiagnosticCode.urlExpires.fix)
    }
}

import Glibc

/// What an input reaches: an APNs payload is one delivery, to iPhones; an FCM send
/// request two, iOS first (SPEC 15). The one place `process` and `check` turn an
/// input into the plans they download for and judge.
package struct Deliveries: Sendable {
    /// True for a send request (its records' sources end in `#ios` / `#android`).
    package let isRequest: Bool
    /// The deliveries `--platform` keeps, iOS first.
    package let list: [Delivery]
    /// The distinct URLs they fetch, in the order they name them.
    package let fetches: [MediaURL]

    /// - Parameters:
    ///   - policies: every SDK's policy under `options`, when the caller made them once for many inputs.
    ///   - checkURL: section 2's URL check; `check` passes a memoized one.
    /// - Throws: `PayloadError` for a send request FCM refuses (`message.data` not all strings).
    package init(
        _ payload: Payload, source: String, selection: SDKSelection, options: FetchOptions, platforms: PlatformSelection,
        policies: PolicyTable? = nil,
        checkURL: (JSONValue?, String, Bool) -> MediaURL.Verdict = { MediaURL.check($0, key: $1, allowHTTP: $2) }
    ) throws(PayloadError) {
        var list: [Delivery] = []
        if let request = try SendRequest.parse(payload) {
            isRequest = true
            for (delivery, platform) in [(request.ios, Platform.ios), (request.android, Platform.android)] where platforms.includes(platform) {
                list.append(Delivery(
                    plan: PayloadPlan(
                        delivery, selection: selection.forSendRequest, options: options, policies: policies, platform: platform,
                        latestDelivery: Self.latestDelivery(of: payload, on: platform, sendAt: options.sendAt), checkURL: checkURL),
                    source: "\(source)#\(platform.rawValue)"))
            }
        } else {
            isRequest = false
            // One delivery, made in a list of its size (a campaign makes one a line).
            self.list = platforms.includes(.ios) ? [Delivery(
                plan: PayloadPlan(payload, selection: selection.forAPNsPayload, options: options, policies: policies, checkURL: checkURL),
                source: source)] : []
            // Its plan's URLs are the input's: shared, not copied.
            self.fetches = self.list.first?.plan.fetches ?? []
            return
        }
        var fetches: [MediaURL] = []
        for delivery in list {
            for url in delivery.plan.fetches where !fetches.contains(where: { $0.string == url.string }) { fetches.append(url) }
        }
        self.list = list
        self.fetches = fetches
    }

    /// When a request's push stops waiting for an offline phone, as the request sets it (SPEC 20): the
    /// APNs `apns-expiration` header (seconds since 1970; 0: not stored, so the send time), or Android's
    /// `ttl` (`"86400s"`) after the send time; nil when it sets none.
    static func latestDelivery(of request: Payload, on platform: Platform, sendAt: Int?) -> Int? {
        let message = request.root["message"]
        let sent = sendAt ?? Int(time(nil))
        switch platform {
        case .ios:
            guard let text = message?.value(at: ["apns", "headers", "apns-expiration"])?.stringValue, let epoch = Int(text) else { return nil }
            return epoch == 0 ? sent : epoch
        case .android:
            guard let text = message?.value(at: ["android", "ttl"])?.stringValue, text.hasSuffix("s"),
                  let seconds = Double(text.dropLast()), seconds >= 0 else { return nil }
            return sent + Int(seconds.rounded(.up))
        }
    }

    /// The policy `url`'s one download runs under: an APNs payload's, the run's
    /// (`apnsPolicy`); a request's, the loosest of the records that name it, and
    /// no other's (SPEC 15: a record with no media lends it nothing).
    package func fetchPolicy(for url: MediaURL, apnsPolicy: MediaPolicy) -> MediaPolicy {
        guard isRequest else { return apnsPolicy }
        return .loosest(of: list.compactMap { delivery in
            delivery.plan.fetches.contains { $0.string == url.string } ? delivery.plan.policy : nil
        })
    }
}

/// One delivery of an input: its plan, and the source its record carries
/// (`path`, or `path#ios` / `path#android` for a send request).
package struct Delivery: Sendable {
    package let plan: PayloadPlan
    package let source: String
}

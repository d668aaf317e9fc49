import Glibc

/// What an input reaches: an APNs payload is one delivery, to iPhones; a send
/// request (FCM's or a platform's) one per platform it targets, iOS first (SPEC 15, 20). The one place `process` and `check` turn an
/// input into the plans they download for and judge.
package struct Deliveries: Sendable {
    /// True for a send request (its records' sources end in `#ios` / `#android`).
    package let isRequest: Bool
    /// The deliveries `--platform` keeps, iOS first.
    package let list: [Delivery]
    /// The distinct URLs they fetch, in the order they name them.
    package let fetches: [MediaURL]

    /// - Parameters:
    ///   - request: the send request `payload` is (`SendRequest.parse`, read with the payload), or nil
    ///     for an APNs payload.
    ///   - policies: every SDK's policy under `options`, when the caller made them once for many inputs.
    ///   - checkURL: section 2's URL check; `check` passes a memoized one.
    package init(
        _ payload: Payload, request: SendRequest?, source: String, selection: SDKSelection, options: FetchOptions,
        platforms: PlatformSelection, policies: PolicyTable? = nil,
        checkURL: (JSONValue?, String, Bool) -> MediaURL.Verdict = { MediaURL.check($0, key: $1, allowHTTP: $2) }
    ) {
        var list: [Delivery] = []
        if let request {
            isRequest = true
            // A platform's request is judged under its own platform's rules; an FCM request under `--sdk`'s (SPEC 20).
            let judgedUnder = request.dialect.sdk.map { SDKSelection.fixed($0) } ?? selection.forSendRequest
            for platform in Platform.allCases where platforms.includes(platform) {
                guard let delivery = request.delivery(to: platform) else { continue }
                list.append(Delivery(
                    plan: PayloadPlan(
                        delivery.payload, selection: judgedUnder, options: options, policies: policies, platform: platform,
                        lifetime: delivery.lifetime, platformLimits: delivery.limits,
                        checkURL: checkURL),
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

/// Every SDK's download policy under one run's options, made once: a campaign
/// plans millions of payloads under the same few.
package struct PolicyTable: Sendable {
    /// By `SDK.ordinal`.
    private let policies: [MediaPolicy]

    package init(_ options: FetchOptions) {
        policies = SDK.allCases.map { $0.profile.policy(options) }
    }

    package subscript(sdk: SDK) -> MediaPolicy { policies[sdk.ordinal] }
}

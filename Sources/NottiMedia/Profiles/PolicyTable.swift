/// Every SDK's download policy under one run's options, made once: a campaign
/// plans millions of payloads under the same few.
package struct PolicyTable: Sendable {
    /// By `SDK.ordinal`.
    private let policies: [MediaPolicy]
    /// Android's display codes' (a send request's Android record), by their SDK's ordinal; nil for an SDK with none.
    private let androidPolicies: [MediaPolicy?]

    package init(_ options: FetchOptions) {
        policies = SDK.allCases.map { $0.profile.policy(options) }
        androidPolicies = SDK.allCases.map { SDKProfile.of($0, on: .android)?.policy(options) }
    }

    package subscript(sdk: SDK) -> MediaPolicy { policies[sdk.ordinal] }

    /// The policy of `profile`, one of Android's display codes.
    package subscript(android profile: SDKProfile) -> MediaPolicy? { androidPolicies[profile.sdk.ordinal] }
}

/// Every SDK's download policy under one run's options, made once: a campaign
/// plans millions of payloads under the same few.
public struct PolicyTable: Sendable {
    private let policies: [SDK: MediaPolicy]

    public init(_ options: FetchOptions) {
        policies = Dictionary(uniqueKeysWithValues: SDK.allCases.map { ($0, $0.profile.policy(options)) })
    }

    public subscript(sdk: SDK) -> MediaPolicy {
        guard let policy = policies[sdk] else { preconditionFailure("the table holds every SDK") }
        return policy
    }
}

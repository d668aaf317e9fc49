/// Whose Notification Service Extension is reproduced (`--sdk`).
public enum SDK: String, Sendable, CaseIterable {
    // Declaration order is `auto`'s order of preference when a payload carries several media keys.
    case notti, braze, fcm, onesignal, airship, clevertap, iterable, batch, expo

    /// The name people know the SDK by.
    public var displayName: String {
        switch self {
        case .notti: "Notti"
        case .braze: "Braze"
        case .fcm: "Firebase Messaging"
        case .onesignal: "OneSignal"
        case .airship: "Airship"
        case .clevertap: "CleverTap"
        case .iterable: "Iterable"
        case .batch: "Batch"
        case .expo: "Expo"
        }
    }

    /// Its position in `allCases`: tables with an entry per SDK are arrays indexed by it, not hashed.
    var ordinal: Int {
        switch self {
        case .notti: 0
        case .braze: 1
        case .fcm: 2
        case .onesignal: 3
        case .airship: 4
        case .clevertap: 5
        case .iterable: 6
        case .batch: 7
        case .expo: 8
        }
    }

    /// Its profile: where its media is, and what its extension does with it.
    package var profile: SDKProfile {
        switch self {
        case .notti: .notti
        case .braze: .braze
        case .fcm: .fcm
        case .onesignal: .oneSignal
        case .airship: .airship
        case .clevertap: .cleverTap
        case .iterable: .iterable
        case .batch: .batch
        case .expo: .expo
        }
    }
}

/// `--sdk NAME`, or `auto`: per payload, by the media key it carries.
public enum SDKSelection: Sendable, Equatable {
    case fixed(SDK)
    case auto
    /// No `--sdk`: Notti's rules for an APNs payload, `auto` for a send request (a
    /// request names Firebase's key: judged as Notti's, it would pass an image
    /// iPhones never show; SPEC 15).
    case unspecified

    /// What an APNs payload is judged under.
    package var forAPNsPayload: SDKSelection { self == .unspecified ? .fixed(.notti) : self }

    /// What a send request's deliveries are judged under.
    package var forSendRequest: SDKSelection { self == .unspecified ? .auto : self }

    /// The profile for `payload`, and the SDKs whose media keys it also carries
    /// (more than one under `auto`: `ambiguous_sdk`).
    package func resolve(for payload: Payload) -> (sdk: SDK, alsoPresent: [SDK]) {
        switch self {
        case .fixed(let sdk): return (sdk, [])
        case .unspecified: return (.notti, [])
        case .auto:
            let present = SDK.allCases.filter { $0.profile.carriesMediaKey(payload) }
            guard let first = present.first else { return (.notti, []) }
            return (first, Array(present.dropFirst()))
        }
    }
}

extension SDKSelection {
    /// The policy an APNs payload's download runs under: the chosen profile's, or
    /// under `auto` the loosest of every profile's, so each URL is fetched once
    /// whichever profiles its payloads turn out to use. (A send request's
    /// downloads run under the loosest of the records that name each URL.)
    package func fetchPolicy(_ options: FetchOptions) -> MediaPolicy {
        switch forAPNsPayload {
        case .fixed(let sdk): sdk.profile.policy(options)
        case .auto, .unspecified: .loosest(of: SDK.allCases.map { $0.profile.policy(options) })
        }
    }
}

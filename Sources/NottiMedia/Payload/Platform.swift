/// Which phone a record is about (SPEC 15): an APNs payload is delivered to
/// iPhones; an FCM send request to both.
public enum Platform: String, Sendable, CaseIterable {
    case ios, android

    /// Its position in `allCases`, for tables indexed by platform.
    var ordinal: Int { self == .ios ? 0 : 1 }
}

/// What each platform does the same for every SDK: data the profiles and the
/// download policy read, so no rule asks which platform it is.
extension Platform {
    /// iOS leaves cleartext http to App Transport Security (an app may allow it).
    var leavesCleartextToATS: Bool { self == .ios }
    /// Android's network security policy blocks cleartext (API 28 and later).
    var blocksCleartext: Bool { self == .android }
    /// iOS checks every connection's TLS (SPEC 18); Android's HttpURLConnection, the chain alone.
    var checksConnectionAsIOS: Bool { self == .ios }

    /// An SDK's own streamed cap as messages name it: on iOS the SDK's limit (the default
    /// message), on Android the display code's (Firebase's 1 MiB).
    func streamedCapDescription(_ sdk: SDK, bytes: Int) -> String? {
        switch self {
        case .ios: nil
        case .android: "\(sdk.displayName)'s Android limit of \(bytes / 1_048_576) MiB (\(bytes) bytes)"
        }
    }

    /// What bounds a download whose SDK sets no cap of its own (or, like OneSignal,
    /// caps announced lengths alone): iOS's largest attachment limit, or on Android the tool's read bound.
    func uncappedDescription(_ sdk: SDK) -> String {
        switch self {
        case .ios: "iOS's largest attachment limit (\(DeviceModel.largestLimitBytes) bytes, video)"
        case .android: "the tool's read bound (\(DeviceModel.largestLimitBytes) bytes; \(sdk.displayName) sets no cap on Android)"
        }
    }
}

/// `--platform ios|android|all`: the deliveries checked.
public enum PlatformSelection: String, Sendable {
    case ios, android, all

    public func includes(_ platform: Platform) -> Bool {
        self == .all || rawValue == platform.rawValue
    }
}

/// Which phone a record is about (SPEC 15): an APNs payload is delivered to
/// iPhones; an FCM send request to both.
public enum Platform: String, Sendable, CaseIterable {
    case ios, android

    /// Its position in `allCases`, for tables indexed by platform.
    var ordinal: Int { self == .ios ? 0 : 1 }
}

/// `--platform ios|android|all`: the deliveries checked.
public enum PlatformSelection: String, Sendable {
    case ios, android, all

    public func includes(_ platform: Platform) -> Bool {
        self == .all || rawValue == platform.rawValue
    }
}

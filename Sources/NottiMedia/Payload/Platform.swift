/// Which phone a record is about (SPEC 15): an APNs payload is delivered to
/// iPhones; an FCM send request to both.
public enum Platform: String, Sendable, CaseIterable {
    case ios, android
}

/// `--platform ios|android|all`: the deliveries checked.
public enum PlatformSelection: String, Sendable {
    case ios, android, all

    public func includes(_ platform: Platform) -> Bool {
        self == .all || rawValue == platform.rawValue
    }
}

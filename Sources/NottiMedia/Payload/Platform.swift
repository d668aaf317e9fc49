/// Which phone a record is about (SPEC 15): an APNs payload is delivered to
/// iPhones; an FCM send request to both.
public enum Platform: String, Sendable, CaseIterable {
    case ios, android

    /// Its position in `allCases`, for tables indexed by platform.
    var ordinal: Int { self == .ios ? 0 : 1 }

    /// A record's source split at its delivery (`path:7#android` → `path:7`, `#android`), the one place
    /// that suffix is read: a file name's own `#` (`summer sale#1.json`) stays in the path.
    package static func splitDelivery(_ source: String) -> (path: Substring, delivery: Substring) {
        for platform in allCases where source.hasSuffix("#\(platform.rawValue)") {
            let cut = source.index(source.endIndex, offsetBy: -(platform.rawValue.count + 1))
            return (source[..<cut], source[cut...])
        }
        return (source[...], "")
    }

    /// As people write it: `iOS`, `Android`.
    package var displayName: String { self == .ios ? "iOS" : "Android" }
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

    /// Android's display code decodes the picture before it shows the notification (BitmapFactory:
    /// a file that does not decode leaves the text alone); iOS attaches the file unread and draws or
    /// plays it later (SPEC 17).
    var decodesBeforeShowing: Bool { self == .android }
    /// What BitmapFactory draws below the last row of a cut file: Android's grey; nil: iOS's
    /// decoder draws the rows that are there.
    var fillBelowCut: String? { self == .android ? "grey" : nil }
    /// Android's largest drawable bitmap (`RecordingCanvas.MAX_BITMAP_SIZE`, 100 MiB): a picture
    /// that decodes larger is dropped by phones with less memory; nil: iOS draws a thumbnail of it.
    var largestBitmapBytes: Int? { self == .android ? 104_857_600 : nil }
    /// iOS plays a video attachment in the notification, so its codec and tag must be ones iOS
    /// plays; Android's notifications show no video.
    var playsVideo: Bool { self == .ios }

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

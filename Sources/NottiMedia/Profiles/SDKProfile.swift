/// One SDK's Notification Service Extension as data, plus the few strategies
/// that really differ between SDKs: where its media entries are (`readSpec`),
/// how the file's type is decided (`typeRule`), and how failures combine.
/// Everything else about the path (fetching, sniffing, iOS's own rules) is shared.
///
/// A class, immutable: every payload of a campaign consults its profile, and
/// passing a reference costs one retain where copying the value cost a dozen.
package final class SDKProfile: Sendable {
    package enum SizeCap: Sendable, Equatable {
        /// The SDK stops reading past this many bytes (Notti).
        case streamed(Int)
        /// The SDK cancels a download whose Content-Length announces more (OneSignal).
        case announced(Int)
        /// No cap of its own: iOS's per-type limits decide.
        case none
    }

    package enum FailurePolicy: Sendable, Equatable {
        /// One attachment: its failure is the payload's.
        case single
        /// Each entry fails alone; the payload attaches what succeeded (OneSignal).
        case perEntry
        /// One failing entry drops every attachment and the content overrides (Airship).
        case allOrNothing
    }

    /// How an SDK tells a file of the app's from a URL, and what the phone shows of it.
    package enum BundleFileRule: Sendable, Equatable {
        /// A scheme other than http or https, in any case, names a file in the app bundle, which
        /// the extension attaches if the app ships it (OneSignal's iOS extension): `bundle_resource`.
        case otherSchemesAttach
        /// A value that does not start with `http://` or `https://` (case-sensitive) names a
        /// resource of the app, an icon and no picture (OneSignal's Android display code, SPEC 15):
        /// a warning, and nothing shown (`no_media`).
        case notHTTPPrefixedShowsNone

        /// Whether `text`, a media entry's value, names a URL to fetch under this rule.
        func isURL(_ text: String) -> Bool {
            switch self {
            case .otherSchemesAttach:
                let scheme = text.range(ofBytes: "://").map { text[..<$0.lowerBound].lowercased() }
                return scheme == "http" || scheme == "https"
            case .notHTTPPrefixedShowsNone:
                return text.hasPrefix("http://") || text.hasPrefix("https://")
            }
        }

        /// Whether the phone attaches the file the value names (else it shows no picture).
        var attaches: Bool { self == .otherSchemesAttach }

        /// The `bundle_resource` warning's message for `quotedValue` under `sdk`'s code.
        func message(_ quotedValue: String, sdk: SDK) -> String {
            switch self {
            case .otherSchemesAttach:
                "the value \(quotedValue) is not an http(s) URL: \(sdk.displayName) attaches the file of that name from the app "
                    + "bundle, if the app ships one; make sure it does, or send a URL"
            case .notHTTPPrefixedShowsNone:
                "the value \(quotedValue) does not start with http:// or https://: \(sdk.displayName)'s Android display code reads "
                    + "it as a resource of the app, not a picture to download, and shows no big picture; send a URL to show one"
            }
        }
    }

    package enum IdentifierRule: Sendable, Equatable {
        case fixed(String)
        /// The entry's own name (OneSignal's key, Airship's `url_id`), else "".
        case entry
        /// The suggested file name (Iterable; a device prefixes a UUID).
        case suggestedFilename

        /// The attachment identifier the SDK gives an entry's file.
        func name(for entry: MediaEntry, decision: DeviceTypeDecision?) -> String {
            switch self {
            case .fixed(let name): name
            case .entry: entry.identifier ?? ""
            case .suggestedFilename: decision?.suggestedName ?? ""
            }
        }
    }

    package let sdk: SDK
    /// Where its media keys are: each a path through nested objects.
    package let mediaKeys: [[String]]
    /// Notti refuses http itself; every other SDK leaves it to App Transport Security.
    package let refusesHTTPItself: Bool
    /// The SDK's own deadline, else the system's 30 s budget for an extension.
    package let deadlineSeconds: Double
    package let sizeCap: SizeCap
    /// How the phone turns a download into this entry's verdict: Notti's sniffing,
    /// the SDK's type rule under iOS's device model, or Android's BitmapFactory.
    package let rule: MediaRule
    package let failurePolicy: FailurePolicy
    package let identifier: IdentifierRule
    /// Which values name a file of the app's rather than a URL (OneSignal): nothing is fetched;
    /// nil: every value is read as a URL.
    package let bundleFiles: BundleFileRule?
    /// Reads the payload's media entries, as the SDK's own decoder would.
    package let readSpec: @Sendable (Payload) -> MediaSpec
    /// The phone whose rules these are: iOS's extension, or Android's notification code
    /// (the picture must decode as a bitmap; cleartext blocked by Android's policy).
    package let platform: Platform
    /// Redirects followed; one more is `too_many_redirects` (iOS's SDKs 5, HttpURLConnection 20).
    package let maxRedirects: Int
    /// A connection that takes longer fails the download (Airship on Android: 2 s); nil: the deadline alone.
    package let connectTimeoutSeconds: Double?
    /// Whose code decodes the picture with BitmapFactory, which ignores its EXIF orientation, as the
    /// `orientation_ignored` message names it (Firebase's and OneSignal's display code; Airship's on
    /// Android 8.1 and older); nil: the phone shows the picture upright.
    package let orientationIgnoredBy: String?
    /// Android shows the picture as the large icon, a small square beside the text, and never as a big
    /// picture (Expo's `expo-notifications` builder): `large_icon_only`, and the preview draws it so.
    package let showsLargeIconOnly: Bool

    init(
        sdk: SDK, mediaKeys: [[String]], refusesHTTPItself: Bool, deadlineSeconds: Double, sizeCap: SizeCap,
        rule: MediaRule, failurePolicy: FailurePolicy, identifier: IdentifierRule, bundleFiles: BundleFileRule? = nil,
        platform: Platform = .ios, maxRedirects: Int = MediaPolicy.sdkMaxRedirects, connectTimeoutSeconds: Double? = nil,
        orientationIgnoredBy: String? = nil, showsLargeIconOnly: Bool = false, readSpec: @escaping @Sendable (Payload) -> MediaSpec
    ) {
        self.platform = platform
        self.showsLargeIconOnly = showsLargeIconOnly
        self.orientationIgnoredBy = orientationIgnoredBy
        self.maxRedirects = maxRedirects
        self.connectTimeoutSeconds = connectTimeoutSeconds
        self.sdk = sdk
        self.mediaKeys = mediaKeys
        self.refusesHTTPItself = refusesHTTPItself
        self.deadlineSeconds = deadlineSeconds
        self.sizeCap = sizeCap
        self.rule = rule
        self.failurePolicy = failurePolicy
        self.identifier = identifier
        self.bundleFiles = bundleFiles
        self.readSpec = readSpec
    }

    /// Every SDK's media keys, as paths and dotted names, in `--sdk`'s order:
    /// looked up once for every payload (`foreign_media_key`).
    static let allMediaKeys: [(sdk: SDK, path: [String], dotted: String)] = SDK.allCases.flatMap { sdk in
        sdk.profile.mediaKeys.map { (sdk, $0, $0.joined(separator: ".")) }
    }

    /// For each SDK, the top-level keys other SDKs' media keys start with: a
    /// payload with none of them carries no `foreign_media_key`, which rules the
    /// lookups out for nearly every payload of a campaign in one pass.
    /// (By `SDK.ordinal`.)
    static let foreignMediaKeyRoots: [KeyList] = SDK.allCases.map { sdk in
        KeyList(allMediaKeys.filter { $0.sdk != sdk && !sdk.profile.mediaKeys.contains($0.path) }.compactMap(\.path.first))
    }

    /// A few keys, matched by length first: cheaper than hashing every key a payload has.
    struct KeyList: Sendable {
        private let keys: [(length: Int, key: String)]

        init(_ keys: [String]) { self.keys = keys.map { ($0.utf8.count, $0) } }

        func contains(_ key: String) -> Bool {
            let length = key.utf8.count
            return keys.contains { $0.length == length && $0.key == key }
        }
    }

    /// True when the payload carries one of this SDK's media keys.
    package func carriesMediaKey(_ payload: Payload) -> Bool {
        presentMediaKeys(payload).isEmpty == false
    }

    /// This SDK's media keys present in the payload, dotted (`ab.att`).
    package func presentMediaKeys(_ payload: Payload) -> [String] {
        mediaKeys.filter { payload.root.value(at: $0) != nil }.map { $0.joined(separator: ".") }
    }

    /// The download policy for this SDK under the user's options: its own deadline
    /// and cap unless `--timeout` / `--max-bytes` say otherwise.
    package func policy(_ options: FetchOptions) -> MediaPolicy {
        let cap: (bytes: Int, description: String?)
        switch sizeCap {
        case .streamed(let bytes): cap = (bytes, platform.streamedCapDescription(sdk, bytes: bytes))
        case .announced, .none: cap = (DeviceModel.largestLimitBytes, platform.uncappedDescription(sdk))
        }
        var policy = MediaPolicy(
            maxBytes: options.maxBytes ?? cap.bytes,
            timeoutSeconds: options.timeoutSeconds ?? deadlineSeconds,
            maxRedirects: maxRedirects,
            extraCAFile: options.extraCAFile, connectTo: options.connectTo,
            denyPrivateNetworks: options.denyPrivateNetworks,
            allowHTTP: !refusesHTTPItself && options.allowHTTP, httpRefusedByATS: !refusesHTTPItself && platform.leavesCleartextToATS,
            capDescription: options.maxBytes == nil ? cap.description : nil)
        policy.httpRefusedByAndroid = platform.blocksCleartext
        policy.checksConnectionAsIOS = platform.checksConnectionAsIOS
        policy.allowsArbitraryLoads = options.allowHTTP
        if case .announced(let bytes) = sizeCap, options.maxBytes == nil {
            // OneSignal holds only an announced length to its cap; a body without one runs to iOS's limits.
            policy.announcedMaxBytes = bytes
            policy.announcedCapDescription = "\(sdk.displayName)'s \(bytes)-byte limit (announced lengths only)"
        }
        policy.connectTimeoutSeconds = options.timeoutSeconds == nil ? connectTimeoutSeconds : nil
        policy.decodes = options.decodes
        return policy
    }
}

/// What the user set for every download, whichever SDK's rules apply.
public struct FetchOptions: Sendable, Equatable {
    /// `--max-bytes`: replaces the SDK's cap.
    public var maxBytes: Int?
    /// `--timeout`: replaces the SDK's deadline.
    public var timeoutSeconds: Double?
    /// `--allow-http`: the app has an App Transport Security exception (not for Notti, which refuses http itself).
    public var allowHTTP: Bool
    public var extraCAFile: String?
    public var connectTo: [String]
    public var denyPrivateNetworks: Bool
    /// `--network`: the network to warn about (`slow_network`); it changes no download.
    public var network: NetworkProfile?
    /// False under `--no-decode`: no file is read by the phone's decoders, and every report says so.
    public var decodes: Bool
    /// `--send-at`: when the campaign is sent, seconds since 1970 (nil: now), for `url_expires`.
    public var sendAt: Int?
    /// `--device-headers`: each URL is also fetched with each platform's own request headers (`device_dependent`).
    public var deviceHeaders = false

    public init(
        maxBytes: Int? = nil, timeoutSeconds: Double? = nil, allowHTTP: Bool = false, extraCAFile: String? = nil,
        connectTo: [String] = [], denyPrivateNetworks: Bool = false, network: NetworkProfile? = nil, decodes: Bool = true,
        sendAt: Int? = nil
    ) {
        self.network = network
        self.decodes = decodes
        self.sendAt = sendAt
        self.maxBytes = maxBytes
        self.timeoutSeconds = timeoutSeconds
        self.allowHTTP = allowHTTP
        self.extraCAFile = extraCAFile
        self.connectTo = connectTo
        self.denyPrivateNetworks = denyPrivateNetworks
    }
}

extension JSONValue {
    /// The value at a path of object keys (`["ab", "att"]`), or nil.
    package func value(at path: [String]) -> JSONValue? {
        var current: JSONValue? = self
        for key in path { current = current?[key] }
        return current
    }
}

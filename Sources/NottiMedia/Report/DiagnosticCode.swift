/// Every code the tool can print, with what goes with it: whether it is a
/// reason (why content went out without media, SPEC 2, 3, 12) or a lint, its
/// severity as a finding, the fix its message ends with, and one plain line
/// for people who do not read codes (the preview). docs/reference.md's table, the
/// preview and every output format take their words from here.
///
/// Scripts match on `rawValue`: never rename one.
public enum DiagnosticCode: String, Sendable, CaseIterable {
    // Reasons: the `reason` of a report.
    case noMedia = "no_media"
    case invalidPayload = "invalid_payload"
    case invalidURL = "invalid_url"
    case unrenderedTemplate = "unrendered_template"
    case urlExpires = "url_expires"
    case dataOnlyImage = "data_only_image"
    case urlNeedsEncoding = "url_needs_encoding"
    case deviceDependent = "device_dependent"
    case notHTTPS = "not_https"
    case insecureRedirect = "insecure_redirect"
    case tooManyRedirects = "too_many_redirects"
    case httpError = "http_error"
    case emptyMedia = "empty_media"
    case tooLarge = "too_large"
    case timeout = "timeout"
    case tlsError = "tls_error"
    case atsViolation = "ats_violation"
    case networkError = "network_error"
    case blockedAddress = "blocked_address"
    case writeError = "write_error"
    case invalidMediaSpec = "invalid_media_spec"
    case unsupportedType = "unsupported_type"
    case bundleResource = "bundle_resource"
    case undecodableMedia = "undecodable_media"
    // Lints: what a device would punish beyond the SDK's own path (SPEC 7, 10, 12, 13).
    case mutableContentMissing = "mutable_content_missing"
    case noAlert = "no_alert"
    case payloadTooLarge = "payload_too_large"
    case notificationIDMissing = "notification_id_missing"
    case exceedsIOSLimit = "exceeds_ios_limit"
    case typeMismatch = "type_mismatch"
    case foreignMediaKey = "foreign_media_key"
    case ambiguousSDK = "ambiguous_sdk"
    case duplicateKey = "duplicate_key"
    case animationLost = "animation_lost"
    case needsAndroidVersion = "needs_android_version"
    case noAndroidMedia = "no_android_media"
    case notCacheable = "not_cacheable"
    case slowNetwork = "slow_network"
    case certificateExpiring = "certificate_expiring"
    case truncatedMedia = "truncated_media"
    case orientationIgnored = "orientation_ignored"
    case largeBitmap = "large_bitmap"
    case unplayableVideo = "unplayable_video"
    case videoCodecSupport = "video_codec_support"
    case payloadNearLimit = "payload_near_limit"
    case additionalDataTooLarge = "additional_data_too_large"
    case largeIconOnly = "large_icon_only"
    case decodeFailed = "decode_failed"
    // The app as built (SPEC 22): what `notti-media app` finds in a build.
    case noServiceExtension = "no_service_extension"
    case extensionNotRunnable = "extension_not_runnable"
    case extensionAboveApp = "extension_above_app"
    case extensionWithoutSDK = "extension_without_sdk"
    case noPushEntitlement = "no_push_entitlement"
    /// A code this version does not know, read back by `merge` from another version's
    /// output (`Diagnostic.codeText` keeps its text). Never made by this version.
    case unrecognised = "unrecognised"

    /// Every code this version makes: what its tables, rules and tests list.
    public static let known: [DiagnosticCode] = allCases.filter { $0 != .unrecognised }

    /// The reasons: why content went out without media. The rest are lints, of which
    /// `mutable_content_missing` and `no_alert` are also a report's reason when the
    /// payload names media (the extension never runs).
    public static let reasons: [DiagnosticCode] = known.filter(\.isReason)

    /// The lints: every code that is not one of `reasons` (`unsupported_type` is both:
    /// an error for SDKs whose file iOS cannot type, a warning for Notti's jpg fallback).
    public static let lints: [DiagnosticCode] = known.filter { !$0.isReason || $0 == .unsupportedType }

    /// Every case named, no `default`: a new code must be placed here, never becoming a reason by accident.
    public var isReason: Bool {
        switch self {
        case .noMedia, .invalidPayload, .invalidURL, .unrenderedTemplate, .notHTTPS, .insecureRedirect, .tooManyRedirects, .httpError, .emptyMedia,
             .tooLarge, .timeout, .tlsError, .atsViolation, .networkError, .blockedAddress, .writeError, .invalidMediaSpec,
             .unsupportedType, .undecodableMedia: true
        case .mutableContentMissing, .noAlert, .payloadTooLarge, .notificationIDMissing, .exceedsIOSLimit, .typeMismatch,
             .foreignMediaKey, .ambiguousSDK, .duplicateKey, .animationLost, .needsAndroidVersion, .noAndroidMedia, .notCacheable,
             .slowNetwork, .certificateExpiring, .truncatedMedia, .orientationIgnored, .largeBitmap, .unplayableVideo,
             .videoCodecSupport, .urlExpires, .dataOnlyImage, .urlNeedsEncoding, .deviceDependent, .payloadNearLimit,
             .additionalDataTooLarge, .largeIconOnly, .decodeFailed, .bundleResource, .noServiceExtension, .extensionNotRunnable, .extensionAboveApp,
             .extensionWithoutSDK, .noPushEntitlement, .unrecognised: false
        }
    }

    /// The severity a finding of this code has most often (SARIF's default level):
    /// an error for a failing reason and the never-run lints, a warning otherwise
    /// (`unsupported_type` and `payload_too_large` can be either; a finding says which).
    public var defaultSeverity: Diagnostic.Severity {
        switch self {
        case .invalidPayload, .invalidURL, .unrenderedTemplate, .notHTTPS, .insecureRedirect, .tooManyRedirects, .httpError, .emptyMedia, .tooLarge,
             .timeout, .tlsError, .atsViolation, .networkError, .blockedAddress, .writeError, .invalidMediaSpec, .unsupportedType,
             .mutableContentMissing, .noAlert, .payloadTooLarge, .undecodableMedia, .unplayableVideo, .additionalDataTooLarge,
             .decodeFailed, .noServiceExtension, .extensionNotRunnable, .noPushEntitlement: .error
        case .noMedia, .bundleResource, .notificationIDMissing, .exceedsIOSLimit, .typeMismatch, .foreignMediaKey, .ambiguousSDK,
             .duplicateKey, .animationLost, .needsAndroidVersion, .noAndroidMedia, .notCacheable, .slowNetwork, .certificateExpiring, .truncatedMedia,
             .orientationIgnored, .largeBitmap, .videoCodecSupport, .urlExpires, .dataOnlyImage, .urlNeedsEncoding, .deviceDependent,
             .payloadNearLimit, .largeIconOnly, .extensionAboveApp, .extensionWithoutSDK, .unrecognised: .warning
        }
    }

    /// The errors of an attachment iOS creates and the phone cannot draw or play (SPEC 17): the outcome
    /// stays `attached`, the record fails.
    public var failsAnAttachment: Bool { self == .undecodableMedia || self == .unplayableVideo || self == .decodeFailed }

    /// `no_media` and `bundle_resource` are the reasons that are not failures.
    public var isFailure: Bool { self != .noMedia && self != .bundleResource }

    /// What a finding is about, and so what can mend it: the one classification `fix` (SPEC 19), the
    /// finding positions and the per-host lines read. Every case named, no `default`.
    package enum Subject: Sendable {
        /// The payload itself, not its media: it points at the payload; `fix` prints it, never cures it.
        case payload
        /// The media's server, not the file: said once per host; no file cures it, and it stops no cure.
        case host
        /// The file: a new file of the same picture, video or sound mends it (its size, format, orientation,
        /// pixel count or download time; a video's sample entry or codec).
        case file
        /// What the URL serves or how: only the origin can mend it (a 404, an https rule, bytes no decoder reads).
        case origin
        /// What the platform does with any file (Android shows a GIF's first frame): nothing to mend.
        case platform
        /// The app as built (SPEC 22): only a new build of it mends it; no payload or file does.
        case app
    }

    package var subject: Subject {
        switch self {
        case .mutableContentMissing, .noAlert, .payloadTooLarge, .notificationIDMissing, .duplicateKey, .ambiguousSDK,
             .invalidPayload, .foreignMediaKey, .noAndroidMedia, .dataOnlyImage, .payloadNearLimit, .additionalDataTooLarge,
             .noMedia: .payload
        case .certificateExpiring, .atsViolation, .notCacheable: .host
        case .tooLarge, .exceedsIOSLimit, .unsupportedType, .typeMismatch, .orientationIgnored, .largeBitmap, .slowNetwork,
             .needsAndroidVersion, .unplayableVideo, .videoCodecSupport: .file
        case .animationLost: .platform
        case .noServiceExtension, .extensionNotRunnable, .extensionAboveApp, .extensionWithoutSDK, .noPushEntitlement: .app
        case .invalidURL, .unrenderedTemplate, .urlExpires, .urlNeedsEncoding, .deviceDependent, .notHTTPS, .insecureRedirect,
             .tooManyRedirects, .httpError, .emptyMedia, .timeout, .tlsError, .networkError, .blockedAddress, .writeError,
             .invalidMediaSpec, .bundleResource, .undecodableMedia, .truncatedMedia, .largeIconOnly, .decodeFailed,
             .unrecognised: .origin
        }
    }

    /// A finding about the payload itself rather than its media: it points at the payload, not at a media key
    /// (`no_media` names no key at all).
    package var isAboutPayload: Bool { subject == .payload && self != .noMedia }

    /// A finding about the media's host rather than one record (SPEC 10): said once per host and run
    /// in the text and CI formats (each record's JSON keeps it). `not_cacheable` is said per record.
    package var isAboutHost: Bool { subject == .host && self != .notCacheable }

    /// What to do about it, in plain words: the end of the code's message.
    public var fix: String {
        switch self {
        case .noMedia: "add the SDK's media key to show media"
        case .invalidPayload: "make the payload one JSON object, as sent to APNs"
        case .invalidURL: "send an absolute URL with a host and no spaces"
        case .deviceDependent: "make the server answer phones' own requests as it answers the tool (a bot filter or a user-agent rule at the CDN), then check again"
        case .urlNeedsEncoding: "percent-encode the URL in the payload (a space as %20, é as %C3%A9)"
        case .dataOnlyImage: "set notification.image (or android.notification.image) to the picture's URL"
        case .urlExpires: "sign the URL for longer than the push can wait for a phone (its send time plus APNs's 30 days or FCM's 28, or the request's own expiration), or serve the media unsigned"
        case .unrenderedTemplate: "check that the platform's personalisation fills the URL for every recipient (a default value for a missing attribute), or send the URL itself"
        case .notHTTPS: "serve the media over https"
        case .insecureRedirect: "redirect to https only"
        case .tooManyRedirects: "link the final URL directly"
        case .httpError: "fix the link, or make the server answer 200 with the media"
        case .emptyMedia: "serve the media file itself"
        case .tooLarge: "serve a smaller file: recompress, resize or shorten it"
        case .timeout: "serve it faster or smaller (a CDN near the users)"
        case .tlsError: "give the server a valid certificate for its name, from a trusted CA, and TLS 1.2 or newer"
        case .atsViolation: "serve the media as iOS requires: TLS 1.3 or ECDHE suites, a certificate naming the host in its subjectAltName, with serverAuth, at most 398 days and SCTs"
        case .networkError: "check the host name, and that the server accepts connections and sends whole, well-formed responses"
        case .blockedAddress: "serve the media from a public address"
        case .writeError: "free space in the attachment folder, or choose another one"
        case .invalidMediaSpec: "give the SDK's media key the fields its extension reads"
        case .unsupportedType: "serve jpg, png, gif, mp3, m4a, wav, mp4 or m4v under a name or type iOS recognises"
        case .bundleResource: "make sure the app bundle ships that file, or send a URL"
        case .undecodableMedia: "upload the file again from the original, and check that it opens"
        case .decodeFailed: "check again on a machine with room for the decoder (processes, memory), or reinstall notti-media"
        case .mutableContentMissing: "add \"mutable-content\": 1 to aps"
        case .noAlert: "give aps.alert a title or body"
        case .payloadTooLarge: "shorten the text or custom keys"
        case .notificationIDMissing: "add the campaign's notification_id"
        case .exceedsIOSLimit: "recompress, resize or shorten it"
        case .typeMismatch: "serve the right Content-Type, or fix the file name's extension or the type hint"
        case .foreignMediaKey: "use the chosen SDK's media key, or check the payload with that SDK's --sdk"
        case .ambiguousSDK: "keep one SDK's media key per payload"
        case .duplicateKey: "keep one copy of the key"
        case .animationLost: "send a still picture for Android (its first frame is what shows), or accept the still"
        case .needsAndroidVersion: "send a jpg or png for older phones"
        case .noAndroidMedia: "set notification.image (or android.notification.image) for Android"
        case .notCacheable: "serve it with Cache-Control: public, max-age=86400 and no Set-Cookie"
        case .slowNetwork: "serve a smaller file"
        case .certificateExpiring: "renew the certificate before the campaign is sent"
        case .truncatedMedia: "upload the whole file again"
        case .orientationIgnored: "apply the orientation to the pixels (rotate and strip the EXIF tag) before upload"
        case .largeBitmap: "resize the picture (a notification shows at most about 2,000 pixels across)"
        case .unplayableVideo: "encode it as H.264 (or HEVC tagged hvc1) in MP4"
        case .videoCodecSupport: "send H.264 in MP4 for every iPhone"
        case .payloadNearLimit: "shorten the text or custom data to stay under 3,500 bytes"
        case .additionalDataTooLarge: "keep the request's data under 2,048 bytes (send an ID and fetch the rest in the app)"
        case .largeIconOnly: "send a square picture that reads at icon size, or send the push through a path that shows a big picture"
        case .noServiceExtension: "add a Notification Service Extension target that uses the push SDK's extension, and embed it in the app"
        case .extensionNotRunnable: "set NSExtensionPrincipalClass to the extension's class and build its executable into the .appex"
        case .extensionAboveApp: "lower the extension target's deployment target (IPHONEOS_DEPLOYMENT_TARGET) to the app's"
        case .extensionWithoutSDK: "link the push SDK's extension framework into the Notification Service Extension, or check that its own code downloads the media"
        case .noPushEntitlement: "enable the Push Notifications capability for the app's App ID and sign it with a profile that carries it"
        case .unrecognised: "see the message"
        }
    }

    /// One sentence for people who do not read codes (the preview shows it
    /// beside each finding): what the phone does, not what the tool did.
    public var plainLanguage: String {
        switch self {
        case .noMedia: "There is no media in this push."
        case .invalidPayload: "This is not a valid push: APNs would reject it."
        case .invalidURL: "The media link is not a valid web address."
        case .unrenderedTemplate: "The media link still holds template code: no phone can fetch it."
        case .urlExpires: "The signed media link expires before every phone has fetched it."
        case .dataOnlyImage: "The picture is only in the message's data, which Android's notification does not read."
        case .deviceDependent: "The server answers phones differently from this check."
        case .urlNeedsEncoding: "The media link has spaces or non-ASCII characters that only newer iPhones encode."
        case .notHTTPS: "The media link is not https: the phone will not download it."
        case .insecureRedirect: "The media link forwards to an insecure address: the phone stops there."
        case .tooManyRedirects: "The media link forwards too many times: the phone gives up."
        case .httpError: "The media server answered with an error instead of the file."
        case .emptyMedia: "The media server sent an empty file."
        case .tooLarge: "The media file is too large: the phone will not attach it."
        case .timeout: "The media took too long to download: the push arrives without it."
        case .tlsError: "The media server's security certificate is not trusted."
        case .atsViolation: "iPhones refuse this server's secure connection (curl and Android accept it): the push shows without media."
        case .networkError: "The media server could not be reached."
        case .blockedAddress: "The media address is not a public one."
        case .writeError: "This computer could not store the file (a local problem, not the media's)."
        case .invalidMediaSpec: "The SDK cannot read this push's media settings, so it adds no media."
        case .unsupportedType: "The phone may not be able to show this kind of file."
        case .bundleResource: "The media is a file the app itself must contain; it is not downloaded."
        case .undecodableMedia: "The file is damaged: the phone cannot draw or play it."
        case .decodeFailed: "This machine could not read the file as the phone does, so whether it shows is not known."
        case .mutableContentMissing: "iOS never runs the extension for this push, so no media is added."
        case .noAlert: "A silent push: the phone shows nothing and adds no media."
        case .payloadTooLarge: "The push is over 4 KB: APNs rejects it, nothing arrives."
        case .notificationIDMissing: "The SDK cannot report this push as received."
        case .exceedsIOSLimit: "iOS may drop an attachment this large: the push may show without it."
        case .typeMismatch: "The file's real type and its label disagree: the phone may show it wrong."
        case .foreignMediaKey: "This push carries another SDK's media, which this SDK ignores."
        case .ambiguousSDK: "This push carries media for several SDKs."
        case .duplicateKey: "A key appears twice in one object: which copy the phone keeps is not promised."
        case .animationLost: "Android shows only the first frame of this animated GIF."
        case .needsAndroidVersion: "Older Android phones cannot show this picture format."
        case .noAndroidMedia: "Android phones show this push without a picture: nothing there reads its media key."
        case .notCacheable: "A CDN will not cache this file: every phone downloads it from the origin server."
        case .slowNetwork: "On a slow network the file takes longer than the extension may wait: those users get no media."
        case .certificateExpiring: "The media server's certificate expires within 30 days: after that no phone downloads the media."
        case .truncatedMedia: "The file is cut short: the phone draws only part of it."
        case .orientationIgnored: "Android phones show this photo on its side or upside down; iPhones show it upright."
        case .largeBitmap: "The picture is so large that Android phones with less memory drop it."
        case .unplayableVideo: "iPhones attach this video but cannot play it."
        case .payloadNearLimit: "The push is close to the platform's size limit: a longer personalised text may be rejected."
        case .additionalDataTooLarge: "The push's custom data is over the platform's limit: it refuses the push."
        case .largeIconOnly: "Android shows this picture only as a small square icon beside the text, cropped."
        case .videoCodecSupport: "Only some iPhones can play this video."
        case .noServiceExtension: "This app has no Notification Service Extension: no push it receives shows media."
        case .extensionNotRunnable: "iOS cannot start this app's Notification Service Extension: its pushes show without media."
        case .extensionAboveApp: "iPhones on iOS versions between the app's and its extension's never run the extension: no media there."
        case .extensionWithoutSDK: "The app's Notification Service Extension links no push SDK: nothing may add the media."
        case .noPushEntitlement: "The app is signed without the push entitlement: it receives no pushes at all."
        case .unrecognised: "See the message for what to do."
        }
    }

    /// The plain line of a code as printed (`Diagnostic.code`); a code this
    /// version does not know (a newer shard's, in `merge`) gets a pointer to its message.
    public static func plainLanguage(for code: String) -> String {
        (DiagnosticCode(rawValue: code) ?? .unrecognised).plainLanguage
    }

    /// The plain line for one finding as it stands: an `unsupported_type` error is the
    /// phone refusing the file (no "may"); a `type_mismatch` under Notti, which types the
    /// file by its bytes, costs the phone nothing.
    public static func plainLanguage(for diagnostic: Diagnostic, sdk: SDK) -> String {
        switch diagnostic.code {
        case .unsupportedType where diagnostic.severity == .error:
            "The phone cannot show this kind of file: the push shows without it."
        case .typeMismatch where sdk == .notti:
            "The server labels the file as another type than it is; the SDK reads the bytes, so the phone still shows it."
        default:
            diagnostic.code.plainLanguage
        }
    }
}

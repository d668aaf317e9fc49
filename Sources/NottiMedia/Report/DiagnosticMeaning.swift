extension DiagnosticCode {
    /// When the code is given, for the reference (docs/reference.md is generated from it:
    /// `notti-media --generate codes`), in the words of the behaviour contract.
    public var meaning: String {
        switch self {
        case .noMedia:
            "the payload has no media key of the SDK (`notti_image_url` for Notti), or an empty list (Airship); not a failure"
        case .invalidPayload:
            "the input is not a JSON object (stderr names `file:line:column`; `process` exits 2), or a send request its platform "
                + "refuses: FCM's `message.data` holding a value that is not a string, a OneSignal, Airship, Braze or Expo request with "
                + "a required field missing or of the wrong kind (the message names the path inside the request)"
        case .invalidURL:
            "not a non-empty string, not an absolute URL with a host, or it contains white space or control characters"
        case .deviceDependent:
            "with `--device-headers`, each distinct URL is also fetched once with each platform's own request headers (iOS's "
                + "CFNetwork, Android's Dalvik `User-Agent`; no cookies, no Referer): a status, type or size other than the tool's "
                + "own fetch's, named with both answers, on that platform's records"
        case .urlNeedsEncoding:
            "instead of `invalid_url`, a URL that is valid once its spaces and non-ASCII characters are percent-encoded, as iOS 17 and "
                + "later encode it for apps built with their SDK: downloaded encoded; apps built before, and Android, refuse or mangle it"
        case .dataOnlyImage:
            "an Android record whose request's `data` carries an http(s) URL under a key named like an image (`image`, `imageUrl`, "
                + "`image_url`, `picture`, `big_picture`, `bigPicture`) and no notification image: Firebase's display code never reads "
                + "`data`, so the notification shows text only unless the app builds it itself"
        case .urlExpires:
            "a signed URL's expiry (AWS SigV4 `X-Amz-Date` + `X-Amz-Expires`, Google `X-Goog-Date` + `X-Goog-Expires`, CloudFront "
                + "and SigV2 `Expires`): an error when it has expired by the send time (`--send-at`, default now), a warning when it expires before the send time "
                + "plus the push's lifetime (`apns-expiration` / `android.ttl`, else 30 days on iOS, 28 on Android)"
        case .unrenderedTemplate:
            "the media URL still holds template code (`{{`, `}}`, `{%`, `%}`, `${`, `<%`, or their percent-encoded forms): the "
                + "platform sends the text as written when its personalisation did not run"
        case .notHTTPS:
            "the scheme is not https (`HTTPS://` is https), judged on the text as written (`file://localhost/x` too); for the other "
                + "SDKs an http URL, which App Transport Security (Android: its network security policy) blocks unless `--allow-http`"
        case .insecureRedirect:
            "a redirect leads to a scheme other than https (or http, under `--allow-http`)"
        case .tooManyRedirects:
            "one redirect more than the client follows (iOS: 5; Android: 20)"
        case .httpError:
            "the final status is not 2xx (`media.httpStatus` has it)"
        case .emptyMedia:
            "a 2xx with an empty body (204 included)"
        case .tooLarge:
            "more than the cap in decoded bytes: announced by Content-Length (refused before the body), or counted as they arrive "
                + "(no length, chunked, a lying length, a gzip bomb); or, for every iOS profile, over iOS's limit for the "
                + "attachment's kind in its binary reading (audio 5,242,880, image 10,485,760, video 52,428,800 bytes): "
                + "`UNNotificationAttachment` refuses it and the push shows without it"
        case .timeout:
            "the whole transfer did not finish within the record's own deadline (or the connection within Airship's 2 s on Android); "
                + "a server trickling bytes does not extend it"
        case .tlsError:
            "the certificate is not trusted or not for the host name, the handshake failed, or TLS is older than 1.2"
        case .atsViolation:
            "(iOS) the connection, on any hop, breaks a rule iOS applies and curl and Android do not (SPEC 18): no forward "
                + "secrecy (lifted by `--allow-http`), a key under RSA 2048 / ECDSA 256, a signature that is not SHA-2, a host "
                + "name not in the subjectAltName, no serverAuth or over 825 days (issued since 2019-07-01), over 398 days or "
                + "too few SCTs under a system root; the message names the rule, the field and its value"
        case .networkError:
            "name lookup failed, the connection was refused, reset or closed (during the TLS handshake too), or the response is malformed"
        case .blockedAddress:
            "`--deny-private-networks` refused the address a connection (or a redirect hop) was about to use"
        case .writeError:
            "the attachment could not be written to its folder (a full disk: a local problem, not the media's; the run exits 2)"
        case .invalidMediaSpec:
            "(other SDKs) the SDK's media key holds what its extension cannot use: a missing or mistyped field, an Airship spec its "
                + "decoder rejects (crop values outside 0–1 included), an Airship style on Android that is not valid JSON"
        case .unsupportedType:
            "an error where iOS cannot type the file (no extension or type hint it recognises) or Android's BitmapFactory cannot "
                + "decode it; a warning for Notti, which attaches bytes of none of its five types as jpg (they may not render)"
        case .bundleResource:
            "(OneSignal) the value is not an http(s) URL but a file in the app bundle (on Android, a resource of the app): nothing "
                + "is fetched; a warning, not a failure"
        case .undecodableMedia:
            "(SPEC 17) the file is of a type the phone decodes, but no row, frame or sample of it decodes: an iOS record keeps "
                + "its attachment (iOS never reads the bytes then) and fails; an Android record's notification shows its text alone"
        case .decodeFailed:
            "(SPEC 17) no decode could be made of the file on this machine (a decoder's child could not start, ended without an "
                + "answer or answered what the worker's protocol does not allow, or its library is not installed): the machine's "
                + "fault, not the media's; the pixels' verdict is unknown, so the record does not pass"
        case .mutableContentMissing:
            "`aps.mutable-content` is not the number 1: iOS never runs the extension, the media never shows (outcome `unchanged`, "
                + "nothing stored; the reason when the payload names media, whose own verdict is still given)"
        case .noAlert:
            "no alert text (a silent or badge-only push): iOS skips the extension, as above"
        case .payloadTooLarge:
            "an error over 4,096 bytes in compact UTF-8: APNs rejects the push (outcome `rejected`, nothing arrives); a warning "
                + "when only the form with non-ASCII escaped as `\\uXXXX` (Python's `json.dumps` default) is over; a platform's "
                + "own lower limit likewise (SPEC 20: Braze 3,807 bytes for iOS and 4,000 for Android `alert` + `extra`; FCM and "
                + "Expo 4,096 for Android's `data` + `notification`)"
        case .notificationIDMissing:
            "no `notification_id`: the Notti SDK cannot report the push as received"
        case .exceedsIOSLimit:
            "the attachment is between the two readings of Apple's limit for its kind (over 5,000,000 / 10,000,000 / 50,000,000 "
                + "bytes, at most 5,242,880 / 10,485,760 / 52,428,800): Apple does not say which MB it means, so iOS may refuse it"
        case .typeMismatch:
            "without sniffing, the SDK would pick another type from the Content-Type, then the URL's extension (`media.sdkType`); "
                + "for other SDKs, the bytes disagree with the extension or type hint the SDK gives the file"
        case .foreignMediaKey:
            "the payload carries another SDK's media key, which the chosen SDK's extension ignores (the message names it)"
        case .ambiguousSDK:
            "(`--sdk auto`) the payload carries several SDKs' media keys: it is checked as the first in `--sdk`'s list"
        case .duplicateKey:
            "a key appears more than once in one JSON object (the message names it and where): iOS keeps one, which is not promised"
        case .animationLost:
            "(Android) an animated GIF: BitmapFactory decodes its first frame alone, so the big picture is a still"
        case .needsAndroidVersion:
            "(Android) HEIF/HEIC decodes from Android 8.0, AVIF from Android 14: older phones show no picture"
        case .noAndroidMedia:
            "(Android) a send request whose `data` carries an iOS-only media key (`notti_image_url`, `ct_mediaUrl`) and no "
                + "notification image: nothing on Android reads it"
        case .notCacheable:
            "the media is served with `Cache-Control` `no-store`, `no-cache`, `private`, `max-age=0` or `s-maxage=0`, with "
                + "`Set-Cookie`, or with `Vary: *`: every phone's request at send time reaches the origin"
        case .slowNetwork:
            "(`--network`) even the least download time on that network is over the record's deadline: users on it get the push "
                + "without media"
        case .certificateExpiring:
            "a leaf certificate on the way expires within 30 days of the run (the message names the date): a campaign "
                + "scheduled later fails on every phone; on every record of the URL, both platforms"
        case .truncatedMedia:
            "the file ends before its last row, frame or sample: both platforms draw what is there (grey below it on Android); "
                + "the message says how much"
        case .orientationIgnored:
            "(Android) an EXIF orientation other than 1, where the display code decodes with BitmapFactory, which ignores it "
                + "(fcm, onesignal; airship on Android 8.1 and older): shown as stored, iPhones show it upright"
        case .largeBitmap:
            "(Android) the decoded picture (width × height × 4) is over 104,857,600 bytes, Android's largest drawable bitmap: "
                + "the message names the size to resize to"
        case .unplayableVideo:
            "(iOS) HEVC stored as `hev1` (iOS plays only `hvc1`), or a video codec iOS has no decoder for: attached, and its "
                + "player does not play"
        case .videoCodecSupport:
            "(iOS) AV1 or VP9, which only some iPhones decode"
        case .payloadNearLimit:
            "(OneSignal) the APNs payload OneSignal builds is over 3,500 bytes, the most OneSignal advises (it rejects 4,096): "
                + "personalised text that grows can tip it over"
        case .additionalDataTooLarge:
            "(OneSignal) the request's `data`, OneSignal's additional data, is over 2,048 bytes in compact JSON: OneSignal "
                + "refuses it (on every record of the request)"
        case .largeIconOnly:
            "(Expo, Android) `expo-notifications` shows `richContent.image` as the large icon, a small square cropped from the "
                + "middle, not a big picture: a picture more than a quarter wider or taller than square loses what the crop cuts"
        case .noServiceExtension:
            "(`app`, iOS) no bundle under the app's `PlugIns/` has `NSExtension.NSExtensionPointIdentifier` "
                + "`com.apple.usernotifications.service`: iOS never runs a Notification Service Extension, so no push shows media"
        case .extensionNotRunnable:
            "(`app`, iOS) a service extension whose `Info.plist` names no `NSExtensionPrincipalClass`, or whose executable "
                + "(`CFBundleExecutable`) is not in its bundle: iOS fails to launch it"
        case .extensionAboveApp:
            "(`app`, iOS) a service extension's `MinimumOSVersion` (else the one its executable was built for) above the app's: "
                + "phones between the two install the app and never run the extension; the message names both versions"
        case .extensionWithoutSDK:
            "(`app`, iOS) a service extension whose executable's load commands name none of the push SDKs' extension frameworks "
                + "(an SDK linked statically names none either)"
        case .noPushEntitlement:
            "(`app`, iOS) the app's `embedded.mobileprovision` has no `Entitlements.aps-environment`: APNs delivers nothing to the build"
        case .unrecognised:
            "(`merge`) a code of another version of the tool, kept as that version wrote it"
        }
    }

    /// The severity column of the reference: "error / warning" where a finding says which.
    public var severityText: String {
        switch self {
        case .payloadTooLarge, .unsupportedType: "error / warning"
        case .noMedia: "none"
        default: defaultSeverity.rawValue
        }
    }
}

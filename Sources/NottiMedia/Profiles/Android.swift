/// What Android phones do with a send request's picture (SPEC 15): the
/// notification always shows; the big picture shows when it downloads within
/// the rules of whose code displays it and decodes as a bitmap. Each is a
/// profile in the iOS profiles' shape, read from the Android delivery
/// (`{"notification": {"title", "body", "image"}, "data": {...}}`, `SendRequest`).
extension SDKProfile {
    /// Firebase's own display code (firebase-android-sdk `ImageDownload`):
    /// `notification.image`; a Content-Length over 1,048,576 bytes refused, the
    /// body read to at most 1,048,577; 5 s for the whole download.
    package static let androidFCM = SDKProfile(
        sdk: .fcm, mediaKeys: [["notification", "image"]], refusesHTTPItself: false, deadlineSeconds: 5,
        sizeCap: .streamed(1_048_576), rule: .bitmapFactory, failurePolicy: .single, identifier: .fixed(""),
        platform: .android, maxRedirects: 20,
        orientationIgnoredBy: "\(SDK.fcm.displayName)'s display code decodes", readSpec: { payload in
            guard let image = payload.root.value(at: ["notification", "image"]) else { return .absent }
            guard case .string = image else {
                return .invalid("notification.image must be a string, not \(image.kindName): Android shows the notification without a picture")
            }
            return .entries([MediaEntry(key: "notification.image", value: image)], overrides: nil)
        })

    /// Airship (urbanairship android-library `StyleNotificationExtender`): the data
    /// key `com.urbanairship.style`, a JSON text `{"type": "big_picture", "big_picture": URL}`;
    /// 7 s for the download, 2 s to connect; no cap of its own.
    package static let androidAirship = SDKProfile(
        sdk: .airship, mediaKeys: [["data", styleKey]], refusesHTTPItself: false, deadlineSeconds: 7,
        sizeCap: .none, rule: .bitmapFactory, failurePolicy: .single, identifier: .fixed(""),
        platform: .android, maxRedirects: 20, connectTimeoutSeconds: 2,
        orientationIgnoredBy: "Airship's display code on Android 8.1 and older decodes", readSpec: { payload in
            guard case .string(let text)? = payload.root.value(at: ["data", styleKey]) else { return .absent }
            guard let style = try? JSONParser.parse(Array(text.utf8)), case .object = style else {
                return .invalid("data.\(styleKey) is not valid JSON: Airship shows the notification as text")
            }
            guard style["type"]?.stringValue == "big_picture" else { return .entries([], overrides: nil) }
            guard case .string? = style["big_picture"] else {
                return .invalid("data.\(styleKey) is a big_picture style without a big_picture URL string: Airship shows the text style")
            }
            return .entries([MediaEntry(key: "data.\(styleKey).big_picture", value: style["big_picture"]!)], overrides: nil)
        })

    /// OneSignal (OneSignal-Android-SDK `NotificationDisplayBuilder`): `data.bicon`;
    /// a value not starting with `http://` or `https://` (case-sensitive) names a
    /// resource in the app; no cap or deadline of its own (the tool's bounds: 20 s).
    package static let androidOneSignal = SDKProfile(
        sdk: .onesignal, mediaKeys: [["data", "bicon"]], refusesHTTPItself: false, deadlineSeconds: 20,
        sizeCap: .none, rule: .bitmapFactory, failurePolicy: .single, identifier: .fixed(""),
        bundleFiles: .notHTTPPrefixedShowsNone, platform: .android, maxRedirects: 20,
        orientationIgnoredBy: "\(SDK.onesignal.displayName)'s display code decodes", readSpec: { payload in
            guard let bicon = payload.root.value(at: ["data", "bicon"]) else { return .absent }
            return .entries([MediaEntry(key: "data.bicon", value: bicon)], overrides: nil)
        })

    /// Braze (braze-android-sdk `BrazeNotificationStyleFactory`, `Constants.BRAZE_PUSH_BIG_IMAGE_URL_KEY`): the
    /// push's extra `appboy_image_url` shown as a big picture (the request's `android_push.extra`, which Braze
    /// sends as the push's extras); decoded with BitmapFactory; no cap or deadline found in its code (the tool's bounds: 20 s).
    package static let androidBraze = SDKProfile(
        sdk: .braze, mediaKeys: [["data", brazeImageKey]], refusesHTTPItself: false, deadlineSeconds: 20,
        sizeCap: .none, rule: .bitmapFactory, failurePolicy: .single, identifier: .fixed(""),
        platform: .android, maxRedirects: 20,
        orientationIgnoredBy: "Braze's display code decodes", readSpec: { payload in
            guard let image = payload.root.value(at: ["data", brazeImageKey]) else { return .absent }
            guard case .string = image else {
                return .invalid("extra.\(brazeImageKey) must be a string, not \(image.kindName): Braze shows the notification without a picture")
            }
            return .entries([MediaEntry(key: "data.\(brazeImageKey)", value: image)], overrides: nil)
        })

    /// Expo (expo/expo `expo-notifications`, `ExpoNotificationBuilder`): `richContent.image` set as the
    /// notification's large icon, a small square beside the text, with the text style: never a big
    /// picture (`large_icon_only`); decoded with BitmapFactory; no cap or deadline of its own found (the tool's bounds: 20 s).
    package static let androidExpo = SDKProfile(
        sdk: .expo, mediaKeys: [richContentImage], refusesHTTPItself: false, deadlineSeconds: 20,
        sizeCap: .none, rule: .bitmapFactory, failurePolicy: .single, identifier: .fixed(""),
        platform: .android, maxRedirects: 20, orientationIgnoredBy: "Expo's notification builder decodes",
        showsLargeIconOnly: true, readSpec: { payload in readRichContentImage(payload, on: "Android") })

    static let styleKey = "com.urbanairship.style"
    static let brazeImageKey = "appboy_image_url"

    /// Android's display codes, each once: the profiles a send request's Android record may be judged under.
    package static let androidProfiles: [SDKProfile] = [.androidFCM, .androidAirship, .androidOneSignal, .androidBraze, .androidExpo]

    /// The profile whose rules `sdk`'s records follow on `platform`: its extension on iOS, its display
    /// code on Android (nil for an SDK that has none there: its Android records are Firebase's).
    package static func of(_ sdk: SDK, on platform: Platform) -> SDKProfile? {
        switch platform {
        case .ios: sdk.profile
        case .android: androidProfiles.first { $0.sdk == sdk }
        }
    }

    /// Whose code shows an Android delivery's picture: a notification image is
    /// Firebase's own display code's, whatever SDK the app also has; without one,
    /// the chosen SDK's Android rules (under `auto`, the data key present), else none.
    package static func android(for payload: Payload, selection: SDKSelection) -> SDKProfile {
        if payload.root.value(at: ["notification", "image"]) != nil { return .androidFCM }
        switch selection.forSendRequest {
        case .fixed(.onesignal): return .androidOneSignal
        case .fixed(.airship): return .androidAirship
        case .fixed(.braze): return .androidBraze
        case .fixed(.expo): return .androidExpo
        case .fixed: return .androidFCM
        case .auto, .unspecified:
            if payload.root.value(at: ["data", "bicon"]) != nil { return .androidOneSignal }
            return payload.root.value(at: ["data", styleKey]) != nil ? .androidAirship : .androidFCM
        }
    }

}

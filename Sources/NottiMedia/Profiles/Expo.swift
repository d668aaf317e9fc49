extension SDKProfile {
    /// Expo (docs.expo.dev, "Push notifications: rich content"; expo/expo's
    /// `expo-notifications`): a push message's `richContent.image`, which Expo's
    /// servers send to iPhones as `richContent.image` beside `aps`. Expo ships no
    /// extension of its own: its recipe is a Notification Service Extension that
    /// downloads the URL and attaches it the way Firebase's helper does (the type
    /// from the response's suggested file name, else the Content-Type's image
    /// subtype), so its records are judged under that rule; no cap or deadline of
    /// its own (iOS's 30 s and per-type limits).
    package static let expo = SDKProfile(
        sdk: .expo, mediaKeys: [richContentImage], refusesHTTPItself: false, deadlineSeconds: DeviceModel.systemDeadlineSeconds,
        sizeCap: .none, rule: .typed(.suggestedFilename(imageSubtypeFallback: true)), failurePolicy: .single, identifier: .fixed(""),
        readSpec: { payload in readRichContentImage(payload, on: "iOS") })

    /// Where Expo's messages carry their picture, on both platforms.
    static let richContentImage = ["richContent", "image"]

    /// `richContent.image`, a string, as both of Expo's platforms read it.
    static func readRichContentImage(_ payload: Payload, on phone: String) -> MediaSpec {
        guard let image = payload.root.value(at: richContentImage) else { return .absent }
        guard case .string = image else {
            return .invalid("richContent.image must be a string, not \(image.kindName): Expo's \(phone) code shows the push without a picture")
        }
        return .entries([MediaEntry(key: "richContent.image", value: image)], overrides: nil)
    }
}

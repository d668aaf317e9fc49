extension SDKProfile {
    /// Firebase Messaging (firebase-ios-sdk, FIRMessagingExtensionHelper.m):
    /// `fcm_options.image`, the extension of the response's suggested file name,
    /// else the text after `image/` in the Content-Type.
    package static let fcm = SDKProfile(
        sdk: .fcm, mediaKeys: [["fcm_options", "image"]], refusesHTTPItself: false, deadlineSeconds: DeviceModel.systemDeadlineSeconds,
        sizeCap: .none, rule: .typed(.suggestedFilename(imageSubtypeFallback: true)), failurePolicy: .single, identifier: .fixed(""),
        readSpec: { payload in
            guard let image = payload.root.value(at: ["fcm_options", "image"]) else { return .absent }
            guard case .string = image else {
                return .invalid("fcm_options.image must be a string, not \(image.kindName): Firebase delivers the push without media")
            }
            return .entries([MediaEntry(key: "fcm_options.image", value: image)], overrides: nil)
        })
}

extension SDKProfile {
    /// CleverTap (CTNotificationService, CTNotificationServiceExtension.m):
    /// `ct_mediaUrl` and `ct_mediaType`, both required; image/video/audio name
    /// the suffix, else three exact Content-Types, else none.
    package static let cleverTap = SDKProfile(
        sdk: .clevertap, mediaKeys: [["ct_mediaUrl"], ["ct_mediaType"]], refusesHTTPItself: false,
        deadlineSeconds: DeviceModel.systemDeadlineSeconds, sizeCap: .none, rule: .typed(.cleverTap), failurePolicy: .single,
        identifier: .fixed(""), readSpec: { payload in
            let url = payload.root["ct_mediaUrl"]
            let type = payload.root["ct_mediaType"]
            if url == nil && type == nil { return .absent }
            guard case .string? = url, case .string(let kind)? = type else {
                return .invalid("ct_mediaUrl and ct_mediaType must both be strings: CleverTap delivers the push without media")
            }
            return .entries([MediaEntry(key: "ct_mediaUrl", value: url!, typeField: kind)], overrides: nil)
        })
}

extension SDKProfile {
    /// Iterable (swift-sdk, ITBNotificationServiceExtension.swift):
    /// `itbl.attachment-url`, saved under the response's suggested file name,
    /// which is also the identifier (a device prefixes a UUID).
    package static let iterable = SDKProfile(
        sdk: .iterable, mediaKeys: [["itbl", "attachment-url"]], refusesHTTPItself: false,
        deadlineSeconds: DeviceModel.systemDeadlineSeconds, sizeCap: .none, rule: .typed(.suggestedFilename(imageSubtypeFallback: false)),
        failurePolicy: .single, identifier: .suggestedFilename, readSpec: { payload in
            guard let value = payload.root.value(at: ["itbl", "attachment-url"]) else { return .absent }
            return .entries([MediaEntry(key: "itbl.attachment-url", value: value)], overrides: nil)
        })
}

extension SDKProfile {
    /// Braze (Appboy/appboy-ios-sdk, NotificationService.m / .swift): `ab.att.url`
    /// and `ab.att.type`, the type becoming the file's suffix; no timeout or cap of its own.
    package static let braze = SDKProfile(
        sdk: .braze, mediaKeys: [["ab", "att"]], refusesHTTPItself: false, deadlineSeconds: DeviceModel.systemDeadlineSeconds,
        sizeCap: .none, rule: .typed(.payloadType(field: "ab.att.type")), failurePolicy: .single, identifier: .fixed(""),
        readSpec: { payload in
            guard let att = payload.root.value(at: ["ab", "att"]) else { return .absent }
            guard case .object = att, case .string(let url)? = att["url"], case .string(let type)? = att["type"] else {
                return .invalid("ab.att must be an object with the strings url and type: Braze delivers the push without media")
            }
            return .entries([MediaEntry(key: "ab.att.url", value: .string(url), typeField: type)], overrides: nil)
        })
}

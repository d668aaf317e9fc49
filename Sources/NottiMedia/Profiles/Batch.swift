extension SDKProfile {
    /// Batch (Batch-iOS-SDK-Extension, RichNotificationHelper.swift):
    /// `{"com.batch": {"at": {"u", "t"}}}`, both required; `t` is the type hint
    /// (a UTI or MIME type) and alone decides the type; 20 s for the download.
    package static let batch = SDKProfile(
        sdk: .batch, mediaKeys: [["com.batch", "at"]], refusesHTTPItself: false, deadlineSeconds: 20,
        sizeCap: .none, rule: .typed(.typeHint(field: "com.batch.at.t")), failurePolicy: .single,
        identifier: .fixed("batch_rich_attachment"), readSpec: { payload in
            guard let at = payload.root.value(at: ["com.batch", "at"]) else { return .absent }
            guard case .object = at, case .string? = at["u"], case .string(let hint)? = at["t"] else {
                return .invalid("com.batch.at must be an object with the strings u and t: Batch delivers the push without media")
            }
            return .entries([MediaEntry(key: "com.batch.at.u", value: at["u"]!, typeField: hint)], overrides: nil)
        })
}

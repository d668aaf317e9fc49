extension SDKProfile {
    /// Notti, this project's own SDK (SPEC sections 1-5): `notti_image_url`, https
    /// only whatever App Transport Security allows, 10 MiB streamed, 20 s, the type
    /// sniffed with libmagic and jpg for anything else.
    package static let notti = SDKProfile(
        sdk: .notti, mediaKeys: [[Payload.mediaURLKey]], refusesHTTPItself: true, deadlineSeconds: MediaPolicy.sdkTimeoutSeconds,
        sizeCap: .streamed(MediaPolicy.sdkMaxBytes), rule: .sniffed, failurePolicy: .single, identifier: .fixed(Attachment.identifier),
        readSpec: { payload in
            guard let value = payload.root[Payload.mediaURLKey] else { return .absent }
            return .entries([MediaEntry(key: Payload.mediaURLKey, value: value)], overrides: nil)
        })
}

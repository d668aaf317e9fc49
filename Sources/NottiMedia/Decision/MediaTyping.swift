/// What a profile's rule made of a download's type: the judge's note on its verdict (`EntryVerdict`),
/// never written into the download's facts. Notti's extension sniffs the bytes (`TypeDecision`);
/// another SDK names the file or hints its type and iOS recognises it or not (`DeviceTypeDecision`).
/// Android's BitmapFactory, and a failure before any download, leave none.
package enum MediaTyping: Sendable {
    case sniffed(TypeDecision)
    case named(DeviceTypeDecision)

    /// The `media` object's type keys (SPEC 5): `type`, `sdkType` and `fallback` always, null without a
    /// typing; an SDK's naming adds `typeHint` and `typeSource`.
    static func jsonMembers(_ typing: MediaTyping?) -> [JSONMember] {
        switch typing {
        case .named(let named)?:
            [
                JSONMember("type", .optional(named.recognised?.rawValue)),
                JSONMember("sdkType", .optional(named.fileExtension)),
                JSONMember("fallback", .bool(false)),
                JSONMember("typeHint", .optional(named.hint)),
                JSONMember("typeSource", .string(named.source)),
            ]
        case .sniffed(let sniffed)?:
            [
                JSONMember("type", .string(sniffed.type.rawValue)),
                JSONMember("sdkType", .string(sniffed.sdkType.rawValue)),
                JSONMember("fallback", .bool(sniffed.fallback)),
            ]
        case nil:
            [JSONMember("type", .null), JSONMember("sdkType", .null), JSONMember("fallback", .null)]
        }
    }

    /// The SDK's naming, when that is what decided the type.
    package var named: DeviceTypeDecision? {
        if case .named(let named) = self { return named }
        return nil
    }
}

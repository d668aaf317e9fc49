/// How a phone turns a download into an entry's verdict: every profile has one
/// rule, and `EntryJudge.judge` calls it the same way whatever the platform.
/// Each kind's table lives in its own file of `Decision/`.
package enum MediaRule: Sendable {
    /// Notti's extension sniffs the bytes: one of its five types, else jpg (`NottiRule`).
    case sniffed
    /// Another SDK's extension names the file or hints its type, and iOS's device
    /// model recognises it or refuses it (`TypeRule`, `DeviceModel`).
    case typed(TypeRule)
    /// Android's display code decodes the picture with BitmapFactory (`BitmapFactoryRule`).
    case bitmapFactory

    /// `profile`'s verdict on `download` for `entry`, before the entry's options (the judge adds
    /// them) and before the decoder's and the network's findings.
    func verdict(_ entry: MediaEntry, url: MediaURL, download: MediaDownload, profile: SDKProfile) -> EntryVerdict {
        switch self {
        case .sniffed:
            NottiRule.verdict(download, identifier: profile.identifier.name(for: entry, decision: nil))
        case .typed(let rule):
            rule.verdict(entry, url: url, download: download, profile: profile)
        case .bitmapFactory:
            BitmapFactoryRule.verdict(download)
        }
    }

    /// What a rule's verdict depends on besides the download: the profile (its SDK
    /// and platform), and the entry's type field and identifier. Options are applied after.
    struct Key: Equatable, Sendable {
        var sdk: SDK
        var platform: Platform
        var typeField: String?
        var identifier: String?
    }
}

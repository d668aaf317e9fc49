/// Which push SDK a build links (SPEC 22): a Notification Service Extension names its SDK's extension framework
/// among the dylibs it loads; an Android messaging service is its SDK's class.
extension SDK {
    /// The frameworks its iOS service extension links, by name (docs/app.md cites each SDK's extension target).
    /// Every SDK named, no `default`: a new profile must say whether it has one.
    package var extensionFrameworks: [String] {
        switch self {
        case .notti: ["NottiSDKExtension"]
        case .braze: ["BrazeNotificationService"]
        case .fcm: ["FirebaseMessaging"]
        case .onesignal: ["OneSignalExtension", "OneSignalNotificationServiceExtension"]
        case .airship: ["AirshipNotificationServiceExtension"]
        case .clevertap: ["CTNotificationService"]
        case .iterable: ["IterableAppExtensions"]
        case .batch: ["BatchExtension"]
        // Expo's iOS notifications run no service extension of its own.
        case .expo: []
        }
    }

    /// The SDKs `dylibs` link, in section 12's order, each with the framework that names it.
    package static func linked(by dylibs: [String]) -> [(sdk: SDK, framework: String)] {
        let names = Set(dylibs.map(frameworkName))
        return allCases.compactMap { sdk in sdk.extensionFrameworks.first(where: names.contains).map { (sdk, $0) } }
    }

    /// The framework or library a load command names: `@rpath/X.framework/X` and `@rpath/X.framework/Versions/A/X`
    /// are `X`; `@rpath/libX.dylib` is `libX`.
    package static func frameworkName(_ dylib: String) -> String {
        let components = dylib.split(separator: "/")
        if let framework = components.last(where: { $0.hasSuffix(".framework") }) { return String(framework.dropLast(".framework".count)) }
        let file = components.last.map(String.init) ?? dylib
        return file.hasSuffix(".dylib") ? String(file.dropLast(".dylib".count)) : file
    }
}

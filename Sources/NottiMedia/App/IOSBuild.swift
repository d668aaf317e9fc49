/// What an iOS build tells about its pushes (SPEC 22), as `notti-media app` prints it.
package struct IOSBuild: Sendable {
    /// The app's `CFBundleIdentifier`, `CFBundleShortVersionString` and `MinimumOSVersion`.
    package var bundleId: String?
    package var version: String?
    package var minimumOS: String?
    /// `Entitlements.aps-environment` of the app's `embedded.mobileprovision`; nil without one, or without the key.
    package var apsEnvironment: String?
    /// Whether the build carries a provisioning profile (an App Store download does not: Apple strips it).
    package var hasProvisioningProfile: Bool
    /// Every bundle under the app's `PlugIns/`, in its folder's name order.
    package var extensions: [AppExtension]

    /// The service extensions: those iOS runs on a push with `mutable-content`.
    package var serviceExtensions: [AppExtension] { extensions.filter(\.isServiceExtension) }

    package var json: [JSONMember] {
        [
            JSONMember("platform", .string("ios")),
            JSONMember("bundleId", .optional(bundleId)),
            JSONMember("version", .optional(version)),
            JSONMember("minimumOS", .optional(minimumOS)),
            JSONMember("apsEnvironment", .optional(apsEnvironment)),
            JSONMember("extensions", .array(extensions.map(\.json))),
        ]
    }
}

/// One `.appex` bundle under `PlugIns/`.
package struct AppExtension: Sendable {
    /// Its folder inside the app: `PlugIns/NotificationService.appex`.
    package var path: String
    package var bundleId: String?
    /// `NSExtension.NSExtensionPointIdentifier`: `com.apple.usernotifications.service` for a service extension.
    package var point: String?
    /// `NSExtension.NSExtensionPrincipalClass`.
    package var principalClass: String?
    /// `MinimumOSVersion`, else the one its executable was built for.
    package var minimumOS: String?
    /// Its `CFBundleExecutable`, when named, and whether that file is in the bundle.
    package var executableName: String?
    package var hasExecutable: Bool
    /// The push SDKs it links, in section 12's order (the first is `sdk`), with the framework naming each.
    package var linked: [(sdk: SDK, framework: String)]
    /// The first SDK's framework's `CFBundleShortVersionString`, where the build embeds it.
    package var sdkVersion: String?
    /// Its own `NSAppTransportSecurity`, as written; nil without one.
    package var ats: JSONValue?
    /// A content extension's `NSExtensionAttributes.UNNotificationExtensionCategory` (a string or a list).
    package var categories: [String]

    package static let servicePoint = "com.apple.usernotifications.service"

    package var isServiceExtension: Bool { point == Self.servicePoint }
    package var sdk: SDK? { linked.first?.sdk }
    /// Whether its Info.plist names the class iOS instantiates (one of the two things it needs to launch it).
    package var hasPrincipalClass: Bool { principalClass.map { !$0.isEmpty } == true }

    package var json: JSONValue {
        var members = [
            JSONMember("path", .string(path)),
            JSONMember("bundleId", .optional(bundleId)),
            JSONMember("point", .optional(point)),
            JSONMember("principalClass", .optional(principalClass)),
            JSONMember("minimumOS", .optional(minimumOS)),
            JSONMember("executable", .bool(hasExecutable)),
            JSONMember("sdk", .optional(sdk?.rawValue)),
        ]
        if linked.count > 1 { members.append(JSONMember("otherSdks", .array(linked.dropFirst().map { .string($0.sdk.rawValue) }))) }
        members += [
            JSONMember("sdkVersion", .optional(sdkVersion)),
            JSONMember("ats", ats ?? .null),
            JSONMember("categories", .array(categories.map(JSONValue.string))),
        ]
        return .object(members)
    }
}

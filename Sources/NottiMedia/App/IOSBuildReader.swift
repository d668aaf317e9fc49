/// Reads an iOS build's facts (SPEC 22) from its files: the app bundle's `Info.plist` and provisioning profile,
/// and for each `PlugIns/*.appex` its `Info.plist`, its executable's load commands and the embedded
/// framework of the SDK it links. Reads nothing else: an `.ipa`'s other entries are never inflated.
struct IOSBuildReader {
    let files: BuildFiles
    /// The app bundle's folder inside the build: `Payload/App.app`, `Products/Applications/App.app`, or "" for an `.app` folder.
    let app: String

    /// The most bytes of an `Info.plist` read (a real one is a few kilobytes).
    static let maxPlistBytes = 8 << 20

    func read() throws(BuildError) -> IOSBuild {
        guard let info = try plist(at: join(app, "Info.plist")) else {
            throw BuildError("\(files.name): \(join(app, "Info.plist")) is missing: not an app bundle")
        }
        let profilePath = join(app, "embedded.mobileprovision")
        var aps: String?
        var hasProfile = false
        if let bytes = try files.whole(profilePath, limit: ProvisioningProfile.maxBytes, what: "a provisioning profile") {
            hasProfile = true
            aps = try ProvisioningProfile.plist(bytes, path: profilePath, in: files.name)["Entitlements"]?["aps-environment"]?.stringValue
        }
        var extensions: [AppExtension] = []
        let plugIns = join(app, "PlugIns")
        for name in files.children(of: plugIns) where name.hasSuffix(".appex") {
            extensions.append(try appExtension(at: join(plugIns, name)))
        }
        return IOSBuild(bundleId: info["CFBundleIdentifier"]?.stringValue, version: info["CFBundleShortVersionString"]?.stringValue,
                        minimumOS: info["MinimumOSVersion"]?.stringValue, apsEnvironment: aps, hasProvisioningProfile: hasProfile,
                        extensions: extensions)
    }

    private func appExtension(at folder: String) throws(BuildError) -> AppExtension {
        let info = try plist(at: join(folder, "Info.plist")) ?? .object([])
        let attributes = info["NSExtension"]
        let executableName = info["CFBundleExecutable"]?.stringValue
        // An executable named with a `/` would be a file outside the bundle's own folder: not the bundle's.
        let executablePath = executableName.flatMap { $0.isEmpty || $0.contains("/") ? nil : join(folder, $0) }
        let links = try executablePath.flatMap { path throws(BuildError) in try MachOLinks.read(path, in: files) }
        let linked = SDK.linked(by: links?.dylibs ?? [])
        let version = try linked.first.flatMap { first throws(BuildError) in try frameworkVersion(first.framework, extension: folder) }
        let categories: [String]
        switch attributes?["NSExtensionAttributes"]?["UNNotificationExtensionCategory"] {
        case .string(let one)?: categories = [one]
        case .array(let many)?: categories = many.compactMap(\.stringValue)
        default: categories = []
        }
        return AppExtension(
            path: app.isEmpty ? folder : String(folder.dropFirst(app.count + 1)), bundleId: info["CFBundleIdentifier"]?.stringValue,
            point: attributes?["NSExtensionPointIdentifier"]?.stringValue, principalClass: attributes?["NSExtensionPrincipalClass"]?.stringValue,
            minimumOS: info["MinimumOSVersion"]?.stringValue ?? links?.minimumOS, executableName: executableName,
            hasExecutable: links != nil, linked: linked, sdkVersion: version, ats: info["NSAppTransportSecurity"], categories: categories)
    }

    /// The SDK framework's version: the extension's own embedded copy, else the app's (where Xcode embeds it).
    private func frameworkVersion(_ framework: String, extension folder: String) throws(BuildError) -> String? {
        for frameworks in [join(folder, "Frameworks"), join(app, "Frameworks")] {
            if let info = try plist(at: join(frameworks, "\(framework).framework/Info.plist")) {
                return info["CFBundleShortVersionString"]?.stringValue
            }
        }
        return nil
    }

    private func plist(at path: String) throws(BuildError) -> JSONValue? {
        guard let bytes = try files.whole(path, limit: Self.maxPlistBytes, what: "a property list") else { return nil }
        return try PropertyList.parse(bytes, path: path, in: files.name)
    }

    private func join(_ folder: String, _ name: String) -> String { folder.isEmpty ? name : folder + "/" + name }
}

/// The findings SPEC 22 names for a build, in section 10's language: each located at the build file, its
/// message naming the bundle and the property list entry.
enum BuildFindings {
    static func of(_ build: IOSBuild, app: String) -> [Diagnostic] {
        var findings: [Diagnostic] = []
        let services = build.serviceExtensions
        let plugIns = app.isEmpty ? "PlugIns" : app + "/PlugIns"
        if services.isEmpty {
            findings.append(finding(.noServiceExtension, "no bundle under \(plugIns) has NSExtensionPointIdentifier "
                + "\(AppExtension.servicePoint): iOS never runs a Notification Service Extension for this app, so no push shows media"))
        }
        for service in services {
            if !service.hasPrincipalClass {
                findings.append(finding(.extensionNotRunnable, "\(service.path): its Info.plist names no NSExtension.NSExtensionPrincipalClass: "
                    + "iOS fails to launch the extension"))
            }
            if !service.hasExecutable {
                let named = service.executableName.map { "its executable \($0) (CFBundleExecutable) is not in the bundle" }
                    ?? "its Info.plist names no CFBundleExecutable"
                findings.append(finding(.extensionNotRunnable, "\(service.path): \(named): iOS fails to launch the extension"))
            }
            if let own = service.minimumOS, let appMinimum = build.minimumOS, OSVersion(own) > OSVersion(appMinimum) {
                findings.append(finding(.extensionAboveApp, "\(service.path): its MinimumOSVersion \(own) is above the app's \(appMinimum): "
                    + "iPhones from iOS \(appMinimum) up to before \(own) install the app but never run the extension"))
            }
            // Without its executable, what it links is not known: extension_not_runnable said why.
            if service.hasExecutable && service.linked.isEmpty {
                findings.append(finding(.extensionWithoutSDK, "\(service.path): its executable links none of the push SDKs' extension "
                    + "frameworks (\(SDK.allCases.flatMap(\.extensionFrameworks).joined(separator: ", ")))"))
            }
        }
        if build.hasProvisioningProfile && build.apsEnvironment == nil {
            findings.append(finding(.noPushEntitlement, "\(app.isEmpty ? "" : app + "/")embedded.mobileprovision has no "
                + "Entitlements.aps-environment: APNs delivers no push to this build"))
        }
        return findings
    }

    private static func finding(_ code: DiagnosticCode, _ message: String) -> Diagnostic {
        Diagnostic(code.defaultSeverity, code, "\(message); \(code.fix)")
    }
}

/// A dotted version (`15.0`, `12.1.4`), compared number by number, a missing number counting as 0.
struct OSVersion: Comparable {
    let numbers: [Int]

    init(_ text: String) {
        numbers = text.split(separator: ".").map { Int($0) ?? 0 }
    }

    static func < (lhs: OSVersion, rhs: OSVersion) -> Bool {
        for index in 0..<max(lhs.numbers.count, rhs.numbers.count) {
            let left = index < lhs.numbers.count ? lhs.numbers[index] : 0
            let right = index < rhs.numbers.count ? rhs.numbers[index] : 0
            if left != right { return left < right }
        }
        return false
    }

    static func == (lhs: OSVersion, rhs: OSVersion) -> Bool { !(lhs < rhs) && !(rhs < lhs) }
}

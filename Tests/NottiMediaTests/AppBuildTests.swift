import Foundation
import Testing

/// `notti-media app` (SPEC 22) on iOS builds the tests make as Xcode lays them out (Tests/Support/make_ios_build.py:
/// binary or XML property lists, Mach-O executables naming their dylibs, a provisioning profile signed by OpenSSL),
/// read back by Python's plistlib and zipfile as the independent reader; and on hostile archives.
@Suite struct AppBuildTests {
    static let maker = Paths.packageRoot.appendingPathComponent("Tests/Support/make_ios_build.py").path

    /// A Braze app as most teams ship it: a service extension linking BrazeNotificationService, embedded in the app.
    static func brazeApp(output: String = "ipa", plist: String = "binary", fat: Bool = false) -> [String: Any] {
        [
            "output": output, "name": "Shop",
            "app": ["bundleId": "com.example.shop", "version": "4.2", "minimumOS": "15.0", "plist": plist,
                    "profile": ["aps-environment": "production"], "frameworks": [["name": "BrazeNotificationService", "version": "7.3.0"]]],
            "extensions": [
                ["name": "NotificationService", "bundleId": "com.example.shop.NotificationService", "point": "com.apple.usernotifications.service",
                 "principalClass": "NotificationService", "minimumOS": "15.0", "fat": fat,
                 "dylibs": ["@rpath/BrazeNotificationService.framework/BrazeNotificationService"],
                 "ats": ["NSExceptionDomains": ["media.example.com": ["NSExceptionAllowsInsecureHTTPLoads": true, "NSIncludesSubdomains": true]]]],
                ["name": "NotificationContent", "point": "com.apple.usernotifications.content-extension", "principalClass": "ContentViewController",
                 "minimumOS": "15.0", "categories": ["carousel", "product"]],
            ],
        ]
    }

    /// Writes the build `spec` describes at `path`.
    static func make(_ spec: [String: Any], at path: String) throws {
        var spec = spec
        spec["path"] = path
        let text = String(decoding: try JSONSerialization.data(withJSONObject: spec), as: UTF8.self)
        let made = try CLI.run(executable: "/usr/bin/env", ["python3", maker], stdin: text)
        try #require(made.status == 0, "make_ios_build.py: \(made.stderr)")
    }

    static func json(_ result: CLI.Result) -> [[String: Any]] {
        result.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    static func codes(_ build: [String: Any]) -> [String] {
        (build["diagnostics"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
    }

    @Test(arguments: ["ipa", "app", "xcarchive"])
    func aBrazeAppsFactsAreReadFromEachKindOfBuild(output: String) throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("Shop." + output).path
        try Self.make(Self.brazeApp(output: output), at: path)
        let before = TreeSnapshot(folder)
        let result = try CLI.run(["app", path, "--format", "json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty)
        let builds = Self.json(result)
        try #require(builds.count == 1)
        let build = builds[0]
        #expect(build["file"] as? String == path)
        #expect(build["platform"] as? String == "ios")
        #expect(build["bundleId"] as? String == "com.example.shop")
        #expect(build["version"] as? String == "4.2")
        #expect(build["minimumOS"] as? String == "15.0")
        #expect(build["apsEnvironment"] as? String == "production")
        #expect(Self.codes(build) == [])
        let extensions = build["extensions"] as? [[String: Any]] ?? []
        try #require(extensions.count == 2)
        let content = extensions[0], service = extensions[1]
        #expect(service["path"] as? String == "PlugIns/NotificationService.appex")
        #expect(service["bundleId"] as? String == "com.example.shop.NotificationService")
        #expect(service["point"] as? String == "com.apple.usernotifications.service")
        #expect(service["principalClass"] as? String == "NotificationService")
        #expect(service["executable"] as? Bool == true)
        #expect(service["sdk"] as? String == "braze")
        #expect(service["sdkVersion"] as? String == "7.3.0")
        let ats = service["ats"] as? [String: Any]
        let domain = (ats?["NSExceptionDomains"] as? [String: Any])?["media.example.com"] as? [String: Any]
        #expect(domain?["NSExceptionAllowsInsecureHTTPLoads"] as? Bool == true)
        #expect(domain?["NSIncludesSubdomains"] as? Bool == true)
        #expect(service["categories"] as? [String] == [])
        #expect(content["point"] as? String == "com.apple.usernotifications.content-extension")
        #expect(content["categories"] as? [String] == ["carousel", "product"])
        #expect(content["sdk"] is NSNull)
        #expect(content["ats"] is NSNull)
        // Read in place: nothing beside the build changed or appeared.
        #expect(TreeSnapshot(folder) == before)
    }

    /// Python's zipfile and plistlib read the same facts from the same .ipa (binary and XML lists, a fat executable).
    @Test(arguments: [("binary", false), ("xml", true)])
    func anIndependentReaderAgrees(plist: String, fat: Bool) throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("Shop.ipa").path
        try Self.make(Self.brazeApp(plist: plist, fat: fat), at: path)
        let script = """
            import json, plistlib, sys, zipfile
            z = zipfile.ZipFile(sys.argv[1])
            app = plistlib.loads(z.read('Payload/Shop.app/Info.plist'))
            ext = plistlib.loads(z.read('Payload/Shop.app/PlugIns/NotificationService.appex/Info.plist'))
            print(json.dumps([app['CFBundleIdentifier'], app['CFBundleShortVersionString'], app['MinimumOSVersion'],
                              ext['CFBundleIdentifier'], ext['NSExtension']['NSExtensionPrincipalClass']]))
            """
        let independent = try CLI.run(executable: "/usr/bin/env", ["python3", "-c", script, path])
        let expected = try JSONSerialization.jsonObject(with: Data(independent.stdout.utf8)) as? [String] ?? []
        let build = try #require(Self.json(try CLI.run(["app", path, "--format", "json"])).first)
        let service = try #require((build["extensions"] as? [[String: Any]])?.last)
        let ours = [build["bundleId"], build["version"], build["minimumOS"], service["bundleId"], service["principalClass"]].map { $0 as? String ?? "" }
        #expect(expected.count == 5)
        #expect(ours == expected)
        #expect(service["sdk"] as? String == "braze")
    }

    @Test func anAppWithoutAServiceExtensionFailsInSection10sForm() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("Plain.ipa").path
        try Self.make(["name": "Plain", "app": ["profile": ["aps-environment": "development"]]], at: path)
        let result = try CLI.run(["app", path])
        #expect(result.status == 1)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "\(path): ios com.example.shop 1.0 (iOS 15.0), aps-environment development, 0 extensions")
        #expect(lines.count == 2)
        #expect(lines.last?.hasPrefix("\(path): error: no_service_extension: no bundle under Payload/Plain.app/PlugIns has "
            + "NSExtensionPointIdentifier com.apple.usernotifications.service") == true)
    }

    @Test func aServiceExtensionWithoutItsClassOrExecutableIsNotRunnable() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var spec = Self.brazeApp()
        spec["extensions"] = [
            ["name": "NoClass", "point": "com.apple.usernotifications.service", "minimumOS": "15.0", "dylibs": ["@rpath/BrazeNotificationService.framework/BrazeNotificationService"]],
            ["name": "NoBinary", "point": "com.apple.usernotifications.service", "principalClass": "NotificationService", "minimumOS": "15.0", "executable": false],
        ]
        let path = folder.appendingPathComponent("Shop.ipa").path
        try Self.make(spec, at: path)
        let result = try CLI.run(["app", path, "--format", "json"])
        #expect(result.status == 1)
        let build = try #require(Self.json(result).first)
        // What the executable-less one links is not known: not said to be nothing (no extension_without_sdk).
        #expect(Self.codes(build) == ["extension_not_runnable", "extension_not_runnable"])
        let messages = (build["diagnostics"] as? [[String: Any]] ?? []).compactMap { $0["message"] as? String }
        #expect(messages.contains { $0.hasPrefix("PlugIns/NoBinary.appex: its executable NoBinary (CFBundleExecutable) is not in the bundle") })
        #expect(messages.contains { $0.hasPrefix("PlugIns/NoClass.appex: its Info.plist names no NSExtension.NSExtensionPrincipalClass") })
        let extensions = build["extensions"] as? [[String: Any]] ?? []
        #expect(extensions.map { $0["executable"] as? Bool } == [false, true])
    }

    @Test func anExtensionAboveTheAppAndOneLinkingNoSDKAreWarnings() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var spec = Self.brazeApp()
        // No MinimumOSVersion in the extension's plist: the one its executable was built for (LC_BUILD_VERSION) counts.
        spec["extensions"] = [["name": "NotificationService", "point": "com.apple.usernotifications.service", "principalClass": "NotificationService",
                               "buildMinOS": "17.2", "dylibs": ["@rpath/Kingfisher.framework/Kingfisher"]]]
        let path = folder.appendingPathComponent("Shop.ipa").path
        try Self.make(spec, at: path)
        let result = try CLI.run(["app", path])
        #expect(result.status == 0, "warnings only: \(result.stdout)")
        #expect(result.stdout.contains("\(path): warning: extension_above_app: PlugIns/NotificationService.appex: its MinimumOSVersion 17.2 is above the app's 15.0"))
        #expect(result.stdout.contains("\(path): warning: extension_without_sdk: PlugIns/NotificationService.appex: its executable links none"))
        #expect(result.stdout.contains("PlugIns/NotificationService.appex: com.apple.usernotifications.service NotificationService (iOS 17.2), links no push SDK"))
    }

    @Test func aProfileWithoutTheApsEntitlementAndTwoSDKs() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var spec = Self.brazeApp(output: "app")
        spec["app"] = ["profile": ["application-identifier": "TEST.com.example.shop"], "frameworks": [["name": "OneSignalExtension", "version": "5.2.1"]]]
        spec["extensions"] = [["name": "NotificationService", "point": "com.apple.usernotifications.service", "principalClass": "NotificationService",
                               "minimumOS": "15.0", "dylibs": ["@rpath/OneSignalExtension.framework/OneSignalExtension", "@rpath/FirebaseMessaging.framework/FirebaseMessaging"]]]
        let path = folder.appendingPathComponent("Shop.app").path
        try Self.make(spec, at: path)
        let result = try CLI.run(["app", path, "--format", "json"])
        #expect(result.status == 1)
        let build = try #require(Self.json(result).first)
        #expect(build["apsEnvironment"] is NSNull)
        #expect(Self.codes(build) == ["no_push_entitlement"])
        let service = try #require((build["extensions"] as? [[String: Any]])?.first)
        // Section 12's order: fcm before onesignal.
        #expect(service["sdk"] as? String == "fcm")
        #expect(service["otherSdks"] as? [String] == ["onesignal"])
        #expect(service["sdkVersion"] is NSNull)
    }

    @Test func severalBuildsEachGetTheirLinesAndTheWorstExitStatus() throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let good = folder.appendingPathComponent("Shop.ipa").path, plain = folder.appendingPathComponent("Plain.ipa").path
        try Self.make(Self.brazeApp(), at: good)
        try Self.make(["name": "Plain"], at: plain)
        let result = try CLI.run(["app", good, plain, "--format", "json"])
        #expect(result.status == 1)
        #expect(Self.json(result).map { $0["file"] as? String } == [good, plain])
        let missing = folder.appendingPathComponent("missing.ipa").path
        let mixed = try CLI.run(["app", good, missing])
        #expect(mixed.status == 2)
        #expect(mixed.stderr == "notti-media: \(missing): cannot read it (No such file or directory)\n")
        #expect(mixed.stdout.hasPrefix("\(good): ios com.example.shop 4.2"))
    }

    /// Hostile and wrong inputs: one line naming the file and what is wrong, exit 2, nothing written beside them.
    @Test(arguments: ["dotdot", "absolute", "truncated", "inflates", "link", "duplicate", "text", "fifo", "folder", "apk", "no-app", "damaged-macho"])
    func aBuildThatCannotBeReadIsOneLineAndExit2(kind: String) throws {
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent(kind == "folder" ? "Shop" : kind == "apk" ? "Shop.apk" : "Shop.ipa").path
        let zipScript = """
            import os, stat, sys, zipfile
            kind, path = sys.argv[1], sys.argv[2]
            if kind == 'truncated':
                data = open(path, 'rb').read()
                open(path, 'wb').write(data[:len(data) - 30])
                sys.exit(0)
            if kind == 'damaged-macho':
                src = zipfile.ZipFile(path)
                items = [(i, src.read(i)) for i in src.infolist()]
                src.close()
                with zipfile.ZipFile(path, 'w', zipfile.ZIP_DEFLATED) as z:
                    for info, data in items:
                        if info.filename.endswith('NotificationService.appex/NotificationService'):
                            data = data[:16] + (200).to_bytes(4, 'little') + data[20:]
                        z.writestr(info, data)
                sys.exit(0)
            with zipfile.ZipFile(path, 'a', zipfile.ZIP_DEFLATED) as z:
                if kind == 'dotdot': z.writestr('Payload/Shop.app/../../evil.txt', b'x')
                if kind == 'absolute': z.writestr('/etc/evil.txt', b'x')
                if kind == 'inflates': z.writestr('Payload/Shop.app/PlugIns/Big.appex/Info.plist', b'\\0' * (64 << 20))
                if kind == 'duplicate': z.writestr('Payload/Shop.app/Info.plist', b'<plist/>')
                if kind == 'link':
                    info = zipfile.ZipInfo('Payload/Shop.app/PlugIns/Linked.appex/Info.plist')
                    info.create_system = 3
                    info.external_attr = (stat.S_IFLNK | 0o777) << 16
                    z.writestr(info, b'/etc/passwd')
            """
        switch kind {
        case "text": try "not a build\n".write(toFile: path, atomically: true, encoding: .utf8)
        case "fifo": #expect(mkfifo(path, 0o600) == 0)
        case "folder": try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        case "apk":
            let made = try CLI.run(executable: "/usr/bin/env", ["python3", "-c",
                "import zipfile,sys; z=zipfile.ZipFile(sys.argv[1],'w'); z.writestr('AndroidManifest.xml', b'\\3\\0\\x08\\0'); z.writestr('classes.dex', b'dex')", path])
            #expect(made.status == 0)
        case "no-app":
            try Self.make(Self.brazeApp(), at: path)
            let made = try CLI.run(executable: "/usr/bin/env", ["python3", "-c",
                "import zipfile,sys; s=zipfile.ZipFile(sys.argv[1]); d=[(i.filename.replace('Payload/','Other/'), s.read(i)) for i in s.infolist()]; s.close(); z=zipfile.ZipFile(sys.argv[1],'w'); [z.writestr(n, b) for n, b in d]", path])
            #expect(made.status == 0)
        default:
            try Self.make(Self.brazeApp(), at: path)
            let made = try CLI.run(executable: "/usr/bin/env", ["python3", "-c", zipScript, kind, path])
            #expect(made.status == 0, "\(made.stderr)")
        }
        let before = TreeSnapshot(folder)
        let result = try CLI.run(["app", path])
        #expect(result.status == 2, "\(kind): \(result.stdout) \(result.stderr)")
        #expect(result.stdout.isEmpty)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(kind): \(result.stderr)")
        #expect(result.stderr.hasPrefix("notti-media: \(path): "), "\(kind): \(result.stderr)")
        let expected = [
            "dotdot": "has a '..' component: refused, nothing read", "absolute": "has an absolute path: refused, nothing read",
            "truncated": "not a readable zip archive", "inflates": "more than a property list may be",
            "link": "is a symbolic link, not a file: refused, nothing read", "duplicate": "two entries are named 'Payload/Shop.app/Info.plist'",
            "text": "not a build: an .ipa is a zip archive", "fifo": "not a build: neither a regular file", "folder": "neither an .app bundle nor an .xcarchive",
            "apk": "an Android build (.apk or .aab): this version reads iOS builds only", "no-app": "no Payload/NAME.app/ in it: not an iOS build",
            "damaged-macho": "PlugIns/NotificationService.appex/NotificationService is a damaged Mach-O executable",
        ][kind]!
        #expect(result.stderr.contains(expected), "\(kind): \(result.stderr)")
        #expect(TreeSnapshot(folder) == before)
    }

    @Test func appNeedsAPathAndTakesTextOrJSON() throws {
        let none = try CLI.run(["app"])
        #expect(none.status == 2)
        #expect(none.stderr == "notti-media: app expects at least one PATH: an .ipa, or an .xcarchive or .app folder\n")
        let sarif = try CLI.run(["app", "x.ipa", "--format", "sarif"])
        #expect(sarif.status == 2)
        #expect(sarif.stderr == "notti-media: --format expects text or json, not 'sarif'\n")
    }
}

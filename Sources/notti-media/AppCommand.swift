import Glibc
import NottiMedia

/// `notti-media app PATH...` (SPEC 22): what each build of the team's own app does with its pushes.
struct AppCommand {
    let options: Options

    func run() -> Int32 {
        // libzip turns each entry's DOS time into a time_t by mktime, and glibc, with TZ unset, stats
        // /etc/localtime on every call: 8,000 entries made 8,000 system calls, 60% of a 200 MB .ipa's read
        // (scripts/bench app). Named, the same zone is read once. Before any thread is started by the command.
        if getenv("TZ") == nil { setenv("TZ", ":/etc/localtime", 0) }
        var status = ExitCode.success
        for path in options.operands {
            if Signals.receivedSignal != nil { break }
            let build: AppBuild
            do throws(BuildError) {
                build = try AppBuild.read(path)
            } catch {
                Console.fail(textEscape(error.message))
                status = ExitCode.usage
                continue
            }
            if build.failed && status == ExitCode.success { status = ExitCode.failed }
            switch options.format ?? .text {
            case .json: Console.out(JSONWriter.string(build.json))
            case .text, .junit, .github, .sarif, .codequality: Console.out(Self.text(for: build))
            }
        }
        if let signal = Signals.receivedSignal { return ExitCode.interrupted(by: signal) }
        return status
    }

    /// A line for the app, one per extension, then each finding in section 10's form.
    static func text(for build: AppBuild) -> String {
        let app = build.facts
        let source = textEscape(build.path)
        let aps = app.apsEnvironment.map { "aps-environment \(textEscape($0))" }
            ?? (app.hasProvisioningProfile ? "no aps-environment" : "no provisioning profile")
        var lines = ["\(source): ios \(shown(app.bundleId)) \(shown(app.version)) (iOS \(shown(app.minimumOS))), \(aps), "
            + "\(app.extensions.count) extension\(app.extensions.count == 1 ? "" : "s")"]
        for appex in app.extensions {
            var words = "\(source): \(textEscape(appex.path)): \(shown(appex.point)) \(shown(appex.principalClass)) (iOS \(shown(appex.minimumOS)))"
            if !appex.hasExecutable { words += ", no executable" }
            if let sdk = appex.sdk {
                words += ", links \(sdk.rawValue)" + (appex.sdkVersion.map { " \(textEscape($0))" } ?? "")
                if appex.linked.count > 1 { words += " (and \(appex.linked.dropFirst().map(\.sdk.rawValue).joined(separator: ", ")))" }
            } else if appex.isServiceExtension {
                words += ", links no push SDK"
            }
            if appex.ats != nil { words += ", its own NSAppTransportSecurity" }
            if !appex.categories.isEmpty { words += ", categories \(appex.categories.map(textEscape).joined(separator: ", "))" }
            lines.append(words)
        }
        lines += build.findings.map { FindingLine.format($0, source: build.path) }
        return lines.joined(separator: "\n")
    }

    private static func shown(_ value: String?) -> String { value.map(textEscape) ?? "-" }
}

import Foundation
import NottiMedia

/// The command line as a whole: parse, dispatch, turn errors into exit codes.
enum Tool {
    static func run(arguments: [String]) -> Int32 {
        let invocation: Invocation
        do {
            invocation = try Arguments.parse(arguments)
        } catch {
            Console.fail(error.message)
            return ExitCode.usage
        }
        switch invocation {
        case .version:
            Console.out("notti-media \(NottiMediaVersion.string)")
            return ExitCode.success
        case .help(let command):
            Console.out(HelpText.text(for: command))
            return ExitCode.success
        case .run(let options):
            switch options.command {
            case .process: return ProcessCommand(options: options).run()
            case .check: return CheckCommand(options: options).run()
            case .sniff: return SniffCommand(options: options).run()
            }
        }
    }

    /// The policy the options describe: the SDK's, with any limits overridden.
    static func policy(from options: Options) -> MediaPolicy {
        MediaPolicy(
            maxBytes: options.maxBytes ?? MediaPolicy.sdkMaxBytes,
            timeoutSeconds: options.timeoutSeconds ?? MediaPolicy.sdkTimeoutSeconds,
            extraCAFile: options.caFile,
            connectTo: options.connectTo,
            denyPrivateNetworks: options.denyPrivateNetworks)
    }

    /// `--out DIR`, or a `notti-media` folder in the system temp dir.
    static func outputDirectory(from options: Options) -> String {
        options.outDirectory
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("notti-media").path
    }
}

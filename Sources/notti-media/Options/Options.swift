import NottiMedia

enum Command: String, CaseIterable {
    case process, check, sniff
}

enum OutputFormat: String {
    case text, json, junit
}

/// What the command line asked for.
enum Invocation {
    case help(Command?)
    case version
    case run(Options)
}

/// The parsed options of one command; nil means the default. Each field is set
/// by one entry of `OptionTable`, which also documents it in `--help`.
struct Options {
    var command: Command
    var operands: [String] = []
    var outDirectory: String?
    var timeoutSeconds: Double?
    var maxBytes: Int?
    var caFile: String?
    var connectTo: [String] = []
    var report = false
    /// `--format`; nil means the command's default (json for process, text otherwise).
    var format: OutputFormat?
    var strict = false
    var quiet = false
    var denyPrivateNetworks = false
    var jobs: Int?
    var summaryOnly = false
    /// `--errors-only`: `check` text lists errors, not warnings.
    var errorsOnly = false
    /// `--html FILE`: the visual preview page.
    var htmlPath: String?
    /// `--sdk`: whose extension to reproduce; Notti by default.
    var sdk: SDKSelection = .fixed(.notti)
    /// `--allow-http`: the app has an App Transport Security exception for plain http.
    var allowHTTP = false
    /// `--allow-empty`: a `check` that finds no payload passes instead of failing as a usage error.
    var allowEmpty = false
    /// `--network NAME|KBITS/RTTMS`: warn where media would miss the deadline on it.
    var network: NetworkProfile?
    /// `--shard I/N`: check the payloads at positions that are I-1 modulo N.
    var shard: (index: Int, count: Int)?

    /// Downloads are network-bound, so more than the two cores' worth.
    static let defaultJobs = 8

    /// The SDK a report names when no profile could be applied (an invalid payload).
    var reportedSDK: SDK {
        if case .fixed(let sdk) = sdk { return sdk }
        return .notti
    }
}

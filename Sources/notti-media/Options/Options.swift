import NottiMedia

enum Command: String, CaseIterable {
    case process, check, sniff, merge, fix, serve, app
}

enum OutputFormat: String {
    case text, json, junit, github, sarif, codequality
}

/// What the command line asked for.
enum Invocation {
    case help(Command?)
    case version
    /// `--generate KIND`: text made from the option table (hidden).
    case generate(Generated)
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
    /// `--host-connections`: the most connections to one media host at once.
    var hostConnections: Int?
    /// `--platform`: the deliveries checked.
    var platforms = PlatformSelection.all
    var summaryOnly = false
    /// `--top N`: the text summary's media list shows at most N rows.
    var top = 20
    /// `--errors-only`: `check` text lists errors, not warnings.
    var errorsOnly = false
    /// `--html FILE`: the visual preview page.
    var htmlPath: String?
    /// `--sdk`: whose extension to reproduce; by default Notti's for APNs payloads, `auto` for send requests.
    var sdk: SDKSelection = .unspecified
    /// `--allow-http`: the app has an App Transport Security exception for plain http.
    var allowHTTP = false
    /// `--no-decode`: the decode worker is not used (nor needed); every report says so.
    var noDecode = false
    /// `--send-at RFC3339`: when the campaign is sent, seconds since 1970 (nil: now), for `url_expires`.
    var sendAt: Int?
    /// `--device-headers`: each URL also fetched with each platform's own request headers.
    var deviceHeaders = false
    /// `--allow-empty`: a `check` that finds no payload passes instead of failing as a usage error.
    var allowEmpty = false
    /// `--cache FILE`: the SQLite file of verdicts to revalidate instead of downloading again.
    var cachePath: String?
    /// `--network NAME|KBITS/RTTMS`: warn where media would miss the deadline on it.
    var network: NetworkProfile?
    /// `--shard I/N`: check the payloads at positions that are I-1 modulo N.
    var shard: (index: Int, count: Int)?
    /// `--shard auto`: I and N from the CI engine's environment (`resolveShard`).
    var shardAuto = false
    /// `--shard-count N`: N for `--shard auto` under a Kubernetes Indexed Job.
    var shardCount: Int?
    /// `fix --into DIR`: where the renditions and `fixes.jsonl` go.
    var fixInto: String?
    /// `fix --base-url URL`: where DIR's files will be served; each manifest line gets its `newUrl`.
    var baseURL: String?
    /// `fix --rewrite DIR2`: the payloads written again, pointing at the renditions.
    var rewriteDirectory: String?
    /// `fix --max-side N`: a rendition's longest side in pixels (default 2048).
    var maxSide = 2048
    /// `fix --target-bytes N`: a picture rendition's most bytes (default 300,000).
    var targetBytes = 300_000
    /// `serve --listen ADDR:PORT` (SPEC 21): loopback by default.
    var listen = ServeAddress(host: "127.0.0.1", port: 8480)
    /// `serve --token FILE`: the bearer token, its first line.
    var tokenPath: String?
    /// `serve --basic-auth FILE`: `user:password`, its first line.
    var basicAuthPath: String?
    /// `serve --queue N`: checks waiting or running at once before 503.
    var queue = 1024
    /// `serve --max-body N`: the largest request body.
    var maxBody = 4 << 20
    /// `serve --client-timeout SECONDS`: a client still sending its request after this is dropped.
    var clientTimeout = 10
    /// `serve --cache-entries N`: verdicts kept in memory.
    var cacheEntries = 100_000

    /// `--shard auto` made concrete: GitLab's `CI_NODE_INDEX` / `CI_NODE_TOTAL`
    /// (1-based), else Kubernetes' `JOB_COMPLETION_INDEX` (0-based) with `--shard-count`.
    /// - Throws: `UsageError` when the variables are missing or do not make a shard.
    mutating func resolveShard(environment: [String: String]) throws(UsageError) {
        guard shardAuto else { return }
        if let indexText = environment["CI_NODE_INDEX"], let totalText = environment["CI_NODE_TOTAL"] {
            guard let index = Int(indexText), let total = Int(totalText), total >= 1, (1...total).contains(index) else {
                throw UsageError("--shard auto: CI_NODE_INDEX=\(indexText) and CI_NODE_TOTAL=\(totalText) do not make a shard (1 <= index <= total)")
            }
            shard = (index, total)
        } else if let completionText = environment["JOB_COMPLETION_INDEX"] {
            guard let count = shardCount else {
                throw UsageError("--shard auto with JOB_COMPLETION_INDEX (a Kubernetes Indexed Job) needs --shard-count N, the job's completions")
            }
            guard let completion = Int(completionText), (0..<count).contains(completion) else {
                throw UsageError("--shard auto: JOB_COMPLETION_INDEX=\(completionText) is not in 0..<\(count) (--shard-count)")
            }
            shard = (completion + 1, count)
        } else {
            throw UsageError("--shard auto needs CI_NODE_INDEX and CI_NODE_TOTAL (GitLab parallel) or JOB_COMPLETION_INDEX "
                + "with --shard-count N (a Kubernetes Indexed Job); none is set")
        }
    }

    /// Downloads are network-bound, so more than the two cores' worth.
    static let defaultJobs = 8

    /// The SDK a report names when no profile could be applied (an invalid payload).
    var reportedSDK: SDK {
        if case .fixed(let sdk) = sdk { return sdk }
        return .notti
    }
}

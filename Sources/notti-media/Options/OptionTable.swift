import Glibc
import NottiMedia

/// One command-line option, declared once: which commands take it, its value,
/// its `--help` lines and how it sets `Options`. The parser, the validation of
/// values, the defaults stated and `--help` all come from this table.
struct OptionSpec: Sendable {
    let name: String
    /// The value's placeholder (`SECONDS`); nil for a flag.
    let value: String?
    let commands: Set<Command>
    /// What a value must be, for usage errors: "SECONDS, a number greater than 0 ...".
    let expects: String
    /// The `--help` lines, defaults included.
    let help: [String]
    /// The values it takes, when they are a fixed list (for shell completion);
    /// by default the words of a value like `json|text`.
    let choices: [String]
    let apply: @Sendable (inout Options, String) throws(UsageError) -> Void

    init(
        _ name: String, value: String? = nil, _ commands: Set<Command>, expects: String = "", help: [String],
        choices: [String]? = nil, apply: @escaping @Sendable (inout Options, String) throws(UsageError) -> Void
    ) {
        self.name = name
        self.value = value
        self.commands = commands
        self.expects = expects
        self.help = help
        self.choices = choices ?? (value.map { value in
            value.contains("|") && value.allSatisfy { $0.isLowercase || $0 == "|" } ? value.split(separator: "|").map(String.init) : []
        } ?? [])
        self.apply = apply
    }

    /// What a shell completes its value with.
    enum ValueKind { case none, file, folder, choice, text }

    var valueKind: ValueKind {
        guard let value else { return .none }
        if !choices.isEmpty { return .choice }
        switch value {
        case "FILE": return .file
        case "DIR": return .folder
        default: return .text
        }
    }

    /// `--timeout SECONDS` as it appears in `--help`.
    var synopsis: String { value.map { "--\(name) \($0)" } ?? "--\(name)" }

    func invalid(_ text: String) -> UsageError { UsageError("--\(name) expects \(expects), not '\(text)'") }

    /// For an empty value, which `invalid` would quote as ''.
    func missing() -> UsageError { UsageError("--\(name) expects \(expects)") }
}

enum OptionTable {
    static let all: [OptionSpec] = [
        OptionSpec("report", [.process], help: ["print the full report (outcome, reason, media, diagnostics,", "content) instead of the content"]) { options, _ in
            options.report = true
        },
        OptionSpec("format", value: "json|text", [.process], expects: "text or json",
                   help: ["json (default): the content (or report) as JSON;", "text: one line saying what was delivered"]) { options, text throws(UsageError) in
            try options.format = format(text, allowed: [.text, .json], spec: "format")
        },
        OptionSpec("format", value: "FORMAT", [.check, .merge], expects: "text, json, junit, github, sarif or codequality",
                   help: ["text (default): every diagnostic as SOURCE: SEVERITY: CODE: MESSAGE,",
                          "then a summary; json: one report per line, then a {\"summary\": ...}",
                          "record; junit: JUnit XML, a testcase per payload; github: GitHub",
                          "Actions annotations, then the summary; sarif: one SARIF 2.1.0 log;",
                          "codequality: a GitLab Code Quality report"],
                   choices: ["text", "json", "junit", "github", "sarif", "codequality"]) { options, text throws(UsageError) in
            try options.format = format(text, allowed: [.text, .json, .junit, .github, .sarif, .codequality], spec: "format")
        },
        OptionSpec("format", value: "text|json", [.app], expects: "text or json",
                   help: ["text (default): a line per build and per extension, then the", "findings; json: one object per build per line"]) { options, text throws(UsageError) in
            try options.format = format(text, allowed: [.text, .json], spec: "format")
        },
        OptionSpec("format", value: "text|json", [.sniff], expects: "text or json",
                   help: ["text (default), or one JSON record per file per line"]) { options, text throws(UsageError) in
            try options.format = format(text, allowed: [.text, .json], spec: "format")
        },
        OptionSpec("summary-only", [.check, .merge], help: ["print only the summary (text or json)"]) { options, _ in options.summaryOnly = true },
        OptionSpec("top", value: "N", [.check, .merge], expects: "N, the text summary's media rows, from 1 to 100000",
                   help: ["the text summary's media list shows at most N rows (default 20), worst",
                          "first, URLs of the same content and verdicts in one row; --format json",
                          "lists every URL"]) { options, text throws(UsageError) in
            guard let top = Int(text), (1...100_000).contains(top) else { throw byName("top").invalid(text) }
            options.top = top
        },
        OptionSpec("errors-only", [.check, .merge], help: ["text: list errors only, not warnings"]) { options, _ in options.errorsOnly = true },
        OptionSpec("html", value: "FILE", [.check], expects: "FILE, the preview page to write",
                   help: ["also write a preview page: every push drawn as the phone shows", "it, its pictures drawn into FILE-without-extension-media/ (works offline)"]) { options, text throws(UsageError) in
            guard !text.isEmpty else { throw byName("html").missing() }
            try FileTarget.check(text, option: "html")
            options.htmlPath = text
        },
        OptionSpec("jobs", value: "N", [.check, .fix, .serve], expects: "N, concurrent downloads from 1 to 256",
                   help: ["concurrent downloads, 1 to 256 (default 8)"]) { options, text throws(UsageError) in
            guard let jobs = Int(text), (1...256).contains(jobs) else { throw byName("jobs").invalid(text) }
            options.jobs = jobs
        },
        OptionSpec("host-connections", value: "N", [.check, .fix], expects: "N, connections to one host at once, from 1 to 256",
                   help: ["at most N connections to one media host at once, whatever --jobs", "is (default 8)"]) { options, text throws(UsageError) in
            guard let count = Int(text), (1...256).contains(count) else { throw byName("host-connections").invalid(text) }
            options.hostConnections = count
        },
        OptionSpec("shard", value: "I/N|auto", [.check], expects: "I/N, with 1 <= I <= N, or auto",
                   help: ["check only the payloads at positions I-1 modulo N; auto: from", "CI_NODE_INDEX/CI_NODE_TOTAL (GitLab parallel), else",
                          "JOB_COMPLETION_INDEX (Kubernetes) with --shard-count"]) { options, text throws(UsageError) in
            if text == "auto" {
                options.shardAuto = true
                return
            }
            let parts = text.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]), count >= 1, (1...count).contains(index) else {
                throw byName("shard").invalid(text)
            }
            options.shard = (index, count)
        },
        OptionSpec("shard-count", value: "N", [.check], expects: "N, the number of shards (1 or more)",
                   help: ["the number of shards, for --shard auto under JOB_COMPLETION_INDEX"]) { options, text throws(UsageError) in
            guard let count = Int(text), count >= 1 else { throw byName("shard-count").invalid(text) }
            options.shardCount = count
        },
        OptionSpec("into", value: "DIR", [.fix], expects: "DIR, a folder for the renditions",
                   help: ["where the renditions (named by SHA-256) and fixes.jsonl go; created", "when missing; it holds nothing else"]) { options, text throws(UsageError) in
            guard !text.isEmpty else { throw byName("into").missing() }
            options.fixInto = text
        },
        OptionSpec("base-url", value: "URL", [.fix], expects: "URL, an https:// or http:// address the renditions will be served at",
                   help: ["where DIR's files will be served: each fixes.jsonl line gets", "newUrl, URL followed by the file's name"]) { options, text throws(UsageError) in
            let lower = text.lowercased()
            guard lower.hasPrefix("https://") || lower.hasPrefix("http://"), text.count > 8,
                  !text.contains(where: { $0.isWhitespace || $0 == "\"" || $0 == "\\" }) else { throw byName("base-url").invalid(text) }
            options.baseURL = text
        },
        OptionSpec("rewrite", value: "DIR", [.fix], expects: "DIR, a folder for the rewritten payloads (with --base-url)",
                   help: ["write every payload again under DIR, each fixed media URL", "replaced by its newUrl (needs --base-url)"]) { options, text throws(UsageError) in
            guard !text.isEmpty else { throw byName("rewrite").missing() }
            options.rewriteDirectory = text
        },
        OptionSpec("max-side", value: "N", [.fix], expects: "N, pixels from 16 to 16384",
                   help: ["a picture rendition's longest side, 16 to 16384 pixels (default", "2048)"]) { options, text throws(UsageError) in
            guard let side = Int(text), (16...16_384).contains(side) else { throw byName("max-side").invalid(text) }
            options.maxSide = side
        },
        OptionSpec("target-bytes", value: "N", [.fix], expects: "N, bytes from 1024 to 52428800 (K, M: binary; KB, MB: decimal)",
                   help: ["a picture rendition's most bytes (default 300000: what 3g brings", "within Firebase's 5 s); quality goes down to 70, then the side"]) { options, text throws(UsageError) in
            guard let bytes = ByteCount.parse(text), (1024...DeviceModel.largestLimitBytes).contains(bytes) else { throw byName("target-bytes").invalid(text) }
            options.targetBytes = bytes
        },
        OptionSpec("allow-empty", [.check], help: ["finding no payload passes (default: exit 2, it is a typo)"]) { options, _ in
            options.allowEmpty = true
        },
        OptionSpec("strict", [.process], help: ["warnings fail too (the report's \"passed\")"]) { options, _ in options.strict = true },
        OptionSpec("strict", [.check, .sniff], help: ["fail on warnings too"]) { options, _ in options.strict = true },
        OptionSpec("out", value: "DIR", [.process, .check], expects: "DIR, a folder for attachments",
                   help: ["where attachments are stored, named by SHA-256 (default:", "$XDG_CACHE_HOME/notti-media/attachments, else",
                          "~/.cache/notti-media/attachments; mode 0700)"]) { options, text throws(UsageError) in
            guard !text.isEmpty else { throw byName("out").missing() }
            options.outDirectory = text
        },
        OptionSpec("sdk", value: "NAME", [.process, .check, .fix],
                   expects: SDK.allCases.map(\.rawValue).joined(separator: ", ") + " or auto",
                   help: ["whose extension to reproduce: notti (default), braze, fcm,", "onesignal, airship, clevertap, iterable, batch, expo, or auto",
                          "(per payload, by the media key it carries); a platform's request", "is always judged under its own platform"],
                   choices: SDK.allCases.map(\.rawValue) + ["auto"]) { options, text throws(UsageError) in
            if text == "auto" {
                options.sdk = .auto
            } else if let sdk = SDK(rawValue: text) {
                options.sdk = .fixed(sdk)
            } else {
                throw byName("sdk").invalid(text)
            }
        },
        OptionSpec("platform", value: "ios|android|all", [.process, .check, .fix], expects: "ios, android or all",
                   help: ["the deliveries to check (default all): an APNs payload is delivered to iOS only, an FCM",
                          "send request ({\"message\": ...}) to iOS and Android"]) { options, text throws(UsageError) in
            guard let platforms = PlatformSelection(rawValue: text) else { throw byName("platform").invalid(text) }
            options.platforms = platforms
        },
        OptionSpec("allow-http", [.process, .check, .fix, .serve],
                   help: ["the app allows arbitrary loads (an App Transport Security exception):",
                          "plain http, and servers without forward secrecy; nothing else of iOS's",
                          "connection rules (ats_violation); Notti refuses http whatever this says"]) { options, _ in
            options.allowHTTP = true
        },
        OptionSpec("send-at", value: "TIME", [.process, .check, .fix, .serve],
                   expects: "TIME, an RFC 3339 date and time (2026-12-24T09:00:00Z, or with an offset: +01:00)",
                   help: ["when the campaign is sent (default: now): a signed URL that expires",
                          "before it, plus the push's lifetime, is url_expires"]) { options, text throws(UsageError) in
            guard let seconds = RFC3339.seconds(text) else { throw byName("send-at").invalid(text) }
            options.sendAt = seconds
        },
        OptionSpec("device-headers", [.process, .check, .fix, .serve],
                   help: ["also fetch each URL with each phone's own request headers (iOS's",
                          "CFNetwork and Android's Dalvik User-Agent): a different answer is",
                          "device_dependent"]) { options, _ in
            options.deviceHeaders = true
        },
        OptionSpec("no-decode", [.process, .check, .sniff, .serve],
                   help: ["do not read files with the phone's decoders (SPEC 17): media.decoded",
                          "is null and no decoder finding is given, which every record and the",
                          "summary say; without it, a missing decode worker is an error (exit 2)"]) { options, _ in
            options.noDecode = true
        },
        OptionSpec("network", value: "NAME", [.process, .check, .fix],
                   expects: "3g, slow-4g, 4g or KBITS/RTTMS (e.g. 1000/200)",
                   help: ["warn (slow_network) where the media cannot arrive within the", "deadline on this network: 3g, slow-4g, 4g (Lighthouse's presets)",
                          "or KBITS/RTTMS, e.g. 1000/200"],
                   choices: NetworkProfile.presets.map(\.name)) { options, text throws(UsageError) in
            guard let network = NetworkProfile(parsing: text) else { throw byName("network").invalid(text) }
            options.network = network
        },
        OptionSpec("cache", value: "DIR", [.serve], expects: "DIR, an existing folder (or FILE, an SQLite file in one)",
                   help: ["keep verdicts and validators in DIR/notti-media-cache.sqlite (or", "FILE), shared across restarts and processes: after a restart an",
                          "ask revalidates with If-None-Match / If-Modified-Since"]) { options, text throws(UsageError) in
            guard !text.isEmpty else { throw byName("cache").missing() }
            var info = stat()
            // SPEC 21 names a folder; a file works as for check (SPEC 14).
            if stat(text, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
                options.cachePath = FilePaths.standardized(text) + "/notti-media-cache.sqlite"
                try FileTarget.check(options.cachePath!, option: "cache")
                return
            }
            try FileTarget.check(text, option: "cache")
            try FileTarget.requireFolder(of: text, option: "cache")
            options.cachePath = text
        },
        OptionSpec("cache", value: "FILE", [.process, .check], expects: "FILE, an SQLite file (created when missing, in a folder that exists)",
                   help: ["keep verdicts, failing ones too, and validators in FILE (SQLite,", "created when missing in a folder that must exist; shared by runs",
                          "and processes); later runs ask the server If-None-Match /",
                          "If-Modified-Since and reuse them on 304. Off by default: a 304 says", "nothing about how long a full download takes now"]) { options, text throws(UsageError) in
            guard !text.isEmpty else { throw UsageError("--cache expects FILE, an SQLite file (created when missing, in a folder that exists)") }
            try FileTarget.check(text, option: "cache")
            try FileTarget.requireFolder(of: text, option: "cache")
            options.cachePath = text
        },
        OptionSpec("timeout", value: "SECONDS", [.process, .check, .fix, .serve], expects: "SECONDS, a number greater than 0 and at most 86400",
                   help: ["deadline for the whole transfer (default: the SDK's, 20 for", "notti and batch, else iOS's 30 s budget for an extension)"]) { options, text throws(UsageError) in
            guard let seconds = Double(text), seconds.isFinite, seconds > 0, seconds <= 86_400 else { throw byName("timeout").invalid(text) }
            options.timeoutSeconds = seconds
        },
        OptionSpec("max-bytes", value: "N", [.process, .check, .fix, .serve], expects: ByteCount.expected,
                   help: ["size limit in decoded bytes, e.g. 5000000, 10M or 10MiB, at most", "52428800 (default: the SDK's, 10485760 for notti; else iOS's",
                          "per-type limits, reading at most 52428800)"]) { options, text throws(UsageError) in
            options.maxBytes = try ByteCount.limit(text)
        },
        OptionSpec("max-bytes", value: "N", [.sniff], expects: ByteCount.expected,
                   help: ["the SDK's size limit to check against (default 10485760), at", "most 52428800"]) { options, text throws(UsageError) in
            options.maxBytes = try ByteCount.limit(text)
        },
        OptionSpec("cacert", value: "FILE", [.process, .check, .fix, .serve], expects: "FILE, a PEM file of CA certificates",
                   help: ["also trust the CA certificates in FILE (PEM; at least one)"]) { options, text throws(UsageError) in
            guard access(text, R_OK) == 0 else { throw UsageError("--cacert: cannot read '\(text)'") }
            let certificates: Int
            do {
                certificates = try CertificateFile.certificateCount(atPath: text)
            } catch {
                throw UsageError("--cacert: cannot read '\(text)': \((error as? Errno)?.message ?? "\(error)")")
            }
            guard certificates > 0 else {
                throw UsageError("--cacert expects FILE, a PEM file of CA certificates, but '\(text)' holds no PEM certificate")
            }
            options.caFile = FilePaths.standardized(text)
        },
        OptionSpec("connect-to", value: "H:P:CH:CP", [.process, .check, .fix, .serve], expects: "HOST:PORT:CONNECT-HOST:CONNECT-PORT",
                   help: ["connect to CH:CP whenever H:P is asked for (repeatable)"]) { options, text throws(UsageError) in
            guard text.split(separator: ":", omittingEmptySubsequences: false).count >= 4 else { throw byName("connect-to").invalid(text) }
            options.connectTo.append(text)
        },
        OptionSpec("deny-private-networks", [.process, .check, .fix, .serve],
                   help: ["refuse loopback, private, link-local, CGNAT, multicast and", "unspecified addresses, on every connection (blocked_address)"]) { options, _ in
            options.denyPrivateNetworks = true
        },
        OptionSpec("quiet", [.process, .check, .fix],
                   help: ["nothing on stderr but an error that stops the run (process: no", "findings there; check: no progress line); stdout is unchanged"]) { options, _ in
            options.quiet = true
        },
        OptionSpec("quiet", [.sniff], help: ["nothing on stderr but an error that stops the run; stdout is unchanged"]) { options, _ in
            options.quiet = true
        },
        OptionSpec("listen", value: "ADDR:PORT", [.serve], expects: "ADDR:PORT, an IPv4 or [IPv6] address and a port from 0 to 65535",
                   help: ["where to listen (default 127.0.0.1:8480); any address but", "loopback needs --token or --basic-auth"]) { options, text throws(UsageError) in
            guard let address = ServeAddress(text) else { throw byName("listen").invalid(text) }
            options.listen = address
        },
        OptionSpec("token", value: "FILE", [.serve], expects: "FILE, whose first line is the bearer token",
                   help: ["require Authorization: Bearer with the token on FILE's first line"]) { options, text throws(UsageError) in
            guard !text.isEmpty else { throw byName("token").missing() }
            options.tokenPath = text
        },
        OptionSpec("basic-auth", value: "FILE", [.serve], expects: "FILE, whose first line is user:password",
                   help: ["require HTTP Basic credentials, user:password on FILE's first", "line (what Braze's :basic_auth sends)"]) { options, text throws(UsageError) in
            guard !text.isEmpty else { throw byName("basic-auth").missing() }
            options.basicAuthPath = text
        },
        OptionSpec("queue", value: "N", [.serve], expects: "N, checks waiting or running at once, from 1 to 1000000",
                   help: ["answer 503 past N checks waiting or running (default 1024)"]) { options, text throws(UsageError) in
            guard let count = Int(text), (1...1_000_000).contains(count) else { throw byName("queue").invalid(text) }
            options.queue = count
        },
        OptionSpec("max-body", value: "N", [.serve], expects: ByteCount.expected + ", at most 1 GiB",
                   help: ["the largest request body (default 4 MiB); larger is 413"]) { options, text throws(UsageError) in
            guard let bytes = ByteCount.parse(text), bytes <= 1 << 30 else { throw byName("max-body").invalid(text) }
            options.maxBody = bytes
        },
        OptionSpec("client-timeout", value: "SECONDS", [.serve], expects: "SECONDS, a whole number from 1 to 3600",
                   help: ["drop a client still sending its request, or idle, after", "SECONDS (default 10)"]) { options, text throws(UsageError) in
            guard let seconds = Int(text), (1...3600).contains(seconds) else { throw byName("client-timeout").invalid(text) }
            options.clientTimeout = seconds
        },
        OptionSpec("cache-entries", value: "N", [.serve], expects: "N, verdicts kept in memory, from 1 to 10000000",
                   help: ["verdicts kept in memory, the oldest forgotten first (default", "100000)"]) { options, text throws(UsageError) in
            guard let count = Int(text), (1...10_000_000).contains(count) else { throw byName("cache-entries").invalid(text) }
            options.cacheEntries = count
        },
    ]

    /// The options `command` takes, in `--help` order.
    static func options(for command: Command) -> [OptionSpec] {
        all.filter { $0.commands.contains(command) }
    }

    /// The spec named `name` that `command` takes.
    static func spec(_ name: String, for command: Command) -> OptionSpec? {
        all.first { $0.name == name && $0.commands.contains(command) }
    }

    private static func byName(_ name: String) -> OptionSpec {
        all.first { $0.name == name }!
    }

    private static func format(_ text: String, allowed: [OutputFormat], spec: String) throws(UsageError) -> OutputFormat {
        guard let format = OutputFormat(rawValue: text), allowed.contains(format) else {
            let names = allowed.map(\.rawValue)
            throw UsageError("--format expects \(names.dropLast().joined(separator: ", ")) or \(names.last!), not '\(text)'")
        }
        return format
    }
}

/// A byte count as people write it: `5000000`, `10M` / `10MiB` (binary, as
/// curl's `--max-filesize` reads `M`), `10MB` (decimal).
enum ByteCount {
    static let expected = "N, a whole number of bytes greater than 0 (K, M, G or KiB, MiB, GiB: binary; KB, MB, GB: decimal)"

    /// `--max-bytes`: a byte count no larger than the global read bound (SPEC 12):
    /// no download reads past 52,428,801 bytes, one more than this, to see a file is over.
    static func limit(_ text: String) throws(UsageError) -> Int {
        guard let bytes = parse(text) else { throw UsageError("--max-bytes expects \(expected), not '\(text)'") }
        guard bytes <= DeviceModel.largestLimitBytes else {
            throw UsageError(
                "--max-bytes expects at most \(DeviceModel.largestLimitBytes) bytes (iOS's largest attachment limit; "
                    + "no download reads past it), not '\(text)'")
        }
        return bytes
    }

    static func parse(_ text: String) -> Int? {
        let units: [(suffix: String, factor: Int)] = [
            ("KiB", 1 << 10), ("MiB", 1 << 20), ("GiB", 1 << 30), ("KB", 1000), ("MB", 1_000_000), ("GB", 1_000_000_000),
            ("K", 1 << 10), ("M", 1 << 20), ("G", 1 << 30),
        ]
        var number = Substring(text)
        var factor = 1
        if let unit = units.first(where: { text.hasSuffix($0.suffix) }) {
            number = number.dropLast(unit.suffix.count)
            factor = unit.factor
        }
        guard !number.isEmpty, number.allSatisfy(\.isASCII), number.allSatisfy(\.isNumber), let value = Int(number), value > 0 else {
            return nil
        }
        let (bytes, overflow) = value.multipliedReportingOverflow(by: factor)
        return overflow ? nil : bytes
    }
}

import Glibc
import NottiMedia

/// What the preview page's header states about its run, so a page found later
/// says how it was made: when, by which tool, under which profile, limits and options.
struct PreviewContext: Sendable {
    var made: String
    var tool: String
    var sdk: String
    var limits: String
    var options: String

    init(options: Options) {
        made = UTCTimestamp.now(forPeople: true)
        tool = "notti-media \(NottiMediaVersion.string) (\(NottiMediaVersion.libraries))"
        switch options.sdk {
        case .fixed(let chosen): sdk = chosen.displayName
        case .auto: sdk = "auto: each push under the SDK whose media key it carries"
        }
        let size = options.maxBytes.map { "at most \(ByteText.human($0)) (--max-bytes)" } ?? "the SDK's own size limits"
        let time = options.timeoutSeconds.map { "\(NumberText.decimal($0)) s (--timeout)" } ?? "the SDK's own deadline"
        limits = "\(size), \(time)"
        var set: [String] = []
        if options.strict { set.append("--strict") }
        if options.allowHTTP { set.append("--allow-http") }
        if options.denyPrivateNetworks { set.append("--deny-private-networks") }
        if let shard = options.shard { set.append("--shard \(shard.index)/\(shard.count)") }
        if let jobs = options.jobs { set.append("--jobs \(jobs)") }
        self.options = set.isEmpty ? "none" : set.joined(separator: " ")
    }
}

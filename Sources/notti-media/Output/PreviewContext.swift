import Glibc
import NottiMedia

/// What the preview page's header states about its run, so a page found later
/// says how it was made: when, by which tool, under which profile, limits and options.
struct PreviewContext: Sendable {
    var made: String
    var tool: String
    var sdk: String
    var options: String
    private let fetchOptions: FetchOptions
    private let selection: SDKSelection

    init(options: Options) {
        made = UTCTimestamp.now(forPeople: true)
        tool = "notti-media \(NottiMediaVersion.string) (\(NottiMediaVersion.libraries))"
        switch options.sdk {
        case .fixed(let chosen): sdk = chosen.displayName
        case .auto: sdk = "auto: each push under the SDK whose media key it carries"
        case .unspecified: sdk = "Notti (FCM send requests: auto)"
        }
        fetchOptions = Tool.fetchOptions(from: options)
        selection = options.sdk
        var set: [String] = []
        if options.strict { set.append("--strict") }
        if options.allowHTTP { set.append("--allow-http") }
        if options.denyPrivateNetworks { set.append("--deny-private-networks") }
        if let shard = options.shard { set.append("--shard \(shard.index)/\(shard.count)") }
        if let jobs = options.jobs { set.append("--jobs \(jobs)") }
        self.options = set.isEmpty ? "none" : set.joined(separator: " ")
    }

    /// The limits each profile ran under, as numbers (SPEC 11): the chosen
    /// profile's, or under `auto` each profile that occurs (`seen`) with its own.
    func limits(seen: [SDK], android: [SDK] = []) -> String {
        let profiles: [SDK] = switch selection {
        case .fixed(let sdk): [sdk]
        case .auto, .unspecified: seen.isEmpty && !android.isEmpty ? [] : seen.isEmpty ? [.notti] : seen
        }
        // Send requests' Android records, each under the Android rules that judged it.
        let androidProfiles: [(SDKProfile, String)] = android.map { sdk in
            (SDKProfile.of(sdk, on: .android) ?? .androidFCM, "\(sdk.displayName) on Android")
        }
        return (profiles.map { ($0.profile, $0.displayName) } + androidProfiles).map { profile, name in
            let policy = profile.policy(fetchOptions)
            let size: String = switch profile.sizeCap {
            case _ where fetchOptions.maxBytes != nil: "at most \(Self.bytes(policy.maxBytes)) (--max-bytes)"
            case .streamed: "at most \(Self.bytes(policy.maxBytes))"
            case .announced(let cap): "a Content-Length up to \(Self.bytes(cap))"
            case .none: "no cap of its own"
            }
            let time = "\(NumberText.decimal(policy.timeoutSeconds)) s\(fetchOptions.timeoutSeconds == nil ? "" : " (--timeout)")"
            return "\(name): \(size), \(time)"
        }.joined(separator: "; ") + "; iOS: audio 5 MiB, image 10 MiB, video 50 MiB per attachment"
    }

    /// `10 MiB` for a whole number of MiB, else the byte count.
    private static func bytes(_ count: Int) -> String {
        count % 1_048_576 == 0 ? "\(count / 1_048_576) MiB" : "\(count) bytes"
    }
}

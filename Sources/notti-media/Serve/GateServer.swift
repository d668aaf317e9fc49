import CServeShim
import Glibc
import NottiMedia
import Synchronization

/// The gate's HTTP side (SPEC 21) on libmicrohttpd (`CServeShim`): its polling threads
/// read requests and answer what needs no check at once (a fresh verdict, health,
/// metrics, a bad request); an ask that needs a check suspends its connection, so a
/// slow download holds no HTTP thread, and is resumed with the verdict. Every request
/// is one line on stderr: method, path without its query, status, milliseconds, and
/// whether a verdict came from the cache.
final class GateServer: Sendable {
    struct Settings: Sendable {
        var maxBody: Int
        /// `Authorization` values accepted (`Bearer …`, `Basic …`); empty: none asked.
        var credentials: [String]
        var queueLimit: Int
    }

    let settings: Settings
    let checks: GateChecks
    let metrics: GateMetrics
    private let draining = Atomic<Bool>(false)

    init(settings: Settings, checks: GateChecks, metrics: GateMetrics) {
        self.settings = settings
        self.checks = checks
        self.metrics = metrics
    }

    /// Health says so from now on (SIGTERM): a load balancer stops sending.
    func drain() { draining.store(true, ordering: .relaxed) }

    /// What one request's connection holds between libmicrohttpd's calls.
    /// `@unchecked Sendable`: the connection is libmicrohttpd's handle, used from other threads only to
    /// resume it (which libmicrohttpd allows from any thread); the body is touched on the connection's calls alone.
    final class Exchange: @unchecked Sendable {
        struct Waiting: Sendable {
            var answer: Answer?
            var suspended = false
        }

        let connection: OpaquePointer
        let method: String
        let path: String
        let started = MonotonicInstant.now
        /// Touched only on the connection's own calls, one at a time.
        var body: [UInt8] = []
        var tooLarge = false
        var dispatched = false
        let waiting = Guarded(Waiting())

        init(connection: OpaquePointer, method: String, path: String) {
            self.connection = connection
            self.method = method
            self.path = path
        }

        /// Hands the answer made elsewhere to the connection, resuming it if it waits.
        func deliver(_ answer: Answer) {
            waiting.withLock { waiting in
                waiting.answer = answer
                // Under the lock: the connection is suspended before anyone resumes it.
                if waiting.suspended { serve_resume(connection) }
            }
        }

        /// Suspends the connection unless its answer is already in: then that answer.
        func suspendUnlessAnswered() -> Answer? {
            waiting.withLock { waiting in
                if let answer = waiting.answer { return answer }
                waiting.suspended = true
                serve_suspend(connection)
                return nil
            }
        }

        func takeAnswer() -> Answer? {
            waiting.withLock { waiting in
                defer { waiting.answer = nil }
                return waiting.answer
            }
        }
    }

    struct Answer: Sendable {
        var status: Int
        var body: String
        var contentType = "application/json"
        var headers: [String] = []
        /// Whether a verdict came from the cache; nil for a request that asks for none.
        var cacheHit: Bool?

        static func json(_ status: Int, _ members: [JSONMember], headers: [String] = []) -> Answer {
            Answer(status: status, body: JSONWriter.string(.object(members)) + "\n", headers: headers)
        }

        static func error(_ status: Int, _ message: String, headers: [String] = []) -> Answer {
            json(status, [JSONMember("error", .string(message))], headers: headers)
        }
    }

    /// libmicrohttpd's call for a request (`serve_handler`).
    func handle(
        _ connection: OpaquePointer, url: UnsafePointer<CChar>, method: UnsafePointer<CChar>, upload: UnsafePointer<CChar>?,
        uploadSize: UnsafeMutablePointer<Int>, state: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> Int32 {
        guard let stored = state.pointee else {
            let exchange = Exchange(connection: connection, method: String(cString: method), path: String(cString: url))
            state.pointee = Unmanaged.passRetained(exchange).toOpaque()
            return 1
        }
        let exchange = Unmanaged<Exchange>.fromOpaque(stored).takeUnretainedValue()
        if uploadSize.pointee > 0 {
            if !exchange.tooLarge, let upload {
                if exchange.body.count + uploadSize.pointee > settings.maxBody {
                    exchange.tooLarge = true
                    exchange.body = []
                } else {
                    exchange.body.append(contentsOf: UnsafeRawBufferPointer(start: upload, count: uploadSize.pointee))
                }
            }
            uploadSize.pointee = 0
            return 1
        }
        if let answer = exchange.takeAnswer() { return respond(exchange, answer) }
        guard !exchange.dispatched else { return 1 }
        exchange.dispatched = true
        serve_received(connection)
        guard let answer = route(exchange) else {
            guard let early = exchange.suspendUnlessAnswered() else { return 1 }
            return respond(exchange, early)
        }
        return respond(exchange, answer)
    }

    /// The answer now, or nil when a check will give it (`deliver`).
    private func route(_ exchange: Exchange) -> Answer? {
        guard let method = Self.routes[exchange.path] else { return .error(404, "no such route: \(exchange.path)") }
        guard exchange.method == method || (method == "GET" && exchange.method == "HEAD") else {
            return .error(405, "\(exchange.path) takes \(method), not \(exchange.method)", headers: ["Allow: \(method)"])
        }
        if exchange.path == "/healthz" {
            return draining.load(ordering: .relaxed) ? .json(503, [JSONMember("status", .string("draining"))])
                : .json(200, [JSONMember("status", .string("serving"))])
        }
        guard authorized(exchange.connection) else {
            return .error(401, "this server needs its credentials (Authorization: Bearer, or Basic)", headers: ["WWW-Authenticate: Bearer, Basic realm=\"notti-media\""])
        }
        if exchange.tooLarge { return .error(413, "the body is over --max-body (\(settings.maxBody) bytes)") }
        switch exchange.path {
        case "/metrics": return Answer(status: 200, body: metrics.text, contentType: "text/plain; version=0.0.4")
        case "/v1/media": return media(exchange)
        case "/v1/check": return check(exchange)
        default: return warm(exchange)
        }
    }

    private func query(_ exchange: Exchange, _ key: String) -> String? {
        serve_value(exchange.connection, 1, key).map { String(cString: $0) }
    }

    /// The ask's SDK, platforms and send time from the query, or the 400 that says what is wrong.
    private func askParameters(_ exchange: Exchange) -> Result<(sdk: SDK, platforms: PlatformSelection, sendAt: Int?), GateError> {
        let sdkName = query(exchange, "sdk") ?? "notti"
        guard let sdk = SDK(rawValue: sdkName) else {
            return .failure(GateError("unknown sdk '\(sdkName)': expected \(SDK.allCases.map(\.rawValue).joined(separator: ", "))"))
        }
        let platformName = query(exchange, "platform") ?? "all"
        guard let platforms = PlatformSelection(rawValue: platformName) else {
            return .failure(GateError("unknown platform '\(platformName)': expected ios, android or all"))
        }
        var sendAt: Int?
        if let text = query(exchange, "send_at") {
            guard let seconds = RFC3339.seconds(text) else { return .failure(GateError("send_at '\(text)' is not an RFC 3339 time")) }
            sendAt = seconds
        }
        return .success((sdk, platforms, sendAt))
    }

    static func key(url: String, sdk: SDK, platforms: PlatformSelection, sendAt: Int?) -> String {
        "\(sdk.rawValue)|\(platforms.rawValue)|\(sendAt.map(String.init) ?? "")|\(url)"
    }

    private func media(_ exchange: Exchange) -> Answer? {
        guard let url = query(exchange, "url"), !url.isEmpty else { return .error(400, "url is missing: GET /v1/media?url=URL") }
        let parameters: (sdk: SDK, platforms: PlatformSelection, sendAt: Int?)
        switch askParameters(exchange) {
        case .success(let found): parameters = found
        case .failure(let error): return .error(400, error.message)
        }
        let key = Self.key(url: url, sdk: parameters.sdk, platforms: parameters.platforms, sendAt: parameters.sendAt)
        let lookup = checks.cache.lookup(key) { verdict, checkedAt in
            exchange.deliver(Self.answer(verdict, checkedAt: checkedAt, ageSeconds: 0, hit: false))
        }
        switch lookup {
        case .hit(let verdict, let checkedAt, let age):
            metrics.cache(hit: true)
            return Self.answer(verdict, checkedAt: checkedAt, ageSeconds: age, hit: true)
        case .joined:
            metrics.cache(hit: false)
            return nil
        case .start:
            metrics.cache(hit: false)
            checks.enqueue(GateChecks.Ask(key: key, url: url, sdk: parameters.sdk, platforms: parameters.platforms, sendAt: parameters.sendAt))
            return nil
        case .full:
            return overQueue
        }
    }

    /// A verdict as `GET /v1/media` answers it, with how long it may still be reused.
    static func answer(_ verdict: GateVerdict, checkedAt: Int, ageSeconds: Int, hit: Bool) -> Answer {
        let body = verdict.head + ",\"cache\":{\"hit\":\(hit),\"ageSeconds\":\(ageSeconds)},\"checkedAt\":\"\(CertificateFacts.timestamp(checkedAt))\"}\n"
        return Answer(status: 200, body: body, headers: ["Cache-Control: max-age=\(max(0, verdict.freshSeconds - ageSeconds))"], cacheHit: hit)
    }

    private func check(_ exchange: Exchange) -> Answer? {
        let selection: SDKSelection
        if let name = query(exchange, "sdk") {
            if name == "auto" {
                selection = .auto
            } else if let sdk = SDK(rawValue: name) {
                selection = .fixed(sdk)
            } else {
                return .error(400, "unknown sdk '\(name)': expected \(SDK.allCases.map(\.rawValue).joined(separator: ", ")) or auto")
            }
        } else {
            selection = .unspecified
        }
        guard exchange.body.contains(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }) else {
            return .error(400, "the body is empty: POST one payload or request, or JSON Lines of them")
        }
        guard checks.cache.running < settings.queueLimit else {
            return overQueue
        }
        checks.enqueue(GateChecks.Batch(body: exchange.body, selection: selection) { result in
            switch result {
            case .success(let text): exchange.deliver(Answer(status: 200, body: text, contentType: "application/x-ndjson"))
            case .failure(let error): exchange.deliver(.error(500, error.message))
            }
        })
        return nil
    }

    /// `POST /v1/warm`: each line a URL, or a payload or request whose media URLs are taken; each distinct URL's check
    /// queued under the query's SDK, platform and send time (those of the render-time asks it warms).
    private func warm(_ exchange: Exchange) -> Answer? {
        let parameters: (sdk: SDK, platforms: PlatformSelection, sendAt: Int?)
        switch askParameters(exchange) {
        case .success(let found): parameters = found
        case .failure(let error): return .error(400, error.message)
        }
        var urls: [String] = []
        var seen = Set<String>()
        for item in GateInput.split(exchange.body) {
            let text = String(decoding: item.bytes, as: UTF8.self).trimmingWhitespace()
            var found: [String] = []
            if text.hasPrefix("https://") || text.hasPrefix("http://") {
                found = [text]
            } else if let payload = try? Payload(json: item.bytes),
                      case .success(let request) = Result(catching: { () throws(PayloadError) -> SendRequest? in try SendRequest.parse(payload) }) {
                found = Deliveries(payload, request: request, source: item.source, selection: .auto, options: FetchOptions(), platforms: .all)
                    .fetches.map(\.string)
            } else if case .string(let url)? = try? JSONParser.parse(item.bytes) {
                found = [url]
            }
            for url in found where seen.insert(url).inserted { urls.append(url) }
        }
        var queued = 0
        for url in urls {
            let key = Self.key(url: url, sdk: parameters.sdk, platforms: parameters.platforms, sendAt: parameters.sendAt)
            guard checks.cache.startWarming(key) else { continue }
            queued += 1
            checks.enqueue(GateChecks.Ask(key: key, url: url, sdk: parameters.sdk, platforms: parameters.platforms, sendAt: parameters.sendAt))
        }
        return .json(200, [JSONMember("urls", .int(urls.count)), JSONMember("queued", .int(queued))])
    }

    /// Whether the request carries one of the accepted `Authorization` values, compared in constant time.
    private func authorized(_ connection: OpaquePointer) -> Bool {
        guard !settings.credentials.isEmpty else { return true }
        guard let given = serve_value(connection, 0, "Authorization").map({ Array(String(cString: $0).utf8) }) else { return false }
        var matched = false
        for accepted in settings.credentials where Self.constantTimeEqual(given, Array(accepted.utf8)) { matched = true }
        return matched
    }

    /// Equal bytes, in a time that depends on the lengths alone.
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference = UInt8(a.count == b.count ? 0 : 1)
        for index in 0..<max(a.count, b.count) {
            difference |= (index < a.count ? a[index] : 0) ^ (index < b.count ? b[index] : 0)
        }
        return difference == 0
    }

    private func respond(_ exchange: Exchange, _ answer: Answer) -> Int32 {
        let headers = answer.headers + [nil, nil]
        // A HEAD gets GET's headers, its Content-Length the body's: libmicrohttpd sends no body for HEAD.
        let body = answer.body
        let queued = body.withCString { pointer in
            serve_respond(exchange.connection, UInt32(answer.status), pointer, body.utf8.count, answer.contentType,
                          headers[0], headers[1])
        }
        let elapsed = (MonotonicInstant.now - exchange.started).components
        let seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
        metrics.request(route: Self.routeLabel(exchange.path), status: answer.status, seconds: seconds)
        let cache = answer.cacheHit.map { $0 ? "hit" : "miss" } ?? "-"
        Console.err("\(exchange.method) \(exchange.path) \(answer.status) \(Int((seconds * 1000).rounded())) ms \(cache)")
        return queued
    }

    /// A path as a metric label: the routes by name, anything else as one label (a client cannot grow the metrics).
    static func routeLabel(_ path: String) -> String {
        routes[path] == nil ? "other" : path
    }

    /// The routes and the method each takes.
    static let routes = ["/v1/media": "GET", "/v1/check": "POST", "/v1/warm": "POST", "/healthz": "GET", "/metrics": "GET"]

    /// 503: the queue is full; never a verdict the gate did not reach.
    private var overQueue: Answer {
        .error(503, "over the queue (--queue \(settings.queueLimit) checks waiting or running): ask again", headers: ["Retry-After: 1"])
    }
}

struct GateError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

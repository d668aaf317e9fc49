import CServeShim
import Glibc
import NottiMedia

/// `notti-media serve` (SPEC 21): the verdict over HTTP, asked by a push platform for
/// each recipient. It runs until SIGTERM (or SIGINT): then it stops accepting, lets
/// what is in flight finish, removes its private folder and exits 0 (130 for SIGINT).
/// SIGHUP reopens nothing (the server owns no log file): it is said and ignored.
struct ServeCommand {
    let options: Options

    func run() -> Int32 {
        var credentials: [String] = []
        do {
            if let path = options.tokenPath { credentials.append("Bearer " + (try Self.firstLine(of: path, option: "token"))) }
            if let path = options.basicAuthPath {
                let pair = try Self.firstLine(of: path, option: "basic-auth")
                guard pair.contains(":") else { throw LocalError("--basic-auth: the first line of \(path) is not user:password") }
                credentials.append("Basic " + Base64.encode(Array(pair.utf8)))
            }
        } catch let error as LocalError {
            Console.fail(error.message)
            return ExitCode.usage
        } catch {
            Console.fail("\(error)")
            return ExitCode.usage
        }
        // Attachments are judged, then removed, in a private folder; with --cache they are the cache's (a 304 after a
        // restart reuses the stored file, SPEC 14), kept beside it in notti-media-attachments.
        let folder: String
        let keepsFiles = options.cachePath != nil
        if let cachePath = options.cachePath {
            folder = FilePaths.parent(FilePaths.standardized(cachePath)) + "/notti-media-attachments"
            // Made, or a folder already (not a link to one elsewhere, nor a file): the gate writes nowhere else.
            var info = stat()
            guard mkdir(folder, 0o755) == 0 || (errno == EEXIST && lstat(folder, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR) else {
                Console.fail("--cache: cannot use \(folder) for the cache's files: \(errno == EEXIST ? "it is not a folder" : Errno(errno).message)")
                return ExitCode.localFailure
            }
        } else {
            let environment = ProcessFacts.environment()
            let parent = environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
            switch OwnedPaths.run.makeTemporaryFolder(in: parent, prefix: "notti-media-serve-") {
            case .success(let made): folder = made
            case .failure(let error):
                Console.fail("cannot create a temporary folder in \(parent): \(error.message) (set TMPDIR to a folder you can write)")
                return ExitCode.localFailure
            }
        }
        defer {
            // Each check removed the files it stored; what this run still tracks goes, then the folder if it is empty.
            if !keepsFiles {
                OwnedPaths.run.removeFiles(in: folder)
                OwnedPaths.run.removeFolder(folder)
            }
        }
        var loadError = [CChar](repeating: 0, count: 256)
        guard serve_load(&loadError, loadError.count) != 0 else {
            Console.fail("serve needs libmicrohttpd (libmicrohttpd12): \(Self.text(loadError))")
            return ExitCode.localFailure
        }
        let metrics = GateMetrics()
        let cache = VerdictCache(capacity: options.cacheEntries, queueLimit: options.queue)
        let checks = GateChecks(
            options: Tool.fetchOptions(from: options), workers: options.jobs ?? 8, folder: folder, keepsFiles: keepsFiles,
            revalidation: Tool.openCache(options), decoder: Tool.decoder(options), cache: cache, metrics: metrics)
        let server = GateServer(
            settings: GateServer.Settings(maxBody: options.maxBody, credentials: credentials, queueLimit: options.queue),
            checks: checks, metrics: metrics)
        let context = Unmanaged.passRetained(server)
        defer { context.release() }
        var startError = [CChar](repeating: 0, count: 256)
        let cores = max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        guard let daemon = serve_start(
            options.listen.host, options.listen.port, UInt32(cores), UInt32(options.clientTimeout), 4096,
            { context, connection, url, method, upload, uploadSize, state in
                Unmanaged<GateServer>.fromOpaque(context!).takeUnretainedValue()
                    .handle(connection!, url: url!, method: method!, upload: upload, uploadSize: uploadSize!, state: state!)
            },
            { _, state in Unmanaged<GateServer.Exchange>.fromOpaque(state!).release() },
            context.toOpaque(), &startError, startError.count)
        else {
            checks.finish()
            Console.fail("serve: \(Self.text(startError))")
            return ExitCode.localFailure
        }
        let listening = ServeAddress(host: options.listen.host, port: serve_port(daemon))
        Console.err("notti-media serve: listening on http://\(listening) (\(credentials.isEmpty ? "no credentials asked" : "credentials asked"))")
        var stopping: Int32 = 0
        while stopping == 0 {
            switch Signals.next() {
            case SIGTERM: stopping = SIGTERM
            case SIGINT: stopping = SIGINT
            case SIGHUP: Console.err("notti-media serve: SIGHUP: nothing to reopen (no log file of its own); serving on")
            default: break
            }
        }
        // Stop accepting; what is in flight finishes (each check within its own deadline), then the rest goes.
        server.drain()
        serve_quiesce(daemon)
        let deadline = MonotonicInstant.now + .seconds(Double(options.clientTimeout) + (options.timeoutSeconds ?? 30) + 5)
        while serve_connections(daemon) > 0 && MonotonicInstant.now < deadline { usleep(50_000) }
        serve_stop(daemon)
        checks.finish()
        Console.err("notti-media serve: stopped")
        return stopping == SIGTERM ? ExitCode.success : ExitCode.interrupted(by: stopping)
    }

    /// A credentials file's first line, without its line ending; empty is an error.
    static func firstLine(of path: String, option: String) throws(LocalError) -> String {
        // A regular file (through a link, as a mounted secret is): a FIFO would hold the start, a device is no credential.
        var info = stat()
        guard stat(path, &info) != 0 || info.st_mode & S_IFMT == S_IFREG else {
            throw LocalError("--\(option): \(path) is not a regular file")
        }
        guard let handle = fopen(path, "r") else {
            throw LocalError("--\(option): cannot read \(path): \(Errno(errno).message)")
        }
        defer { fclose(handle) }
        var line = [CChar](repeating: 0, count: 4096)
        guard fgets(&line, Int32(line.count), handle) != nil else { throw LocalError("--\(option): \(path) is empty") }
        var text = Self.text(line)
        while text.hasSuffix("\n") || text.hasSuffix("\r") { text.removeLast() }
        guard !text.isEmpty else { throw LocalError("--\(option): the first line of \(path) is empty") }
        return text
    }

    /// A C string in `buffer`, up to its NUL.
    static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// Base64 (RFC 4648) for HTTP Basic credentials.
enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    static func encode(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        var index = 0
        while index < bytes.count {
            let chunk = bytes[index..<min(index + 3, bytes.count)]
            let value = chunk.enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (16 - 8 * UInt32($1.offset)) }
            for position in 0..<4 {
                output.append(position <= chunk.count ? alphabet[Int((value >> (18 - 6 * UInt32(position))) & 63)] : UInt8(ascii: "="))
            }
            index += 3
        }
        return String(decoding: output, as: UTF8.self)
    }
}

import Glibc
import NottiMedia

/// The command line as a whole: parse, dispatch, turn errors into exit codes.
enum Tool {
    static func run(arguments: [String]) -> Int32 {
        let invocation: Invocation
        do {
            invocation = try Arguments.parse(arguments)
        } catch {
            return report(error)
        }
        switch invocation {
        case .version:
            Console.out("notti-media \(NottiMediaVersion.string) (\(NottiMediaVersion.libraries))")
            return finalStatus(ExitCode.success)
        case .help(let command):
            Console.out(HelpText.text(for: command))
            return finalStatus(ExitCode.success)
        case .generate(let kind):
            Console.out(Generated.text(kind))
            return finalStatus(ExitCode.success)
        case .run(let options):
            // Before any thread starts (threads inherit the blocked signals); --help and --version need none.
            // `serve` waits for its signals itself: SIGTERM drains it (SPEC 21).
            if options.command == .serve { Signals.block() } else { Signals.install() }
            raiseOpenFileLimit()
            if let missing = missingDecodeWorker(options) {
                Console.fail(missing)
                return finalStatus(ExitCode.usage)
            }
            let status: Int32
            switch options.command {
            case .process: status = ProcessCommand(options: options).run()
            case .check: status = CheckCommand(options: options).run()
            case .sniff: status = SniffCommand(options: options).run()
            case .merge: status = MergeCommand(options: options).run()
            case .fix: status = FixCommand(options: options).run()
            case .serve: status = ServeCommand(options: options).run()
            case .app: status = AppCommand(options: options).run()
            }
            // A decode that found the workers unusable (none can start, a stale worker, no filter) stopped the run.
            if Signals.receivedSignal == nil, let why = runDecoders.withLock({ $0.lazy.compactMap(\.reason).first }) {
                Console.fail(why)
                return finalStatus(ExitCode.localFailure)
            }
            return finalStatus(status)
        }
    }

    /// A run holds one descriptor per distinct content it downloaded and has not placed (a
    /// working file with no name, SPEC 9): as many as the system lets it, not the soft
    /// default of 1,024, so a campaign of many distinct failing files does not run out.
    private static func raiseOpenFileLimit() {
        var limit = rlimit()
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        guard getrlimit(resource, &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(resource, &limit)
    }

    /// Why the run cannot start without the decode worker, or nil: a check that decodes nothing
    /// would pass a broken picture or an `hev1` video (SPEC 17), so its absence is an error of the
    /// install, unless `--no-decode` says the user knows (`fix` draws its renditions with it).
    private static func missingDecodeWorker(_ options: Options) -> String? {
        guard options.command != .merge, options.command != .app, !options.noDecode, DecodeWorker.locate() == nil else { return nil }
        let fix = options.command == .fix
            ? "reinstall notti-media (fix draws its renditions with the worker)"
            : "reinstall notti-media, or pass --no-decode to check without decoding (media.decoded is null, no decoder finding)"
        return "the decode worker notti-media-decode is not installed beside notti-media (nor in ../lib/notti-media, "
            + "nor named by NOTTI_MEDIA_DECODER): files cannot be read as the phone reads them; \(fix)"
    }

    /// The run's decode workers: none under `--no-decode`; picture workers for each core, at most `--jobs`
    /// (the same verdicts whatever their number: each content is decoded once, by one of them). `process`
    /// reads one payload, one picture or a few: one worker, the one started while its media download. A pool
    /// would send the picture to the worker its content hashes to, half the time one not yet started, and
    /// its start (8 ms) would follow the download instead of overlapping it.
    static func decoder(_ options: Options) -> DecodeWorker {
        let pool = options.command == .process ? 1 : min(max(1, ProcessFacts.processorCount), options.jobs ?? Options.defaultJobs)
        let decoder = options.noDecode ? DecodeWorker(off: ()) : DecodeWorker(pictureWorkers: pool, cancellation: Signals.cancellation)
        runDecoders.withLock { $0.append(decoder.unusable) }
        return decoder
    }

    /// Whether the run's decode workers could be used, asked at its end (SPEC 17); the workers themselves go
    /// with their command (and are reaped then).
    private static let runDecoders = Guarded<[Unusable]>([])

    /// Says `error` in one line and returns its exit status (2 for anything unexpected).
    static func report(_ error: any Error) -> Int32 {
        if let error = error as? any CLIError {
            Console.fail(error.message)
            return error.exitCode
        }
        Console.fail("\(error)")
        return ExitCode.localFailure
    }

    /// The status the process exits with, once stdout is flushed (the process
    /// ends with `_exit`, which flushes nothing): a signal's 128 + N first (a
    /// closed pipe is SIGPIPE, 141, and says nothing), then a failed write of
    /// the output (2, with a line saying so), then the command's own verdict.
    static func finalStatus(_ status: Int32) -> Int32 {
        Console.flushOutput()
        if let signal = Signals.receivedSignal { return ExitCode.interrupted(by: signal) }
        if let failure = Console.outputFailure {
            Console.fail("cannot write the output (stdout): \(failure.message)")
            return ExitCode.localFailure
        }
        return status
    }

    /// `--cache FILE` opened; a file that cannot be used is a warning, and the run goes on without it.
    static func openCache(_ options: Options) -> RevalidationCache? {
        guard let path = options.cachePath else { return nil }
        do {
            return try RevalidationCache(path: path)
        } catch {
            Console.fail("warning: --cache: \(error.message); going on without the cache")
            return nil
        }
    }

    /// What the options set for every download, whichever SDK's rules apply.
    static func fetchOptions(from options: Options) -> FetchOptions {
        var fetch = FetchOptions(
            maxBytes: options.maxBytes, timeoutSeconds: options.timeoutSeconds, allowHTTP: options.allowHTTP,
            extraCAFile: options.caFile, connectTo: options.connectTo, denyPrivateNetworks: options.denyPrivateNetworks,
            network: options.network, decodes: !options.noDecode, sendAt: options.sendAt)
        fetch.deviceHeaders = options.deviceHeaders
        return fetch
    }
}

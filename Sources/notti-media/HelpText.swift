import NottiMedia

/// `--help`: kept next to the parser's option table so both stay true together.
enum HelpText {
    static func text(for command: Command?) -> String {
        switch command {
        case nil: overview
        case .process?: process
        case .check?: check
        case .sniff?: sniff
        }
    }

    static let overview = """
        notti-media \(NottiMediaVersion.string): what the Notti Notification Service Extension does
        with a push's media, on Linux, without a device.

        Usage:
          notti-media process PAYLOAD|- [options]   one payload: the delivered content as JSON
          notti-media check PATH... [options]       many payloads: a verdict each and a summary
          notti-media sniff FILE... [options]       the type decision for local files, no network
          notti-media --help | COMMAND --help
          notti-media --version

        The Notti SDK's path (the default): notti_image_url, https only, at most 10485760
        bytes within 20 s, libmagic sniffing against jpg/png/gif/mp4/mp3 (anything else
        attached as jpg). --sdk reproduces another SDK's extension instead: braze, fcm,
        onesignal, airship, clevertap, iterable, batch, or auto (by the payload's media key).

        Attachments are stored by SHA-256 in --out DIR, else in the private cache folder
        $XDG_CACHE_HOME/notti-media/attachments (else ~/.cache/notti-media/attachments).

        Exit status: 0 delivered / all passed, 1 a payload or file failed (check, sniff),
        2 bad usage, an unreadable or invalid payload, or a local failure (a folder that
        cannot be made, a failed write of the output or an attachment), 129 SIGHUP,
        130 SIGINT, 141 SIGPIPE or a closed output pipe, 143 SIGTERM.
        """

    /// The download options `process` and `check` share (each has its own parser entry).
    static let downloadOptions = """
          --sdk NAME             whose extension to reproduce: notti (default), braze, fcm,
                                 onesignal, airship, clevertap, iterable, batch, or auto (per
                                 payload, by the media key it carries)
          --allow-http           the app allows plain http (an App Transport Security
                                 exception); Notti refuses http whatever this says
          --timeout SECONDS      deadline for the whole transfer (default: the SDK's, 20 for
                                 notti and batch, else iOS's 30 s budget for an extension)
          --max-bytes N          size limit in decoded bytes (default: the SDK's, 10485760 for
                                 notti; else iOS's per-type limits, reading at most 50000000)
          --cacert FILE          also trust the CA certificates in FILE (PEM; at least one)
          --connect-to H:P:CH:CP connect to CH:CP whenever H:P is asked for (repeatable)
          --deny-private-networks  refuse loopback, private, link-local, CGNAT, multicast and
                                 unspecified addresses, on every connection (blocked_address)
        """

    static let process = """
        Usage: notti-media process PAYLOAD|- [options]

        Runs one APNs payload (a .json or .apns file, or - for standard input) through the
        extension's path and prints the content handed to iOS, shaped like
        UNNotificationContent, on stdout; findings go to stderr. Exit 0 whenever content is
        delivered, with media or unchanged; 2 for bad usage or an unreadable or invalid payload.

        Options:
          --report               print the full report (outcome, reason, media, diagnostics,
                                 content) instead of the content
          --format json|text     json (default): the content (or report) as JSON;
                                 text: one line saying what was delivered
          --strict               warnings fail too (the report's "passed")
          --out DIR              where attachments are stored, named by SHA-256 (default:
                                 $XDG_CACHE_HOME/notti-media/attachments, else
                                 ~/.cache/notti-media/attachments; mode 0700)
        \(downloadOptions)
          --quiet                print no findings on stderr
          -h, --help             this help
        """

    static let check = """
        Usage: notti-media check PATH... [options]

        Checks many payloads: payload files, folders (walked for *.json, *.apns, *.jsonl
        and *.ndjson, sorted, hidden entries skipped), .jsonl / .ndjson files (one payload
        a line, reported as file:line) and - for JSON Lines on standard input. Input and output stream in input order; each
        distinct media URL is downloaded once per run. A payload passes when no
        diagnostic is an error (--strict: no warning either). Exit 0 when all pass,
        1 when any fails, 2 for bad usage (a PATH that does not exist, no payload found)
        or a local failure.

        Options:
          --format text|json|junit  text (default): a line per failing payload and a summary;
                                 json: one report per line, then a {"summary": ...} record;
                                 junit: JUnit XML, a testcase per payload
          --summary-only         print only the summary (text or json)
          --html FILE            also write a preview page: every push drawn as the phone shows
                                 it, media in FILE-without-extension-media/ (works offline)
          --jobs N               concurrent downloads (default 8)
          --shard I/N            check only the payloads at positions I-1 modulo N
          --allow-empty          finding no payload passes (default: exit 2, it is a typo)
          --strict               fail on warnings too
          --out DIR              where attachments are stored, named by SHA-256 (default:
                                 $XDG_CACHE_HOME/notti-media/attachments, else
                                 ~/.cache/notti-media/attachments; mode 0700)
        \(downloadOptions)
          --quiet                no progress line on stderr
          -h, --help             this help
        """

    static let sniff = """
        Usage: notti-media sniff FILE... [options]

        The type decision for local files, with no network: the MIME type libmagic finds,
        the attachment type (jpg when none of the five fits), its size, and whether
        iOS's per-type attachment limit (audio 5 MB, image 10 MB, video 50 MB) allows it.
        Exit 0 when every file passes, 1 when one has an error (with --strict: a warning),
        2 for bad usage or a file that cannot be read.

        Options:
          --format text|json     text (default), or one JSON record per file per line
          --max-bytes N          the SDK's size limit to check against (default 10485760)
          --strict               fail on warnings too
          --quiet                print nothing; the exit status tells
          -h, --help             this help
        """
}

import Glibc
import NottiMedia

/// `--help`: each command's prose here, its options from `OptionTable`, so
/// the list cannot drift from what the parser accepts.
enum HelpText {
    static func text(for command: Command?) -> String {
        wrapped(unwrapped(for: command))
    }

    /// The help text before filling: its paragraphs as written (the man page's source).
    static func unwrapped(for command: Command?) -> String {
        switch command {
        case nil: overview
        case .process?: process + optionList(for: .process)
        case .check?: check + optionList(for: .check)
        case .sniff?: sniff + optionList(for: .sniff)
        case .merge?: merge + optionList(for: .merge)
        case .fix?: fix + optionList(for: .fix)
        case .serve?: serve + optionList(for: .serve)
        case .app?: app + optionList(for: .app)
        }
    }

    /// A line that heads what follows (`Usage:`, `Options:`): one word and a colon.
    /// (Any line ending in a colon was one, and a filled line that broke after
    /// "prints:" lost its sentence from the man page.)
    private static func isHeading(_ line: Substring) -> Bool {
        line.hasSuffix(":") && !line.contains(" ")
    }

    /// The widest line `--help` prints: a terminal's 80 columns.
    static let width = 80

    /// Prose re-flowed to `width`: each paragraph of unindented lines is joined and
    /// filled anew (a `Usage:` or `Options:` line stands alone); indented lines (the
    /// usage table, the option list, filled by `optionList`) are kept as they are.
    static func wrapped(_ text: String) -> String {
        var lines: [String] = []
        var paragraph: [Substring] = []
        func flush() {
            guard !paragraph.isEmpty else { return }
            lines += fill(paragraph.joined(separator: " "), width: width)
            paragraph = []
        }
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.isEmpty || line.hasPrefix(" ") || isHeading(line) {
                flush()
                lines.append(String(line))
            } else {
                paragraph.append(line)
            }
        }
        flush()
        return lines.joined(separator: "\n")
    }

    /// The prose paragraphs of a help text, each joined into one line: what is
    /// neither a `Usage:` line, an indented table nor the option list (the man page's text).
    static func prose(of text: String) -> [String] {
        var paragraphs: [String] = []
        var current: [Substring] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("Options:") { break }
            if line.isEmpty || line.hasPrefix(" ") || isHeading(line) || line.hasPrefix("Usage:") {
                if !current.isEmpty { paragraphs.append(current.joined(separator: " ")) }
                current = []
            } else {
                current.append(line)
            }
        }
        if !current.isEmpty { paragraphs.append(current.joined(separator: " ")) }
        return paragraphs
    }

    /// `text` in lines of at most `width` characters, broken at spaces.
    static func fill(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var current = ""
        for word in text.split(separator: " ") {
            if !current.isEmpty && current.count + 1 + word.count > width {
                lines.append(current)
                current = ""
            }
            current += current.isEmpty ? word : " " + word
        }
        if !current.isEmpty { lines.append(current) }
        return lines
    }

    static let overview = """
        notti-media \(NottiMediaVersion.string): what the Notti Notification Service Extension does
        with a push's media, on Linux, without a device.

        Usage:
          notti-media process PAYLOAD|- [options]  one payload: the content as JSON
          notti-media check PATH... [options]      many payloads: verdicts, a summary
          notti-media sniff FILE...|- [options]    local files' types, no network
          notti-media merge FILE... [options]      join check's shards' JSON outputs
          notti-media fix PATH... --into DIR       write media that passes everywhere
          notti-media serve [options]              the verdict over HTTP, per recipient
          notti-media app PATH... [options]        the app as built: its push extension
          notti-media --help | COMMAND --help
          notti-media --version

        The Notti SDK's path (the default): notti_image_url, https only, at most 10485760
        bytes within 20 s, libmagic sniffing against jpg/png/gif/mp4/mp3 (anything else
        attached as jpg). --sdk reproduces another SDK's extension instead: braze, fcm,
        onesignal, airship, clevertap, iterable, batch, expo, or auto (by the payload's media
        key). The send requests of FCM, OneSignal, Airship, Braze and Expo are read too: one
        record per platform they target, each judged as that platform's phone would see it.

        Attachments are stored by SHA-256 in --out DIR, else in the private cache folder
        $XDG_CACHE_HOME/notti-media/attachments (else ~/.cache/notti-media/attachments).

        Exit status: 0 delivered / all passed, 1 a payload or file failed (check, sniff),
        2 bad usage, an unreadable or invalid payload, or a local failure (a folder that
        cannot be made, a failed write of the output or an attachment), 129 SIGHUP,
        130 SIGINT, 141 SIGPIPE or a closed output pipe, 143 SIGTERM.
        """

    /// The options `command` takes, from `OptionTable`: the synopsis in a
    /// 25-column gutter, the help lines beside it.
    static func optionList(for command: Command) -> String {
        var lines: [String] = []
        for spec in OptionTable.options(for: command) {
            let synopsis = "  " + spec.synopsis
            // The spec's help filled anew in the help column, so no line passes `width`.
            for (index, help) in fill(spec.help.joined(separator: " "), width: width - 25).enumerated() {
                let gutter = index == 0 ? synopsis : ""
                if index == 0 && gutter.count >= 25 {
                    lines.append(gutter)
                    lines.append(String(repeating: " ", count: 25) + help)
                } else {
                    lines.append(gutter.padding(25) + help)
                }
            }
        }
        lines.append("  -h, --help".padding(25) + "this help")
        return lines.joined(separator: "\n")
    }

    static let process = """
        Usage: notti-media process PAYLOAD|- [options]

        Runs one payload (a .json or .apns file, or - for standard input) through the
        extension's path and prints, on stdout, the content handed to iOS, shaped like
        UNNotificationContent; findings go to stderr. An FCM send request ({"message": ...})
        reaches both platforms: it prints one object keyed by platform, {"ios": ..., "android": ...},
        what each phone shows (--platform picks one). Exit 0 whenever the payload was checked,
        its content delivered with media or unchanged (or rejected by APNs, outcome rejected);
        2 for bad usage or an unreadable or invalid payload.

        Options:

        """

    static let check = """
        Usage: notti-media check PATH... [options]

        Checks many payloads: payload files (a file of one JSON array holds a payload per
        element), folders (walked for *.json, *.apns, *.jsonl, *.ndjson, *.json.gz,
        *.jsonl.gz and *.ndjson.gz, sorted, hidden entries skipped), .jsonl / .ndjson files
        (one payload a line, reported as file:line; .gz ones read through zlib as they
        stream) and - for JSON Lines on standard input. Input and output stream in input order; each
        distinct media URL is downloaded once per run. A payload passes when no
        diagnostic is an error (--strict: no warning either). Exit 0 when all pass,
        1 when any fails, 2 for bad usage (a PATH that does not exist, no payload found)
        or a local failure.

        Options:

        """

    static let sniff = """
        Usage: notti-media sniff FILE...|- [options]

        The type decision for local files (- reads one file from standard input, as file - does,
        to one byte past 52428800), with no network: the MIME type libmagic finds,
        the attachment type (jpg when none of the five fits), its size, iOS's verdict on
        its per-type attachment limit (audio 5 MB, image 10 MB, video 50 MB), and what the
        phone's decoder makes of a picture, video or sound (its size, codecs, whether it
        decodes whole; not for input cut at that bound): the verdicts process and check
        give the same bytes.
        Exit 0 when every file passes, 1 when one has an error (with --strict: a warning),
        2 for bad usage or a file that cannot be read.

        Options:

        """

    static let fix = """
        Usage: notti-media fix PATH... --into DIR [options]

        Checks payloads as check does (the same PATHs and options), then, for each distinct
        media URL with a finding a new file can cure, writes into DIR one rendition that passes
        every record naming the URL, on every profile and platform in play: a picture too large,
        in a format a record cannot show, turned by EXIF, too large to decode on Android, or too
        slow on 3g becomes a baseline JPEG (PNG where it has transparency), sRGB, upright, at most
        --max-side pixels and --target-bytes long; HEVC stored as hev1 is re-muxed as hvc1, another
        video re-encoded as H.264 and AAC; a sound over a cap becomes an MP3 within 5,000,000 bytes. Each rendition is decoded and judged under
        every record before it is named <sha256>.<ext>. DIR/fixes.jsonl has one line per URL
        that had findings: what was cured and how, or notFixed with the finding only the origin
        can mend (a 404, a timeout, a cut file). --base-url adds each file's newUrl; --rewrite
        writes the payloads again with those URLs. Payload findings (mutable_content_missing,
        no_alert, payload_too_large) and what was not cured are printed as check prints them.
        Exit 0 when every media finding was cured, 1 when some were not, 2 for bad usage or a
        local failure.

        Options:

        """

    static let merge = """
        Usage: notti-media merge FILE... [options]

        Joins the outputs of `check --format json --shard I/N` for every I of one input (one
        FILE per shard, in any order) into exactly what one unsharded check prints: records
        in input order, one summary, in any format. It streams: memory stays flat. A missing,
        repeated or foreign shard (another input's) is an error naming it. Exit 0 when all
        payloads passed, 1 when any failed, 2 for bad usage or shards that do not fit.

        Options:

        """

    static let app = """
        Usage: notti-media app PATH... [options]

        What the team's own build does with its pushes, read from the build itself,
        never unpacked to disk: an .ipa, an .xcarchive or .app folder (Android's .apk and
        .aab are not read by this version: exit 2, saying so). Prints the
        app's bundle id, version, minimum iOS and aps-environment (its provisioning
        profile's), and each extension under PlugIns/: its point, principal class, minimum
        iOS, executable, the push SDK it links (by the frameworks its Mach-O load commands
        name) and that SDK's version, its own App Transport Security keys and a content
        extension's categories. Findings: no_service_extension, extension_not_runnable,
        extension_above_app, extension_without_sdk, no_push_entitlement.
        Exit 0 when no build has an error, 1 when one has, 2 for bad usage or a file that
        is no build (a damaged archive, an entry named outside it).

        Options:

        """

    static let serve = """
        Usage: notti-media serve [options]

        An HTTP server (libmicrohttpd) a push platform asks while it renders each recipient's
        message: GET /v1/media?url=URL&sdk=NAME&platform=ios|android|all[&send_at=TIME] answers
        the verdict of that URL as that SDK's records give it (always 200 once a verdict is
        reached: {"verdict": "pass"|"warn"|"fail", "ios", "android", "media", "cache",
        "checkedAt"}, with Cache-Control: max-age the time it may still be reused); POST
        /v1/check takes what check reads and answers its JSON records and summary; POST
        /v1/warm takes JSON Lines of payloads or URLs and queues their checks; GET /healthz;
        GET /metrics (Prometheus text). 400 for a bad request, 401 without the credentials,
        413 for a body over --max-body, 503 past --queue. One verdict cache for every client;
        concurrent asks for one URL wait for its one check. Each request is a line on stderr.
        SIGTERM stops accepting, finishes what is in flight and exits 0.

        Options:

        """
}

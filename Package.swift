// swift-tools-version:6.0
import PackageDescription

/// This checkout's folder: linker flags need absolute paths.
let packageRoot = String(#filePath.prefix(upTo: #filePath.lastIndex(of: "/")!))

/// The executable's release code gets one section per function, so the link can
/// lay out the functions a run uses side by side (link/symbol-order.txt), and is
/// optimized across modules, so the CLI's check pipeline is specialized for its
/// output formats rather than run generically.
///
/// Unsafe flags live on the executable target only: SwiftPM refuses a
/// dependency whose targets carry any, and the library must build as one
/// (docs/library.md). The library's own code is specialized by the compiler's
/// default cross-module optimization.
let leanCode: [SwiftSetting] = [
    .unsafeFlags(["-Xfrontend", "-function-sections", "-cross-module-optimization"], .when(configuration: .release)),
]

/// How the build users get (`swift build -c release`) links, so it starts as
/// fast as `curl --version` and stays small in memory (docs/lean-binary.md):
/// the Swift runtime and the C++ runtime it needs are linked in rather than
/// loaded (link/libstdc++.so points the linker at the static archive); lld packs
/// the relative relocations (DT_RELR, fewer pages to read at start-up) and lays
/// out the functions in link/symbol-order.txt first, side by side, since the
/// kernel maps code 64 KB at a time. Debug builds (tests, sanitizers) stay dynamic.
let leanRelease: [LinkerSetting] = [
    .unsafeFlags([
        "-static-stdlib", "-use-ld=lld", "-L\(packageRoot)/link",
        "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
        "-Xlinker", "--symbol-ordering-file=\(packageRoot)/link/symbol-order.txt",
        // A list from an older build may name functions that are gone: harmless.
        "-Xlinker", "--no-warn-symbol-ordering",
    ], .when(configuration: .release)),
]

/// Debian's folder for this machine's libraries (glib's configuration header is there).
#if arch(arm64)
let multiarch = "aarch64-linux-gnu"
#else
let multiarch = "x86_64-linux-gnu"
#endif

let package = Package(
    name: "notti-media",
    products: [
        .library(name: "NottiMedia", targets: ["NottiMedia"]),
        .executable(name: "notti-media", targets: ["notti-media"]),
        .executable(name: "notti-media-decode", targets: ["notti-media-decode"]),
    ],
    targets: [
        // libcurl, the transfer engine the download path runs on.
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        // Typed wrappers for libcurl's variadic calls, which Swift cannot make, and
        // the TLS handshake's state through OpenSSL's libssl (already loaded by libcurl).
        .target(name: "CCurlShim", dependencies: ["CCurl"], linkerSettings: [.linkedLibrary("ssl")]),
        // libmagic, the same content sniffing the SDK's type decision relies on.
        .systemLibrary(
            name: "CMagic",
            pkgConfig: "libmagic",
            providers: [.apt(["libmagic-dev"])]
        ),
        // OpenSSL's libcrypto (already loaded by libcurl for TLS): SHA-256 for
        // content-addressed attachment names, hashed while the body streams.
        .systemLibrary(
            name: "CCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        // SQLite, for --cache: media verdicts and their validators, shared by runs and processes.
        // Linked as any library (the package's Depends names it): loading it costs start-up
        // about 0.2 ms, which the start-up target (within curl --version) has room for.
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // The decode worker, a C program: notti-media starts it on the first file it decodes and
        // feeds it over a socket, so the decoders' hundred libraries never load into the tool.
        // libvips (pictures) comes in by its include folders rather than pkg-config, whose
        // `-pthread` SwiftPM refuses with a warning on every build; FFmpeg (video and audio) is
        // opened by the worker on its first stream (its headers are in the default search path).
        // The decoder's door (SPEC 17): the protocol the tool, the decode worker and its sandboxed children speak,
        // declared once (include/door.h) and read by both sides, with the check every child's answer passes.
        .target(name: "CDecodeDoor"),
        .executableTarget(
            name: "notti-media-decode",
            dependencies: ["CDecodeDoor"],
            cSettings: [
                .unsafeFlags(["-I/usr/include/glib-2.0", "-I/usr/lib/\(multiarch)/glib-2.0/include", "-pthread"]),
                // The sandbox's test hook (sandbox.h): read by debug builds (the tests') only.
                .define("NOTTI_DECODE_TEST_HOOKS", .when(configuration: .debug)),
            ],
            linkerSettings: [
                // libvips and FFmpeg are opened when first needed (libvips.h, ffmpeg.h), not linked; the
                // phones' own format libraries are linked (formats.h): together they load in under a millisecond.
                .linkedLibrary("m"), .linkedLibrary("turbojpeg"), .linkedLibrary("png16"), .linkedLibrary("gif"),
                .linkedLibrary("webp"), .linkedLibrary("webpdemux"),
                // libseccomp: the decoding child's filter (sandbox.h).
                .linkedLibrary("seccomp"),
                // SwiftPM links every executable with swiftc, which adds the Swift runtime the C worker never
                // calls. Static (no toolchain path, which lintian refuses) and without swiftc's start-up object
                // (-nostartfiles), nothing pulls the runtime in, and link/ makes the C++ runtime it would need
                // the static archive, never loaded: the worker links its format libraries and libc alone.
                // Started 2.3 ms -> 1.5 ms (perf stat -r 300 of `notti-media-decode --kind pictures 3</dev/null`),
                // a 9.2 MB -> 0.43 MB binary: the runtime's initialisers and libstdc++'s relocation had run in
                // every worker, beside the transfer it starts during, on a 2-core machine.
                .unsafeFlags(["-static-stdlib", "-nostartfiles", "-use-ld=lld", "-L\(packageRoot)/link", "-Xlinker", "--gc-sections"],
                             .when(configuration: .release)),
            ]
        ),
        // zlib (already loaded by libcurl, for Content-Encoding): campaign exports read as
        // .jsonl.gz / .json.gz, decompressed as they stream.
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        // The Linux calls Swift cannot make (their macros are not imported): passing a descriptor to the
        // decode worker (SCM_RIGHTS's CMSG macros), keeping a helper thread off a core (cpu_set_t's).
        .target(name: "CSystemShim"),
        // libmicrohttpd for `serve` (SPEC 21), opened when serve starts (dlopen): the other commands never
        // load it and the TLS library it brings. Its header comes from libmicrohttpd-dev (scripts/setup).
        .target(name: "CServeShim", linkerSettings: [.linkedLibrary("dl")]),
        // The app as built (SPEC 22): Debian's libplist reads property lists (XML and binary), libzip the
        // .ipa, .apk and .aab archives in place, both opened by CBuildShim when `app` first needs them (no
        // other command loads them); CAppFormats the formats no Debian library reads (Mach-O's load
        // commands), each one small bounded file, fuzzed.
        .target(name: "CBuildShim", linkerSettings: [.linkedLibrary("dl")]),
        .target(name: "CAppFormats"),
        .target(
            name: "NottiMedia",
            dependencies: ["CCurl", "CCurlShim", "CMagic", "CCrypto", "CSQLite", "CSystemShim", "CDecodeDoor", "CBuildShim", "CAppFormats"]
        ),
        .executableTarget(
            name: "notti-media",
            dependencies: ["NottiMedia", "CZlib", "CServeShim"],
            swiftSettings: leanCode,
            linkerSettings: leanRelease
        ),
        .testTarget(
            name: "NottiMediaTests",
            dependencies: ["NottiMedia", "notti-media", "notti-media-decode"]
        ),
    ],
    swiftLanguageModes: [.v6]
)

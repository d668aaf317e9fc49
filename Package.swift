// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "notti-media",
    products: [
        .library(name: "NottiMedia", targets: ["NottiMedia"]),
        .executable(name: "notti-media", targets: ["notti-media"]),
    ],
    targets: [
        // libcurl, the transfer engine the download path runs on.
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        // Typed wrappers for libcurl's variadic calls, which Swift cannot make.
        .target(name: "CCurlShim", dependencies: ["CCurl"]),
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
        // Its header from libsqlite3-dev; the library itself is loaded on first use (see CSQLite.h).
        .target(name: "CSQLite"),
        .target(
            name: "NottiMedia",
            dependencies: ["CCurl", "CCurlShim", "CMagic", "CCrypto", "CSQLite"]
        ),
        .executableTarget(
            name: "notti-media",
            dependencies: ["NottiMedia"],
            // The build users get (`swift build -c release`) links the Swift runtime in:
            // it starts as fast as curl instead of loading a dozen shared libraries.
            // Debug builds (the tests, the sanitizers) stay dynamic.
            linkerSettings: [
                .unsafeFlags(["-static-stdlib"], .when(configuration: .release)),
            ]
        ),
        .testTarget(
            name: "NottiMediaTests",
            dependencies: ["NottiMedia", "notti-media"]
        ),
    ],
    swiftLanguageModes: [.v6]
)

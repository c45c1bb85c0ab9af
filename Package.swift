// swift-tools-version:6.1
import PackageDescription

// C libraries come from Debian's -dev packages (installed by scripts/install-deps.sh).
// libjpeg and libpng report fatal errors with longjmp, which Swift cannot catch, so their
// shims are small C targets that wrap each call in setjmp; the others are plain
// system-library module maps.
let package = Package(
    name: "swift-web-image",
    products: [
        .library(name: "WebImage", targets: ["WebImage"]),
        .library(name: "WebImageServer", targets: ["WebImageServer"]),
        .executable(name: "webimage", targets: ["webimage"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.0.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.20.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.12.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.4.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.60.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.25.0"),
        // `webimage serve` (the WebImageServer target) only: the HTTP server, graceful
        // shutdown on SIGTERM, and the Prometheus exposition of its metrics.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.0.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.0.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
        // Hummingbird's own dependency, named for its HTTP parts (NIOHTTPTypes), which the
        // server's cache-hit handler reads and writes in the connection's pipeline.
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.20.0"),
        // `make docs` only: the `generate-documentation` command; adds nothing to a build.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
    ],
    targets: [
        .target(name: "CJPEG", linkerSettings: [.linkedLibrary("jpeg")]),
        // zlib (libpng's own dependency, zlib1g-dev comes with libpng-dev) inflates zTXt text chunks.
        .target(name: "CPNG", linkerSettings: [.linkedLibrary("png16"), .linkedLibrary("z")]),
        .systemLibrary(name: "CGIF", path: "Sources/CGIF"),
        .systemLibrary(name: "CWebP", path: "Sources/CWebP"),
        .systemLibrary(name: "CAVIF", path: "Sources/CAVIF"),
        .systemLibrary(name: "CHEIF", path: "Sources/CHEIF"),
        .systemLibrary(name: "CTIFF", path: "Sources/CTIFF"),
        // Little CMS 2: ICC profiles and the conversion of every decoded image to sRGB.
        .systemLibrary(name: "CLCMS", path: "Sources/CLCMS"),
        // SVG (librsvg) and PDF (poppler-glib): opened with dlopen on first use, not linked,
        // so a process that never decodes one never loads them (Sources/CVector/include/cvector.h).
        .target(name: "CVector"),
        // The CMYK profile for CMYK images that carry none ("Coated FOGRA39"), compiled in
        // with #embed (scripts/make-cmyk-profile.sh made it; the .icc is not a source).
        .target(name: "CColorProfiles", exclude: ["fogra39.icc"]),
        // JPEG XL (libjxl 0.7 in Debian 12).
        .systemLibrary(name: "CJXL", path: "Sources/CJXL"),
        .target(
            name: "WebImage",
            dependencies: [
                "CJPEG", "CPNG", "CGIF", "CWebP", "CAVIF", "CHEIF", "CTIFF", "CLCMS", "CColorProfiles", "CVector", "CJXL",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        .target(
            name: "WebImageServer",
            dependencies: [
                "WebImage",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .executableTarget(
            name: "webimage",
            dependencies: [
                "WebImage",
                "WebImageServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .executableTarget(
            name: "webimage-bench",
            dependencies: ["WebImage"],
            path: "Benchmarks/Sources/webimage-bench"
        ),
        .executableTarget(
            name: "anim-bench",
            dependencies: ["WebImage"],
            path: "Benchmarks/Sources/anim-bench"
        ),
        .executableTarget(
            name: "cache-bench",
            dependencies: ["WebImage"],
            path: "Benchmarks/Sources/cache-bench"
        ),
        .executableTarget(
            name: "download-bench",
            dependencies: [
                "WebImage",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Benchmarks/Sources/download-bench"
        ),
        .executableTarget(
            name: "manager-bench",
            dependencies: ["WebImage"],
            path: "Benchmarks/Sources/manager-bench"
        ),
        .executableTarget(
            name: "transform-bench",
            dependencies: ["WebImage"],
            path: "Benchmarks/Sources/transform-bench"
        ),
        .testTarget(
            name: "WebImageTests",
            dependencies: [
                "WebImage",
                "WebImageServer",
                "CLCMS",   // Little CMS's own transform, the reference ColorTransform is held to
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),  // handlers alone, in a channel of their own
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            resources: [.copy("Fixtures")]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// libFuzzer targets (Fuzz/README.md): only in the package when WEBIMAGE_FUZZ=1, which
// Fuzz/run.sh (`make fuzz`, `make fuzz-smoke`) sets, so the normal build, `make test` and
// packages that depend on this one never compile or resolve them. They live in this
// package rather than in a separate one under Fuzz/ because they call `package` symbols
// (the data: URL payload parser, the XMP and HEIF property readers, the server's signature
// split), which only code of the same package can see.
//
// Each is an executable without a `main`: libFuzzer's runtime, linked by
// `--sanitize=fuzzer`, supplies it and calls the exported `LLVMFuzzerTestOneInput`, hence
// `-parse-as-library` (unsafe flags are allowed because this is the root package). The
// package's other executables and its tests are left out of that build: every executable
// of a `--sanitize=fuzzer` build is linked with libFuzzer, whose `main` would clash with
// theirs. The command line's sources are kept, as a library (below).
let fuzzTargetNames = [
    "decode", "thumbnail", "scaledown", "progressive", "animated", "metadata",
    "cookie", "transform", "dataurl", "server-path", "server-process",
]
if Context.environment["WEBIMAGE_FUZZ"] == "1" {
    // The command line's sources stay, compiled as a library that nothing links: the fuzz
    // build is then also a release build of everything `make demo` builds, its warnings
    // checked, and CI needs no release build of its own (11 minutes on two cores). Its
    // `@main` entry point gets another name (`webimage_main`), so no object of this build
    // defines a `main` beside libFuzzer's.
    let commandLine = package.targets.first { $0.name == "webimage" }
    package.products.removeAll { $0.name == "webimage" }
    package.targets.removeAll { $0.type == .executable || $0.type == .test }
    if let commandLine {
        package.targets.append(
            .target(
                name: commandLine.name,
                dependencies: commandLine.dependencies,
                swiftSettings: [.unsafeFlags(["-Xfrontend", "-entry-point-function-name", "-Xfrontend", "\(commandLine.name)_main"])]
            )
        )
    }
    package.targets.append(
        .target(
            name: "FuzzSupport",
            dependencies: ["WebImage"],
            path: "Fuzz/Sources/FuzzSupport"
        )
    )
    for name in fuzzTargetNames {
        var dependencies: [Target.Dependency] = ["FuzzSupport", "WebImage"]
        if name.hasPrefix("server") { dependencies.append("WebImageServer") }
        package.targets.append(
            .executableTarget(
                name: "fuzz-\(name)",
                dependencies: dependencies,
                path: "Fuzz/Sources/\(name)",
                swiftSettings: [.unsafeFlags(["-parse-as-library"])]
            )
        )
    }
}

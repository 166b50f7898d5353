// swift-tools-version:6.2
import PackageDescription

/// Settings shared by every Swift target: Swift 6 language mode with strict concurrency,
/// explicit `any` for existentials and imports that are visible only where they are written.
let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "webcache",
    products: [
        // The façade and the modules its public API speaks in (headers, token providers, the store).
        .library(
            name: "WebCache",
            targets: [
                "WebCache", "HTTPCore", "HTTPCaching", "CacheStore", "Transport", "Discovery", "Sessions", "Rendering",
                "WebCacheURLSession",
            ]
        ),
        .executable(name: "webcache", targets: ["webcache"]),
        .executable(name: "webcache-origin", targets: ["webcache-origin"]),
    ],
    targets: [
        // MARK: - C libraries from Debian
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CPSL", pkgConfig: "libpsl", providers: [.apt(["libpsl-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CDeflate", pkgConfig: "libdeflate", providers: [.apt(["libdeflate-dev"])]),
        // The memory allocator of the executables a user runs (and of the benchmarks that measure
        // them), imported by their main files only: its malloc and free take the place of glibc's for
        // every library in the process. A preload allocates and frees about 130 blocks a URL across
        // threads; with mimalloc the cold run of tiny URLs takes 7 % fewer instructions and the HTML
        // scanner 10 % (docs/design.md). The libraries link nothing of it: an app keeps its own.
        .systemLibrary(name: "CMimalloc", providers: [.apt(["libmimalloc-dev"])]),

        // MARK: - C libraries from Debian, loaded when first needed
        // Their functions are reached through tables bound with dlopen, so that a run that does not
        // need them never loads them and the libraries they bring (docs/design.md): libcurl when the
        // first request is sent (Debian libcurl4, headers from libcurl4-openssl-dev), libmicrohttpd
        // when a gateway starts (libmicrohttpd12, headers from libmicrohttpd-dev), libcrypto when
        // the first digest is made (libssl3, headers from libssl-dev).
        .target(name: "CCurl", dependencies: ["CLibraryLoader"]),
        .target(name: "CMicroHTTPD", dependencies: ["CLibraryLoader"]),
        .target(name: "CCrypto", dependencies: ["CLibraryLoader"]),
        // What the three share: opening a library, binding its functions, saying what is missing.
        .target(name: "CLibraryLoader"),

        // MARK: - Pure logic
        .target(name: "HTTPCore", dependencies: ["CCrypto"], swiftSettings: swiftSettings),
        .target(name: "ChildProcess", dependencies: ["HTTPCore"], swiftSettings: swiftSettings),
        .target(name: "HTTPCaching", dependencies: ["HTTPCore"], swiftSettings: swiftSettings),
        .target(name: "Discovery", dependencies: ["HTTPCore"], swiftSettings: swiftSettings),

        // MARK: - I/O
        .target(name: "CacheStore", dependencies: ["CSQLite", "CDeflate", "HTTPCore"], swiftSettings: swiftSettings),
        .target(name: "Transport", dependencies: ["CCurl", "HTTPCore"], swiftSettings: swiftSettings),
        .target(name: "LocalOrigin", dependencies: ["HTTPCore", "HTTPCaching"], swiftSettings: swiftSettings),
        .target(name: "Sessions", dependencies: ["HTTPCore", "CPSL", "ChildProcess"], swiftSettings: swiftSettings),
        .target(name: "Rendering", dependencies: ["HTTPCore", "ChildProcess"], swiftSettings: swiftSettings),
        // WARC, HAR and zip (WACZ) readers and writers over bytes, independent of the store.
        .target(name: "Archive", dependencies: ["HTTPCore", "CZlib", "CCrypto"], swiftSettings: swiftSettings),

        // MARK: - Public façade and CLI
        .target(
            name: "WebCache",
            dependencies: [
                "HTTPCore", "HTTPCaching", "CacheStore", "Transport", "Discovery", "Sessions", "Rendering", "Archive",
                "CZlib",
            ],
            swiftSettings: swiftSettings
        ),
        // URLSession adapters (FoundationNetworking): a transport over URLSession and a URLProtocol that
        // reads through a WebCache. Apps link them; the executable does not, so that it loads
        // FoundationEssentials only.
        .target(
            name: "WebCacheURLSession", dependencies: ["WebCache", "Transport", "HTTPCore"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "Gateway", dependencies: ["WebCache", "CacheStore", "HTTPCaching", "HTTPCore", "CMicroHTTPD"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "WebCacheCLI",
            dependencies: [
                "WebCache", "HTTPCore", "HTTPCaching", "CacheStore", "Transport", "Sessions", "Gateway", "Discovery",
                "Archive",
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "webcache",
            dependencies: ["WebCacheCLI", .target(name: "CMimalloc", condition: .when(platforms: [.linux]))],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "webcache-origin", dependencies: ["LocalOrigin", "HTTPCore"], swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "webcache-bench",
            dependencies: [
                "CacheStore", "CSQLite", "CDeflate", "Discovery", "WebCache", "LocalOrigin",
                .target(name: "CMimalloc", condition: .when(platforms: [.linux])),
            ],
            swiftSettings: swiftSettings
        ),
        // Benchmark driver for scripts/bench-render.sh; not a product.
        .executableTarget(
            name: "webcache-render-bench", dependencies: ["Rendering", "LocalOrigin", "ChildProcess", "HTTPCore"],
            swiftSettings: swiftSettings
        ),
        // Benchmark driver for scripts/bench-transport.sh; not a product.
        .executableTarget(
            name: "webcache-transport-bench", dependencies: ["Transport", "HTTPCore", "WebCacheURLSession"],
            swiftSettings: swiftSettings
        ),

        // MARK: - Tests
        // Helpers the test targets share: temporary folders, the built executables, raw sockets.
        .target(
            name: "WebCacheTestSupport",
            dependencies: ["ChildProcess", "HTTPCore", "LocalOrigin"],
            path: "Tests/Support",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HTTPCoreTests", dependencies: ["HTTPCore", "WebCacheTestSupport"], swiftSettings: swiftSettings
        ),
        .testTarget(name: "ChildProcessTests", dependencies: ["ChildProcess"], swiftSettings: swiftSettings),
        .testTarget(
            name: "HTTPCachingTests", dependencies: ["HTTPCaching", "WebCacheTestSupport"], swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "DiscoveryTests",
            dependencies: ["Discovery", "WebCacheTestSupport"],
            resources: [.copy("Fixtures")],
            swiftSettings: swiftSettings
        ),
        // webcache-bench is a dependency so that the crash and multi-process tests find it built.
        .testTarget(
            name: "CacheStoreTests",
            dependencies: ["CacheStore", "ChildProcess", "WebCacheTestSupport", "webcache-bench", "CZlib"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "TransportTests",
            dependencies: [
                "Transport", "LocalOrigin", "ChildProcess", "WebCacheTestSupport", "WebCacheURLSession",
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "LocalOriginTests", dependencies: ["LocalOrigin", "ChildProcess", "WebCacheTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "SessionsTests", dependencies: ["Sessions", "WebCacheTestSupport"], swiftSettings: swiftSettings),
        .testTarget(
            name: "RenderingTests",
            dependencies: [
                "Rendering", "Discovery", "LocalOrigin", "HTTPCore", "ChildProcess", "CZlib", "WebCacheTestSupport",
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "WebCacheTests",
            dependencies: [
                "WebCache", "LocalOrigin", "WebCacheTestSupport", "CZlib", "ChildProcess", "WebCacheURLSession",
            ],
            swiftSettings: swiftSettings
        ),
        // The archive formats alone, and export, import, merge and shards through the real executable.
        .testTarget(
            name: "ArchiveTests",
            dependencies: [
                "Archive", "CacheStore", "ChildProcess", "HTTPCore", "LocalOrigin", "WebCache", "WebCacheTestSupport",
            ],
            swiftSettings: swiftSettings
        ),
        // Runs scripts/fault-campaign.sh --short against the built executables.
        .testTarget(
            name: "FaultTests", dependencies: ["ChildProcess", "WebCacheTestSupport"], swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "GatewayTests",
            dependencies: [
                "Gateway", "WebCache", "CacheStore", "LocalOrigin", "Transport", "ChildProcess", "WebCacheTestSupport",
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "WebCacheCLITests",
            dependencies: [
                "WebCacheCLI", "CacheStore", "ChildProcess", "HTTPCore", "LocalOrigin", "Sessions", "WebCache",
                "WebCacheTestSupport",
            ],
            swiftSettings: swiftSettings
        ),
        // Misbehaving origins, hostile input, fuzzing and security checks across every module.
        .testTarget(
            name: "HostileTests",
            dependencies: [
                "WebCache", "WebCacheCLI", "Transport", "LocalOrigin", "Discovery", "HTTPCaching", "HTTPCore",
                "Sessions", "CacheStore", "ChildProcess", "WebCacheTestSupport",
            ],
            exclude: ["Fixtures"],
            swiftSettings: swiftSettings
        ),
    ]
)

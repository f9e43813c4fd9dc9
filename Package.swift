// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "ListSync",
    products: [
        .library(name: "ListDiff", targets: ["ListDiff"]),
        .library(name: "ListFormats", targets: ["ListFormats"]),
        .library(name: "ListSyncProtocol", targets: ["ListSyncProtocol"]),
        .library(name: "ListSyncClient", targets: ["ListSyncClient"]),
        .executable(name: "listsyncd", targets: ["listsyncd"]),
    ],
    dependencies: [
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/LebJe/TOMLKit.git", from: "0.6.0"),
        // Benchmark only: the CSV baseline of the formats benchmark.
        .package(url: "https://github.com/yaslab/CSV.swift.git", from: "2.5.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        // `listsync exec`: runs a command per changeset. Without its Foundation trait.
        .package(url: "https://github.com/swiftlang/swift-subprocess.git", from: "1.0.2", traits: []),
        // `listsync sink postgres`: the PostgreSQL wire protocol on NIO.
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        // TLS for `listsync sink postgres` over TCP (sslmode prefer/require); PostgresNIO uses it.
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        // The daemon's Prometheus metrics: one PrometheusCollectorRegistry per daemon, HELP on every family.
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
    ],
    targets: [
        // libinotifytools, used only by FileWatching, the daemon's file watcher (one dedicated thread).
        .systemLibrary(
            name: "CInotifyTools",
            path: "Sources/CInotifyTools",
            providers: [.apt(["libinotifytools0-dev"])]
        ),
        // The daemon: `listsyncd --config FILE`, `--check-config FILE`.
        .executableTarget(
            name: "listsyncd",
            dependencies: [
                "ListSyncDaemon",
                "ListSyncProtocol",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            // The Swift runtime and FoundationEssentials linked in (`-static-stdlib`, with
            // FoundationEssentials' own two libraries), by GNU ld: it takes FoundationEssentials'
            // weak symbols from FoundationEssentials itself, where gold and lld take them from
            // libFoundation.a, which TOMLKit's import names first and which brings Foundation,
            // CoreFoundation and ICU. So no Foundation is linked at all: a use of full Foundation's
            // API in the daemon fails to link (undefined CoreFoundation or ICU symbols) rather than
            // adding 5 MiB to every daemon. RELR relocations and no exported symbols keep the
            // relocation and symbol tables out of memory. 10 MiB less resident than the shared
            // libraries (docs/BENCHMARKS.md, "The runtime linked in"). No test target may depend on
            // this target: its linker settings would apply to the test bundle, which links XCTest
            // and swift-testing as shared libraries.
            linkerSettings: [
                .unsafeFlags([
                    "-static-stdlib", "-l_FoundationCollections", "-l_FoundationCShims", "-use-ld=bfd",
                    "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs", "-Xlinker", "--no-export-dynamic",
                ], .when(platforms: [.linux]))
            ]
        ),
        // Durable files and system calls, shared by the daemon's state and the CLI's state files:
        // SystemCallError, the read/write loop, one atomic replace and one append-and-sync, and
        // the one checksummed record format (XXH3).
        .target(name: "DurableFiles", dependencies: ["CXXHash"]),
        // The daemon's file watcher: one inotify thread per process, settling, writers, and reads
        // confirmed complete (docs/ARCHITECTURE.md). Nothing daemon-specific.
        .target(
            name: "FileWatching",
            dependencies: [
                "CFileSync",
                "CInotifyTools",
                "DurableFiles",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "FileWatchingTests",
            dependencies: [
                "DurableFiles",
                "FileWatching",
                "ListSyncTestSupport",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // SO_PEERCRED's struct ucred, which Swift's Glibc module hides.
        .target(name: "CPeerCredentials"),
        // AF_UNIX addresses and a plain blocking client socket: the daemon's socket file and
        // sd_notify, and the clients below NIO (the latency benchmark, the tests' protocol client).
        .target(name: "UnixSockets", dependencies: ["DurableFiles"]),
        // sync_file_range(2), which Swift's Glibc module hides, and a SIGBUS handler that says
        // what the bus error was before the process ends.
        .target(name: "CFileSync"),
        .target(
            name: "ListSyncDaemon",
            dependencies: [
                "CFileSync",
                "CPeerCredentials",
                "DurableFiles",
                "FileWatching",
                "ListDiff",
                "ListFormats",
                "ListSyncProtocol",
                "UnixSockets",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "TOMLKit", package: "TOMLKit"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                // The metrics endpoint's HTTP codec (`metrics_listen`, the metrics socket).
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            path: "Sources/ListSyncDaemon"
        ),
        .testTarget(
            name: "ListSyncDaemonTests",
            dependencies: [
                "DurableFiles",
                "FileWatching",
                "ListSyncDaemon",
                "ListSyncProtocol",
                "ListFormats",
                "ListDiff",
                "UnixSockets",
                "ListSyncTestSupport",
                // The end-to-end tests run .build/debug/listsyncd, which `swift build --build-tests`
                // builds; not a dependency (see listsyncd's linker settings).
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PropertyBased", package: "swift-property-based"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // XXH3 from libxxhash, used header-only (XXH_INLINE_ALL): stable hashes, nothing to link.
        .systemLibrary(
            name: "CXXHash",
            path: "Sources/CXXHash",
            providers: [.apt(["libxxhash-dev"])]
        ),
        // CSV/JSON/NDJSON readers and writers: ListDiff only, no Foundation.
        // ListFormats' byte-level hot paths in C: SSE2, and AVX2 chosen at run time.
        .target(name: "CListFormatsScan"),
        .target(name: "ListFormats", dependencies: ["ListDiff", "CXXHash", "CListFormatsScan", "DurableFiles"]),
        .testTarget(
            name: "ListFormatsTests",
            dependencies: [
                "ListFormats",
                "ListSyncTestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        // Wire protocol v1 (docs/PROTOCOL.md): messages, cursors, line framing, the changeset
        // encoding, digest, snapshot chunks. No NIO: the client library and the daemon both use it.
        .target(
            name: "ListSyncProtocol",
            dependencies: ["ListDiff", "ListFormats", .product(name: "Crypto", package: "swift-crypto")]
        ),
        .testTarget(
            name: "ListSyncProtocolTests",
            dependencies: [
                "ListSyncProtocol", "ListFormats", "ListDiff", "ListSyncTestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        // The client library: connection, resume, mirrored lists (docs/PROTOCOL.md).
        .target(
            name: "ListSyncClient",
            dependencies: [
                "ListDiff",
                "ListFormats",
                "ListSyncProtocol",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "ListSyncClientTests",
            dependencies: [
                "ListSyncClient",
                "ListSyncProtocol",
                "ListFormats",
                "ListDiff",
                "ListSyncTestSupport",
                "UnixSockets",
                // Built for the end-to-end tests, which run the binaries (listsyncd is built by
                // `swift build --build-tests`; not a dependency: see its linker settings).
                "listsync",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        // Test-only helpers shared by the test targets: child processes, the end-to-end harness
        // (a real listsyncd in a scratch directory), `eventually`, saving files every way editors do.
        .target(
            name: "ListSyncTestSupport",
            dependencies: ["DurableFiles", "ListDiff", "ListFormats", "ListSyncClient", "ListSyncProtocol"],
            path: "Tests/ListSyncTestSupport"
        ),
        // SQLite's C API (libsqlite3-dev), for the SQLite sink.
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        // nats.c, the NATS C client (libnats-dev), for the NATS JetStream transport; only
        // NATSTransport imports it.
        .systemLibrary(name: "CNATS", path: "Sources/CNATS", pkgConfig: "libnats", providers: [.apt(["libnats-dev"])]),
        // nats.c wrapped once: connections to a cluster, streams, JetStream publishing with
        // headers and expected sequences, ordered consumers (docs/PROTOCOL.md, "The NATS transport").
        .target(name: "NATSTransport", dependencies: ["CNATS"]),
        // Database sinks: keep a SQLite or PostgreSQL table equal to a watched list; the NATS
        // JetStream sink and the stream follower (`JetStream/`).
        .target(
            name: "ListSyncSink",
            dependencies: [
                "CSQLite", "DurableFiles", "ListDiff", "ListFormats", "ListSyncProtocol", "ListSyncClient", "NATSTransport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                // NIOThreadPool: nats.c's blocking calls run there.
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
        // The sinks end to end: real listsyncd, `listsync sink`, SQLite files and a PostgreSQL the
        // tests start themselves.
        .testTarget(
            name: "ListSyncSinkTests",
            dependencies: [
                "ListSyncSink",
                "ListSyncClient",
                "ListSyncProtocol",
                "ListFormats",
                "ListSyncTestSupport",
                // The NATS tests audit the stream with the wrapper.
                "NATSTransport",
                // Built for the end-to-end tests, which run the binaries (listsyncd is built by
                // `swift build --build-tests`; not a dependency: see its linker settings).
                "listsync",
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        // The diff engine: no dependencies, not even Foundation.
        .target(name: "ListDiff"),
        .testTarget(
            name: "ListDiffTests",
            dependencies: [
                "ListDiff",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        // The client command line: `listsync parse`, `listsync diff`.
        .executableTarget(
            name: "listsync",
            dependencies: [
                "DurableFiles",
                "ListFormats",
                "ListDiff",
                "ListSyncClient",
                "ListSyncProtocol",
                "ListSyncSink",
                "NATSTransport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Subprocess", package: "swift-subprocess"),
            ]
        ),
        // Runs the built `listsync` binary on temporary files; links it only where a property test
        // compares two of its code paths (`@testable import listsync`).
        // The commands that follow a daemon (subscribe, mirror, exec, snapshot, list) run against a
        // real listsyncd; their tests read lists and ask the daemon with the libraries.
        .testTarget(
            name: "listsyncTests",
            dependencies: [
                "DurableFiles",
                "ListFormats",
                "ListSyncClient",
                "ListSyncProtocol",
                "ListSyncTestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
                // Built for the end-to-end tests, which run the binaries (listsyncd is built by
                // `swift build --build-tests`; not a dependency: see its linker settings).
                "listsync",
            ]
        ),
        // <sys/epoll.h>, which Swift's Glibc module hides: the latency benchmark's subscribers.
        .target(name: "CEpoll"),
        // Speed and memory, side by side with baselines in the same run (release builds).
        .executableTarget(
            name: "ListSyncBenchmarks",
            dependencies: [
                "CEpoll",
                "ListDiff",
                "ListFormats",
                // The latency benchmark runs listsyncd and subscribes to it.
                "ListSyncClient",
                "ListSyncProtocol",
                // The sink benchmark: SQLite and PostgreSQL against delete-and-reinsert.
                "ListSyncSink",
                // The NATS benchmark publishes and reads streams itself.
                "NATSTransport",
                "UnixSockets",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "CSV", package: "CSV.swift"),
            ]
        ),
        // What of the benchmarks can be tested without timing: their options, the places and
        // files they make, and a small run of a workload against the real (debug) listsyncd.
        .testTarget(
            name: "ListSyncBenchmarksTests",
            dependencies: [
                "ListSyncBenchmarks",
                "ListSyncTestSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
    ]
)

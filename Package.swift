// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "ListSync",
    products: [
        .library(name: "ListDiff", targets: ["ListDiff"]),
        .library(name: "ListFormats", targets: ["ListFormats"]),
    ],
    dependencies: [
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/LebJe/TOMLKit.git", from: "0.6.0"),
    ],
    targets: [
        // libinotifytools, used only by the daemon's file watcher (one dedicated thread).
        .systemLibrary(
            name: "CInotifyTools",
            path: "Sources/CInotifyTools",
            providers: [.apt(["libinotifytools0-dev"])]
        ),
        .target(
            name: "ListSyncDaemon",
            dependencies: [
                "CInotifyTools",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "TOMLKit", package: "TOMLKit"),
            ],
            path: "Sources/ListSyncDaemon"
        ),
        .testTarget(
            name: "ListSyncDaemonTests",
            dependencies: [
                "ListSyncDaemon",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // XXH3 from libxxhash, used header-only (XXH_INLINE_ALL): stable hashes, nothing to link.
        .systemLibrary(
            name: "CXXHash",
            path: "Sources/CXXHash",
            providers: [.apt(["libxxhash-dev"])]
        ),
        // CSV/JSON/NDJSON readers and writers: ListDiff only, no Foundation.
        .target(name: "ListFormats", dependencies: ["ListDiff", "CXXHash"]),
        .testTarget(
            name: "ListFormatsTests",
            dependencies: [
                "ListFormats",
                .product(name: "PropertyBased", package: "swift-property-based"),
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
        // Speed and memory, side by side with baselines in the same run (release builds).
        .executableTarget(
            name: "ListSyncBenchmarks",
            dependencies: [
                "ListDiff",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
    ]
)

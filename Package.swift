// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "ListSync",
    products: [
        .library(name: "ListDiff", targets: ["ListDiff"]),
    ],
    dependencies: [
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
    ],
    targets: [
        // Speed and memory, side by side with baselines in the same run (release builds).
        .executableTarget(
            name: "ListSyncBenchmarks",
            dependencies: [
                "ListDiff",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
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
    ]
)

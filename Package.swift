// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "ListSync",
    products: [
        .library(name: "ListDiff", targets: ["ListDiff"]),
    ],
    dependencies: [
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
    ],
    targets: [
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

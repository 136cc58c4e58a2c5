// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Sluice",
    platforms: [
        .macOS(.v13),
        .iOS(.v16),
        .tvOS(.v16),
        .watchOS(.v9),
    ],
    products: [
        .library(name: "Sluice", targets: ["Sluice"]),
        .library(name: "SluiceTesting", targets: ["SluiceTesting"]),
        .executable(name: "sluice-demo", targets: ["sluice-demo"]),
    ],
    targets: [
        .target(name: "Sluice"),
        .target(name: "SluiceTesting", dependencies: ["Sluice"]),
        .executableTarget(name: "sluice-demo", dependencies: ["Sluice", "SluiceTesting"]),
        .testTarget(name: "SluiceTests", dependencies: ["Sluice", "SluiceTesting"]),
    ],
    swiftLanguageModes: [.v6]
)

// Every target gets the same upcoming features, so that the whole package reads one way.
for target in package.targets {
    var settings = target.swiftSettings ?? []
    settings.append(contentsOf: [
        .enableUpcomingFeature("ExistentialAny"),
        .enableUpcomingFeature("MemberImportVisibility"),
        .enableUpcomingFeature("InternalImportsByDefault"),
    ])
    target.swiftSettings = settings
}

// swift-tools-version: 6.1
import PackageDescription

// The end-to-end check of the observability adapter through swift-otel: requests on loopback, their spans, metrics
// and records exported over OTLP/HTTP to the receiver that `../otel-check.sh` starts. A package of its own, outside
// CI: swift-otel brings SwiftNIO and async-http-client, whose build takes minutes.
let package = Package(
    name: "OTelCheck",
    platforms: [
        .macOS("15.0")
    ],
    dependencies: [
        .package(name: "SluiceObservability", path: "../.."),
        .package(name: "Sluice", path: "../../../.."),
        // OTLP/HTTP only: the gRPC exporter's packages are not built.
        .package(url: "https://github.com/swift-otel/swift-otel", from: "1.6.0", traits: ["OTLPHTTP"]),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.12.0"),
    ],
    targets: [
        .executableTarget(
            name: "OTelCheck",
            dependencies: [
                .product(name: "SluiceObservability", package: "SluiceObservability"),
                .product(name: "Sluice", package: "Sluice"),
                .product(name: "SluiceTesting", package: "Sluice"),
                .product(name: "OTel", package: "swift-otel"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Logging", package: "swift-log"),
            ]
        )
    ],
    swiftLanguageModes: [.v6]
)

for target in package.targets {
    var settings = target.swiftSettings ?? []
    settings.append(contentsOf: [
        .enableUpcomingFeature("ExistentialAny"),
        .enableUpcomingFeature("MemberImportVisibility"),
        .enableUpcomingFeature("InternalImportsByDefault"),
    ])
    target.swiftSettings = settings
}

// swift-tools-version: 6.1
import PackageDescription

// Sluice's instrumentation mapped to swift-distributed-tracing's tracer, swift-metrics and swift-log. A package of
// its own, so that the root package stays free of dependencies: only a user who adds this one resolves these. None of
// them pulls in SwiftNIO.
let package = Package(
    name: "SluiceObservability",
    // The root package's platforms: this one builds on it.
    platforms: [
        .macOS("13.3"),
        .iOS("16.4"),
        .tvOS("16.4"),
        .watchOS("9.4"),
    ],
    products: [
        .library(name: "SluiceObservability", targets: ["SluiceObservability"])
    ],
    dependencies: [
        .package(name: "Sluice", path: "../.."),
        // `Tracing` brings `ServiceContext` along, so swift-service-context is not named here. 1.3.0 is the first with
        // `InMemoryTracing`, the tests' tracer; swift-log 1.11.0 the first with `LogEvent`, which the tests' handler
        // takes; swift-metrics 2.7.0 the first whose metrics take a factory, so that each test has its own.
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.3.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.11.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.7.0"),
    ],
    targets: [
        // The `RequestInstrumentation` that turns a request's scopes into spans, its attempts and connections into
        // metrics, and its log records into a `Logger`'s.
        .target(
            name: "SluiceObservability",
            dependencies: [
                .product(name: "SluiceCore", package: "Sluice"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),
        // CPU time per request with no instrumentation, an empty one and this one with no-op backends, in release:
        // `swift run -c release sluice-observability-bench`.
        .executableTarget(
            name: "sluice-observability-bench",
            dependencies: [
                "SluiceObservability",
                .product(name: "SluiceCore", package: "Sluice"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),
        // Span trees against the in-memory tracer, metrics against the metrics test kit and records against a
        // capturing log handler, for requests on a loopback server; and the README's snippet.
        .testTarget(
            name: "SluiceObservabilityTests",
            dependencies: [
                "SluiceObservability",
                .product(name: "Sluice", package: "Sluice"),
                .product(name: "SluiceTesting", package: "Sluice"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// The root package's upcoming features, for every target.
for target in package.targets {
    var settings = target.swiftSettings ?? []
    settings.append(contentsOf: [
        .enableUpcomingFeature("ExistentialAny"),
        .enableUpcomingFeature("MemberImportVisibility"),
        .enableUpcomingFeature("InternalImportsByDefault"),
    ])
    target.swiftSettings = settings
}

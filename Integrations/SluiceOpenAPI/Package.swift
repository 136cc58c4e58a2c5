// swift-tools-version: 6.1
import PackageDescription

// Sluice as a transport for clients that swift-openapi-generator makes, and a bridge to swift-http-types. A package
// of its own, so that the root package stays free of dependencies: only a user who adds this one resolves these.
let package = Package(
    name: "SluiceOpenAPI",
    // The root package's platforms: this one builds on it.
    platforms: [
        .macOS("13.3"),
        .iOS("16.4"),
        .tvOS("16.4"),
        .watchOS("9.4"),
    ],
    products: [
        .library(name: "SluiceOpenAPI", targets: ["SluiceOpenAPI"]),
        .executable(name: "sluice-openapi-bench", targets: ["SluiceOpenAPIBench"]),
    ],
    dependencies: [
        .package(name: "Sluice", path: "../.."),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        // The tests' server, generated from the same document as the client, and the reference transport.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/swift-openapi-hummingbird", from: "2.1.0"),
        .package(url: "https://github.com/swift-server/swift-openapi-async-http-client", from: "1.5.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
        // The benchmark's third transport, URLSession's, beside Sluice's and async-http-client's.
        .package(url: "https://github.com/apple/swift-openapi-urlsession", from: "1.4.0"),
    ],
    targets: [
        // The `ClientTransport` on any `RequestPerformer`, the `RequestPerformer` on any `ClientTransport`, and the
        // conversions between swift-http-types' messages and Sluice's.
        .target(
            name: "SluiceOpenAPI",
            dependencies: [
                .product(name: "SluiceCore", package: "Sluice"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        // A generated client's requests per second, CPU per request and peak memory through Sluice's transport,
        // async-http-client's and URLSession's, against nginx (see `Benchmarks/README.md` at the repository's root):
        // `swift run -c release --package-path Integrations/SluiceOpenAPI sluice-openapi-bench`. Its client is
        // generated from `Benchmark/openapi.yaml`, as the tests' are (`Scripts/regenerate.sh`).
        .executableTarget(
            name: "SluiceOpenAPIBench",
            dependencies: [
                "SluiceOpenAPI",
                .product(name: "Sluice", package: "Sluice"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"),
            ]
        ),
        // The generated client and server of `Tests/Catalog/openapi.yaml` (see `Scripts/regenerate.sh`), the tests of
        // the transport against that server, and the snippets of the README and the DocC article.
        .testTarget(
            name: "SluiceOpenAPITests",
            dependencies: [
                "SluiceOpenAPI",
                .product(name: "Sluice", package: "Sluice"),
                .product(name: "SluiceTesting", package: "Sluice"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "OpenAPIHummingbird", package: "swift-openapi-hummingbird"),
                .product(name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        // The client generated from `Tests/HTTPBin/openapi.yaml`, against httpbin's routes (at `SLUICE_HTTPBIN_URL`;
        // skipped without it) through Sluice's transport and the reference, in a module of its own: its generated
        // names are those of the catalog's.
        .testTarget(
            name: "SluiceOpenAPIHTTPBinTests",
            dependencies: [
                "SluiceOpenAPI",
                .product(name: "SluiceCore", package: "Sluice"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// The root package's upcoming features, for every target. The generated code in the tests is written for them too:
// the generator marks its imports' access levels.
for target in package.targets {
    var settings = target.swiftSettings ?? []
    settings.append(contentsOf: [
        .enableUpcomingFeature("ExistentialAny"),
        .enableUpcomingFeature("MemberImportVisibility"),
        .enableUpcomingFeature("InternalImportsByDefault"),
    ])
    target.swiftSettings = settings
}

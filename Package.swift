// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Sluice",
    // The point releases from which a key path describes itself (`\Params.id`): build errors name the field.
    platforms: [
        .macOS("13.3"),
        .iOS("16.4"),
        .tvOS("16.4"),
        .watchOS("9.4"),
    ],
    products: [
        .library(name: "Sluice", targets: ["Sluice"]),
        .library(name: "SluiceCore", targets: ["SluiceCore"]),
        .library(name: "SluiceEndpoints", targets: ["SluiceEndpoints"]),
        .library(name: "SluiceJSON", targets: ["SluiceJSON"]),
        .library(name: "SluiceTesting", targets: ["SluiceTesting"]),
        .executable(name: "sluice-demo", targets: ["sluice-demo"]),
    ],
    targets: [
        // The JSON engine: parser, document, decoder and writer. It depends on nothing, so a user who wants only the
        // parse stage, and the fuzzer, can take it alone.
        .target(name: "SluiceJSON"),
        // The system headers Sluice's own transport needs and the C library's Swift overlay leaves out (epoll, eventfd).
        .target(name: "CSluiceSystem"),
        // The vocabulary every layer shares: methods, statuses, fields, responses and bodies, `SluiceError`, the
        // `RequestPerformer` protocol, the WebSocket API types and the metrics records.
        .target(name: "SluiceHTTP", dependencies: ["SluiceJSON"]),
        // What talks to the network: the URLSession performer and Sluice's own transport (sockets, TLS, HTTP/1.1, the
        // pool, proxies, compression, WebSocket). It sees the pipeline above only through `TransportScope`.
        .target(name: "SluiceTransport", dependencies: ["SluiceHTTP", "CSluiceSystem"]),
        // What every user needs: the pipeline, middleware, the cache, streaming, transfers and observability, with the
        // two layers below re-exported.
        .target(name: "SluiceCore", dependencies: ["SluiceHTTP", "SluiceTransport"]),
        // The seeds' three ways of describing an endpoint (`Endpoint`, `APIDefinition`, `Repository`), compiled to
        // the core's `Request` through one request builder. It uses the core's public and `package` API only.
        .target(name: "SluiceEndpoints", dependencies: ["SluiceCore"]),
        // An umbrella: `import Sluice` re-exports the core and the endpoint styles, so every seed sample compiles.
        .target(name: "Sluice", dependencies: ["SluiceCore", "SluiceEndpoints"]),
        .target(name: "SluiceTesting", dependencies: ["SluiceCore", "SluiceEndpoints"]),
        .executableTarget(name: "sluice-demo", dependencies: ["Sluice", "SluiceTesting"]),
        // A reverse proxy with the private HTTP cache in front of Sluice's own transport, which `.ci/cache-tests.sh`
        // runs the HTTP cache conformance suite (http-tests/cache-tests) against.
        .executableTarget(name: "cache-tests-proxy", dependencies: ["SluiceCore", "SluiceTesting"]),
        // The JSON fuzzer and the invariants it checks, which the tests also check on the inputs it found.
        .target(name: "JSONFuzzSupport", dependencies: ["SluiceJSON"]),
        // The program around each fuzzer's check: libFuzzer's driver, or a replay of the files it is given.
        .target(name: "FuzzDriver"),
        .executableTarget(name: "json-fuzzer", dependencies: ["JSONFuzzSupport", "FuzzDriver"]),
        // The fuzzer for the parsers of bytes from the network (the HTTP/1.1 response parser, lines, server-sent
        // events, the multipart encoder) and the invariants it checks, which the tests also check on what it found.
        .target(name: "HTTPFuzzSupport", dependencies: ["SluiceCore", "SluiceEndpoints"]),
        .executableTarget(name: "http-fuzzer", dependencies: ["HTTPFuzzSupport", "FuzzDriver"]),
        // What more than one test target uses: a seedable random generator, the entries of the disk cache crash test.
        .target(name: "TestSupport", path: "Tests/Support"),
        // The child process the disk cache's crash test kills while it writes entries.
        .executableTarget(
            name: "CacheWriterHelper",
            dependencies: ["SluiceCore", "TestSupport"],
            path: "Tests/CacheWriterHelper"
        ),
        .testTarget(
            name: "SluiceJSONTests",
            dependencies: ["SluiceJSON", "JSONFuzzSupport", "TestSupport"],
            exclude: ["Parsing/Resources"]
        ),
        // The models, requests and endpoints that the client's test targets share.
        .target(
            name: "ClientFixtures",
            dependencies: ["SluiceCore", "SluiceTesting", "TestSupport"],
            path: "Tests/ClientFixtures"
        ),
        .testTarget(
            name: "SluiceHTTPTests",
            dependencies: ["SluiceHTTP", "SluiceCore", "SluiceEndpoints", "TestSupport", "ClientFixtures"]
        ),
        .testTarget(
            name: "SluiceTransportTests",
            dependencies: [
                "SluiceTransport", "SluiceCore", "SluiceEndpoints", "SluiceTesting", "TestSupport", "ClientFixtures",
                "HTTPFuzzSupport",
            ]
        ),
        .testTarget(
            name: "SluiceCoreTests",
            dependencies: [
                "SluiceCore", "SluiceTransport", "SluiceEndpoints", "SluiceTesting", "TestSupport", "ClientFixtures",
                "HTTPFuzzSupport",
            ],
            exclude: ["Fuzzing/Resources"]
        ),
        .testTarget(
            name: "SluiceEndpointsTests",
            dependencies: ["SluiceEndpoints", "SluiceTesting", "TestSupport", "ClientFixtures"]
        ),
        .testTarget(
            name: "SluiceTestingTests",
            dependencies: ["SluiceTesting", "SluiceEndpoints", "TestSupport", "ClientFixtures"]
        ),
        // The snippets of the README and the DocC articles, compiled through the umbrella as users write them.
        .testTarget(name: "SluiceTests", dependencies: ["Sluice", "SluiceTesting", "TestSupport", "ClientFixtures"]),
        // The seed documents' samples, compiled in Swift 5 mode as users on that mode write them (one declares a
        // `static var` stored property, which Swift 6 refuses).
        .testTarget(
            name: "SeedSampleTests",
            dependencies: ["Sluice", "SluiceTesting"],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// Every target gets the same upcoming features, so that the whole package reads one way. The seed samples are
// user code written without `any`, so they are compiled as users compile them, without ExistentialAny.
for target in package.targets where target.name != "CSluiceSystem" {
    var settings = target.swiftSettings ?? []
    if target.name != "SeedSampleTests" {
        settings.append(.enableUpcomingFeature("ExistentialAny"))
    }
    settings.append(contentsOf: [
        .enableUpcomingFeature("MemberImportVisibility"),
        .enableUpcomingFeature("InternalImportsByDefault"),
    ])
    target.swiftSettings = settings
}

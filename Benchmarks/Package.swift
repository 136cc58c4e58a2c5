// swift-tools-version: 6.1
// The benchmarks are a package of their own, so that users of Sluice resolve nothing for them.
import PackageDescription

let package = Package(
    name: "SluiceBenchmarks",
    platforms: [.macOS("13.3")],
    dependencies: [
        .package(name: "Sluice", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        // The server-sent events parser measured beside Sluice's. No target depends on its product, which does not
        // build on Linux: `EventSourcePeer` compiles its sources from this checkout instead.
        .package(url: "https://github.com/mattt/EventSource", exact: "1.1.1"),
        // The HTTP client the transport benchmark measures Sluice's beside, on SwiftNIO with BoringSSL, and the NIO
        // packages whose types its configuration takes (to trust the run's own certificate). Only `TransportBenchmark`
        // uses them.
        .package(url: "https://github.com/swift-server/async-http-client", exact: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        // The WebSocket client the WebSocket benchmark measures Sluice's beside, on SwiftNIO, with its
        // permessage-deflate extension. Only `WebSocketBenchmark` uses it.
        .package(url: "https://github.com/hummingbird-project/swift-websocket", exact: "1.6.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.4.0"),
    ],
    targets: [
        .executableTarget(
            name: "SluiceBenchmarks",
            dependencies: [
                .product(name: "Sluice", package: "Sluice"),
                .product(name: "Benchmark", package: "benchmark"),
                "EventSourcePeer",
            ],
            path: "Benchmarks/SluiceBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // mattt/EventSource 1.1.1, compiled from its checkout (the folder's files but one are links into
        // `.build/checkouts/EventSource`) beside a stand-in for the `URLSession.bytes(for:delegate:)` that Linux lacks.
        // Its own language mode, as its package declares.
        .target(
            name: "EventSourcePeer",
            path: "Peers/EventSourcePeer",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // A template for users: their own request's response stages, timed one by one beside JSONDecoder. It is built
        // and run with the project's own benchmarks, so that it keeps compiling.
        .executableTarget(
            name: "StageBenchmarkTemplate",
            dependencies: [
                .product(name: "Sluice", package: "Sluice"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/StageBenchmarkTemplate",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // The peak resident memory of one parse of a large document: `swift run -c release ParsePeakMemory`. It is
        // under Tools/, as the benchmark plugin runs every executable directly under Benchmarks/ as a benchmark.
        .executableTarget(
            name: "ParsePeakMemory",
            dependencies: [.product(name: "SluiceJSON", package: "Sluice")],
            path: "Benchmarks/Tools/ParsePeakMemory"
        ),
        // How long a server-sent event takes to reach the client after the server wrote it, on loopback:
        // `swift run -c release FirstEventLatency`.
        .executableTarget(
            name: "FirstEventLatency",
            dependencies: [.product(name: "Sluice", package: "Sluice")],
            path: "Benchmarks/Tools/FirstEventLatency"
        ),
        // The transports against one local nginx, beside wrk and bare URLSession: requests per second, latency and
        // CPU per request, large-body throughput and a fetch-and-decode: `swift run -c release TransportBenchmark`.
        .executableTarget(
            name: "TransportBenchmark",
            dependencies: [
                .product(name: "Sluice", package: "Sluice"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            path: "Benchmarks/Tools/TransportBenchmark"
        ),
        // The WebSocket clients against one local echo server (Python's `websockets`, or one on SwiftNIO that the
        // tool runs as a child of its own), beside swift-websocket's client and Python's: round trips and messages
        // per second, CPU per message, and the peak memory of a slow reader: `swift run -c release WebSocketBenchmark`.
        .executableTarget(
            name: "WebSocketBenchmark",
            dependencies: [
                .product(name: "Sluice", package: "Sluice"),
                .product(name: "WSClient", package: "swift-websocket"),
                .product(name: "WSCompression", package: "swift-websocket"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ],
            path: "Benchmarks/Tools/WebSocketBenchmark"
        ),
    ]
)

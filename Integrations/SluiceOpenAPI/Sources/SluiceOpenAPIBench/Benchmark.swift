import Foundation
import OpenAPIRuntime

/// The two calls measured for requests per second: the small document, and the list of about 1.5 MB, decoded.
enum Call: String, CaseIterable {
    case greeting = "small GET"
    case list = "1.5 MB JSON list"

    /// The name `OPENAPI_BENCH_CALLS` knows it by.
    var argument: String { String(describing: self) }

    /// Makes the call once on `client`, and checks its answer.
    func perform(on client: Client, expectedItems: Int) async throws {
        switch self {
        case .greeting:
            let greeting = try await client.getGreeting().ok.body.json
            guard greeting.id == 1 else { throw BenchmarkError("unexpected greeting \(greeting)") }
        case .list:
            let items = try await client.listItems().ok.body.json
            guard items.count == expectedItems else { throw BenchmarkError("\(items.count) items") }
        }
    }
}

/// Runs the whole benchmark and prints its tables, in Markdown.
///
/// `OPENAPI_BENCH_TRANSPORTS`, when set, names the transports to measure by their command-line names, separated by
/// commas (`sluice,ahc`), and `OPENAPI_BENCH_CALLS` the calls (`greeting`, `list`), for a profile of one of them.
func benchmark(seconds: Double, gibibytes: Double) async throws {
    let environment = ProcessInfo.processInfo.environment
    let transports =
        environment["OPENAPI_BENCH_TRANSPORTS"].map { names in
            BenchmarkTransport.allCases.filter { names.split(separator: ",").contains(Substring($0.argument)) }
        } ?? BenchmarkTransport.allCases
    let calls =
        environment["OPENAPI_BENCH_CALLS"].map { names in
            Call.allCases.filter { names.split(separator: ",").contains(Substring($0.argument)) }
        } ?? Call.allCases
    let itemCount = 10_000
    let transferSize = Int64(gibibytes * Double(1 << 30))
    let mebibytes = Double(transferSize) / Double(1 << 20)
    let server = try Nginx(itemCount: itemCount, blobSize: transferSize)
    defer { server.stop() }
    let cores = ProcessInfo.processInfo.activeProcessorCount
    print("nginx (1 worker) on 127.0.0.1:\(server.port), list \(server.listSize) bytes; \(cores) cores")
    print("\(Int(seconds)) s a cell after a warm-up of 1 s; ratios are to async-http-client in the same run")
    print("(requests per second: higher is better; CPU: async-http-client's CPU per request over the transport's)\n")
    print("| call | concurrent | transport | requests/s | CPU µs/request | requests/s ratio | CPU ratio |")
    print("| --- | ---: | --- | ---: | ---: | ---: | ---: |")
    for call in calls {
        for concurrency in [1, 16] {
            var results: [(BenchmarkTransport, Throughput)] = []
            for transport in transports {
                let result = try await transport.withClient(server.url) { client in
                    try await measure(concurrency: concurrency, warmUp: .seconds(1), duration: .seconds(seconds)) {
                        try await call.perform(on: client, expectedItems: itemCount)
                    }
                }
                results.append((transport, result))
            }
            let reference = results.first { $0.0 == .asyncHTTPClient }?.1
            for (transport, result) in results {
                let rate = reference.map { result.requestsPerSecond / $0.requestsPerSecond } ?? .nan
                let cpu = reference.map { $0.cpuMicrosecondsPerRequest / result.cpuMicrosecondsPerRequest } ?? .nan
                let digits = result.requestsPerSecond < 100 ? 1 : 0
                print(
                    "| \(call.rawValue) | \(concurrency) | \(transport.rawValue) | "
                        + "\(format(result.requestsPerSecond, digits)) | \(format(result.cpuMicrosecondsPerRequest, 0)) | "
                        + "\(format(rate, 2))x | \(format(cpu, 2))x |"
                )
            }
        }
    }
    print("\n| transfer | transport | MiB/s | peak resident MiB |")
    print("| --- | --- | ---: | ---: |")
    let sink = try UploadSink()
    for direction in ["upload", "download"] {
        for transport in BenchmarkTransport.allCases where transport.streams {
            let target = direction == "upload" ? sink.url : server.url
            let report = try runTransferChild(transport, direction, target, transferSize)
            print(
                "| \(format(mebibytes, 0)) MiB \(direction) | \(transport.rawValue) | "
                    + "\(format(mebibytes / report.seconds, 0)) | \(format(Double(report.peakBytes) / 1_048_576, 1)) |"
            )
        }
    }
}

/// A number with `digits` digits after the point.
func format(_ value: Double, _ digits: Int) -> String {
    String(format: "%.\(digits)f", value)
}

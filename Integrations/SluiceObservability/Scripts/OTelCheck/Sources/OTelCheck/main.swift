// Sends requests on loopback through a Sluice client with the observability adapter on swift-otel's tracer, metrics
// factory and log handler, exporting over OTLP/HTTP (protobuf) to the receiver at the endpoint given first; then
// writes what the loopback server received (each request's path and `traceparent`) as JSON to the path given second,
// for the receiver's checker to compare with what was exported.
//
//     swift run --package-path Integrations/SluiceObservability/Scripts/OTelCheck OTelCheck http://127.0.0.1:4318 sent.json
import Foundation
import Logging
import OTel
import ServiceLifecycle
import Sluice
import SluiceObservability
import SluiceTesting
import Tracing

/// A request for raw bytes, with a template when given.
struct Fetch: Request {
    typealias ResponseObject = Data
    var url: URL
    var template: String?

    func build() throws -> URLRequest { URLRequest(url: url) }

    var urlTemplate: String? { template }
}

/// What failed the check before anything was compared.
struct CheckFailure: Error, CustomStringConvertible {
    var description: String
}

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    throw CheckFailure(description: "usage: OTelCheck RECEIVER-URL SENT-JSON-PATH")
}
let endpoint = arguments[1]
let sentPath = arguments[2]

var configuration = OTel.Configuration.default
configuration.serviceName = "sluice-otel-check"
configuration.diagnosticLogLevel = .warning
configuration.propagators = [.traceContext]
configuration.traces.exporter = .otlp
// An endpoint set here is the signal's whole URL: swift-otel appends `/v1/…` only to the default.
configuration.traces.otlpExporter.endpoint = endpoint + "/v1/traces"
configuration.traces.otlpExporter.protocol = .httpProtobuf
configuration.traces.sampler = .alwaysOn
configuration.metrics.exporter = .otlp
configuration.metrics.otlpExporter.endpoint = endpoint + "/v1/metrics"
configuration.metrics.otlpExporter.protocol = .httpProtobuf
configuration.metrics.durationHistogramBuckets = ObservabilityInstrumentation.durationHistogramBuckets
configuration.logs.exporter = .otlp
configuration.logs.otlpExporter.endpoint = endpoint + "/v1/logs"
configuration.logs.otlpExporter.protocol = .httpProtobuf
configuration.logs.level = .debug

let tracing = try OTel.makeTracingBackend(configuration: configuration)
let metrics = try OTel.makeMetricsBackend(configuration: configuration)
let logging = try OTel.makeLoggingBackend(configuration: configuration)
var logger = Logger(label: "sluice", factory: logging.factory)
logger.logLevel = .debug

let server = try LoopbackServer()
server.route("GET", "/users/7") { _ in .json(#"{"id": 7}"#) }
let calls = ManagedCounter()
server.route("GET", "/flaky") { _ in calls.next() == 1 ? .text("busy", status: 503) : .text("ok") }
server.route("GET", "/old") { _ in LoopbackServer.Response(status: 302, headers: [.init(.location, "/new")]) }
server.route("GET", "/new") { _ in .text("moved") }

let instrumentation = ObservabilityInstrumentation(
    tracer: tracing.factory,
    metricsFactory: metrics.factory,
    logger: logger
)
let policy = RetryingPerformer.Policy(maximumAttempts: 3, deadline: nil, randomFraction: { 0 })
let transport = SocketRequestPerformer(instrumentation: instrumentation)
let client = APIClient(requestPerformer: transport.retrying(policy), instrumentation: instrumentation)

let group = ServiceGroup(
    services: [tracing.service, metrics.service, logging.service],
    gracefulShutdownSignals: [],
    cancellationSignals: [],
    logger: Logger(label: "otel-check")
)
try await withThrowingTaskGroup(of: Void.self) { tasks in
    tasks.addTask { try await group.run() }
    try await tracing.factory.withSpan("otel-check", ofKind: .internal) { _ in
        _ = try await client.perform(Fetch(url: server.url("/users/7"), template: "/users/{id}"))
        _ = try await client.perform(Fetch(url: server.url("/flaky")))
        _ = try await client.perform(Fetch(url: server.url("/old")))
    }
    transport.closeIdleConnections()
    // A graceful shutdown exports what the processors and the metrics reader still hold, then ends the services.
    await group.triggerGracefulShutdown()
    try await tasks.waitForAll()
}

let sent = server.receivedRequests.map { ["path": $0.path, "traceparent": $0.header("traceparent") ?? ""] }
let json = try JSONSerialization.data(withJSONObject: ["port": server.port, "requests": sent], options: [.sortedKeys])
try json.write(to: URL(fileURLWithPath: sentPath))
print("sent \(sent.count) requests on port \(server.port); exported to \(endpoint)")

/// Counts a route's calls across the server's threads.
final class ManagedCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    /// Counts one call and returns how many there have been; every access takes the lock, hence `@unchecked`.
    func next() -> Int {
        lock.withLock {
            count += 1
            return count
        }
    }
}

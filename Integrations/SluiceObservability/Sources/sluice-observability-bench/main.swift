import Foundation
import Metrics
import SluiceCore
import SluiceObservability
import Tracing

#if canImport(Glibc)
import Glibc
#endif

// CPU time per request through `APIClient` with a performer that answers at once, for no instrumentation, an
// instrumentation whose methods do nothing, and the adapter with swift-distributed-tracing's no-op tracer and
// swift-metrics' no-op handler: what the instrumentation itself costs a request.
//
//     sluice-observability-bench [requests] [repetitions] [case]
//
// `case` is `none`, `empty` or `adapter`, for one of them alone (as under callgrind); all three by default.

/// A performer that answers every request with the same response, recording nothing.
struct CannedPerformer: RequestPerformer {
    let response: HTTPResponse

    func perform(_ request: URLRequest) async throws -> HTTPResponse {
        response
    }
}

/// The response object: a small document, so that the deserialize and parse stages run.
struct Item: Decodable {
    let id: Int
}

/// A request for an ``Item``, with a path template as an endpoint's.
struct ItemRequest: Request {
    typealias ResponseObject = Item
    // With a query, as most APIs' URLs have: `url.full` then needs a look at the query's names.
    let url = URL(string: "https://api.example.com/items/42?page=1") ?? URL(fileURLWithPath: "/items/42")
    var urlTemplate: String? { "/items/{id}" }

    func build() throws -> URLRequest {
        URLRequest(url: url)
    }
}

/// An instrumentation whose every method does nothing.
struct EmptyInstrumentation: RequestInstrumentation {
    func begin(_ scope: InstrumentationScope) {}
    func end(_ scope: InstrumentationScope) {}
}

/// The CPU time, user and system, the process has used.
func cpuTime() -> Duration {
    var usage = rusage()
    #if canImport(Glibc)
    getrusage(RUSAGE_SELF.rawValue, &usage)
    #else
    getrusage(RUSAGE_SELF, &usage)
    #endif
    let user = Duration.seconds(usage.ru_utime.tv_sec) + .microseconds(usage.ru_utime.tv_usec)
    let system = Duration.seconds(usage.ru_stime.tv_sec) + .microseconds(usage.ru_stime.tv_usec)
    return user + system
}

/// The CPU microseconds per request of each repetition of `requests` requests.
func measure(_ client: APIClient, requests: Int, repetitions: Int) async throws -> [Double] {
    let request = ItemRequest()
    for _ in 0..<1_000 {
        _ = try await client.perform(request)
    }
    var figures: [Double] = []
    for _ in 0..<repetitions {
        let start = cpuTime()
        for _ in 0..<requests {
            _ = try await client.perform(request)
        }
        let (seconds, attoseconds) = (cpuTime() - start).components
        let microseconds = Double(seconds) * 1e6 + Double(attoseconds) / 1e12
        figures.append(microseconds / Double(requests))
    }
    return figures.sorted()
}

/// The three cases, measured in turn on a task while the main thread waits: a main thread parked by an asynchronous
/// `main` is more than valgrind 3.19 follows.
func run() async throws {
    let arguments = CommandLine.arguments.dropFirst()
    let requests = arguments.first.flatMap { Int($0) } ?? 200_000
    let repetitions = arguments.dropFirst().first.flatMap { Int($0) } ?? 5
    let only = arguments.dropFirst(2).first

    let performer = CannedPerformer(
        response: HTTPResponse(
            status: .ok,
            headers: ["Content-Type": "application/json"],
            body: Data(#"{"id":42}"#.utf8)
        )
    )
    let adapter = ObservabilityInstrumentation(tracer: NoOpTracer(), metricsFactory: NOOPMetricsHandler.instance)
    let cases: [(String, (any RequestInstrumentation)?)] = [
        ("none", nil),
        ("empty", EmptyInstrumentation()),
        ("adapter", adapter),
    ]
    print("requests \(requests), repetitions \(repetitions): CPU µs per request, min / median")
    for (name, instrumentation) in cases where only == nil || only == name {
        let client = APIClient(requestPerformer: performer, instrumentation: instrumentation)
        let figures = try await measure(client, requests: requests, repetitions: repetitions)
        let padded = name.padding(toLength: 8, withPad: " ", startingAt: 0)
        print(padded + String(format: "%.2f / %.2f", figures[0], figures[figures.count / 2]))
    }
}

let done = DispatchSemaphore(value: 0)
Task.detached {
    do {
        try await run()
    } catch {
        print("failed: \(error)")
        exit(1)
    }
    done.signal()
}
done.wait()

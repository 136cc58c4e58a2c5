import Foundation
import InMemoryTracing
import MetricsTestKit
import SluiceCore
import SluiceObservability
import SluiceTesting
import Testing
import Tracing

/// The metrics of requests against a loopback server, as swift-metrics' test kit records them: names, dimensions and
/// values.
@Suite struct MetricsTests {
    let server: LoopbackServer
    let backends = Backends()

    init() throws {
        server = try LoopbackServer()
        server.route("GET", "/users/7") { _ in .json(#"{"id": 7}"#) }
    }

    /// The origin's dimensions of every metric here.
    private var origin: [(String, String)] {
        [("server.address", "127.0.0.1"), ("server.port", String(server.port)), ("url.scheme", "http")]
    }

    /// `http.client.request.duration`: one value an attempt, the attempt span's length, under the conventions'
    /// dimensions.
    @Test func recordsEachAttemptsDurationWithTheConventionsDimensions() async throws {
        _ = try await backends.client(SocketRequestPerformer()).perform(GetUser(url: server.url("/users/7")))
        let timer = try backends.metrics.expectTimer(
            "http.client.request.duration",
            origin + [
                ("http.request.method", "GET"), ("network.protocol.version", "1.1"),
                ("http.response.status_code", "200"),
            ]
        )
        #expect(backends.metrics.timers(label: "http.client.request.duration").count == 1)
        let attempt = try #require(backends.spans.first { $0.kind == .client && $0.parentSpanID != nil })
        try #require(timer.values.count == 1)
        // The same two instants, each turned to the tracer's clock on its own: at most a nanosecond apart.
        #expect(abs(attempt.nanoseconds - timer.values[0]) <= 1)
    }

    /// A failed attempt's duration carries its status and `error.type`, the retry's its own.
    @Test func recordsAFailedAttemptWithItsErrorType() async throws {
        server.routeBusyOnce("/flaky")
        let client = backends.client(SocketRequestPerformer().retrying(.immediate))
        _ = try await client.perform(Fetch(url: server.url("/flaky")))
        let common = origin + [("http.request.method", "GET"), ("network.protocol.version", "1.1")]
        let failed = try backends.metrics.expectTimer(
            "http.client.request.duration",
            common + [("http.response.status_code", "503"), ("error.type", "503")]
        )
        let succeeded = try backends.metrics.expectTimer(
            "http.client.request.duration",
            common + [("http.response.status_code", "200")]
        )
        #expect(failed.values.count == 1)
        #expect(succeeded.values.count == 1)
    }

    /// A transport failure's duration has `error.type` and no status.
    @Test func recordsATransportFailureWithoutAStatus() async throws {
        server.route("GET", "/broken", response: LoopbackServer.Response(body: Data()).injecting(.closeWithoutResponse))
        let client = backends.client(SocketRequestPerformer())
        let error = await #expect(throws: SluiceError.self) {
            try await client.perform(Fetch(url: server.url("/broken")))
        }
        #expect(error.map { "\($0)" }?.contains("without sending a response") == true)
        let timers = backends.metrics.timers(label: "http.client.request.duration")
        try #require(timers.count == 1)
        let dimensions = Dictionary(timers[0].dimensions) { first, _ in first }
        #expect(dimensions["error.type"] == "transport")
        #expect(dimensions["http.response.status_code"] == nil)
    }

    /// `http.client.active_requests`: up while the request is in flight, down when it has ended.
    @Test func countsTheActiveRequests() async throws {
        let held = Held()
        held.route("/slow", on: server, answering: "late")
        let client = backends.client(SocketRequestPerformer())
        let url = server.url("/slow")
        let request = Task { try await client.perform(Fetch(url: url)) }
        await held.firstArrival()
        let meter = try backends.metrics.expectMeter(
            "http.client.active_requests",
            origin + [("http.request.method", "GET")]
        )
        #expect(meter.lastValue == 1)
        held.releaseOne()
        _ = try await request.value
        #expect(meter.values == [1, 0])
    }

    /// With a tracer that records nothing, the metrics are the same.
    @Test func recordsTheMetricsWithATracerThatRecordsNothing() async throws {
        let metrics = TestMetrics()
        let instrumentation = ObservabilityInstrumentation(tracer: NoOpTracer(), metricsFactory: metrics)
        let client = APIClient(requestPerformer: SocketRequestPerformer(), instrumentation: instrumentation)
        _ = try await client.perform(GetUser(url: server.url("/users/7")))
        let active = try metrics.expectMeter("http.client.active_requests", origin + [("http.request.method", "GET")])
        #expect(active.values == [1, 0])
        #expect(metrics.timers(label: "http.client.request.duration").first?.values.count == 1)
    }

    /// `http.client.open_connections` from the pool of the transport given the instrumentation: active while the
    /// exchange runs, then idle, then closed.
    @Test func countsThePoolsOpenConnectionsByState() async throws {
        let transport = SocketRequestPerformer(instrumentation: backends.instrumentation)
        _ = try await backends.client(transport).perform(GetUser(url: server.url("/users/7")))
        let active = try backends.metrics.expectMeter(
            "http.client.open_connections",
            origin + [("http.connection.state", "active")]
        )
        let idle = try backends.metrics.expectMeter(
            "http.client.open_connections",
            origin + [("http.connection.state", "idle")]
        )
        #expect(active.values == [1, 0])
        #expect(idle.values == [1])
        transport.closeIdleConnections()
        #expect(idle.values == [1, 0])
    }

    /// The connection's phases: a new connection's connect time; a kept-alive one adds none.
    @Test func recordsANewConnectionsConnectTime() async throws {
        let client = backends.client(SocketRequestPerformer())
        _ = try await client.perform(GetUser(url: server.url("/users/7")))
        _ = try await client.perform(GetUser(url: server.url("/users/7")))
        let connect = try backends.metrics.expectTimer(
            "sluice.http.client.connect.duration",
            origin + [("network.transport", "tcp")]
        )
        #expect(connect.values.count == 1)
        let phase = try #require(backends.spans(named: "connect").first)
        #expect(abs(phase.nanoseconds - connect.values[0]) <= 1)
        #expect(backends.metrics.timers(label: "http.client.request.duration").first?.values.count == 2)
    }

    /// The buckets the conventions advise, for every timer, from the core's list: 5 ms to 10 s.
    @Test func advisesTheConventionsBucketsForEveryTimer() {
        let buckets = ObservabilityInstrumentation.durationHistogramBuckets
        let advised: [Duration] = [
            .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(75),
            .milliseconds(100), .milliseconds(250), .milliseconds(500), .milliseconds(750), .seconds(1),
            .milliseconds(2_500), .seconds(5), .milliseconds(7_500), .seconds(10),
        ]
        let timers: [ObservabilityInstrumentation.Metric] = [
            .requestDuration, .timeInQueue, .dnsLookupDuration, .connectDuration, .tlsHandshakeDuration,
        ]
        #expect(buckets.keys.sorted() == timers.map(\.label).sorted())
        for timer in timers {
            #expect(buckets[timer.label] == advised, "\(timer)")
        }
    }
}

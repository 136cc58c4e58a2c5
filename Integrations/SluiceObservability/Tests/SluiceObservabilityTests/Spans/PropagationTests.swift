import Foundation
import InMemoryTracing
import SluiceCore
import SluiceObservability
import SluiceTesting
import Testing
import Tracing

/// The tracer's context on the wire: what its `inject` writes goes on each attempt's request.
@Suite struct PropagationTests {
    let server: LoopbackServer
    let backends = Backends()

    init() throws {
        server = try LoopbackServer()
    }

    /// Each attempt of a retried request carries its own span's context, as the server received it.
    @Test func sendsEachAttemptsOwnContext() async throws {
        server.routeBusyOnce("/flaky")
        _ = try await backends.client(SocketRequestPerformer().retrying(.immediate)).perform(
            Fetch(url: server.url("/flaky"))
        )
        let attempts = backends.spans.filter { $0.kind == .client && $0.parentSpanID != nil }
        try #require(attempts.count == 2)
        let received = server.receivedRequests
        #expect(received.map { $0.header(InMemoryTracer.spanIDKey) } == attempts.map(\.spanID))
        #expect(received.map { $0.header(InMemoryTracer.traceIDKey) } == attempts.map(\.traceID))
        #expect(backends.tracer.performedContextInjections.count == 2)
    }

    /// The fields go through URLSession's performer too.
    @Test func sendsTheContextThroughURLSession() async throws {
        server.route("GET", "/users/7") { _ in .json(#"{"id": 7}"#) }
        _ = try await backends.client(NetworkRequestPerformer()).perform(GetUser(url: server.url("/users/7")))
        let attempt = try #require(backends.spans.first { $0.kind == .client && $0.parentSpanID != nil })
        #expect(server.receivedRequests.first?.header(InMemoryTracer.spanIDKey) == attempt.spanID)
    }

    /// A tracer that propagates W3C trace context: its `traceparent` goes on the wire as it wrote it, replacing one
    /// the request had.
    @Test func sendsATraceparentReplacingTheRequestsOwn() async throws {
        server.route("GET", "/users/7") { _ in .json(#"{"id": 7}"#) }
        let tracer = TraceparentTracer()
        let instrumentation = ObservabilityInstrumentation(tracer: tracer)
        _ = try await APIClient(requestPerformer: SocketRequestPerformer(), instrumentation: instrumentation).perform(
            Fetch(url: server.url("/users/7"), field: ("traceparent", "00-stale-stale-00"))
        )
        let sent = try #require(server.receivedRequests.first)
        #expect(sent.headerValues("traceparent") == [tracer.traceparent])
    }
}

/// A tracer that writes a fixed W3C `traceparent` and records nothing: what swift-otel's propagator would write.
private struct TraceparentTracer: Tracer {
    let traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"

    func startSpan<Instant: TracerInstant>(
        _ operationName: String,
        context: @autoclosure () -> ServiceContext,
        ofKind kind: SpanKind,
        at instant: @autoclosure () -> Instant,
        function: String,
        file fileID: String,
        line: UInt
    ) -> NoOpTracer.NoOpSpan {
        NoOpTracer.NoOpSpan(context: context())
    }

    func forceFlush() {}

    func inject<Carrier, Inject: Injector>(
        _ context: ServiceContext,
        into carrier: inout Carrier,
        using injector: Inject
    ) where Carrier == Inject.Carrier {
        injector.inject(traceparent, forKey: "traceparent", into: &carrier)
    }

    func extract<Carrier, Extract: Extractor>(
        _ carrier: Carrier,
        into context: inout ServiceContext,
        using extractor: Extract
    ) where Carrier == Extract.Carrier {}
}

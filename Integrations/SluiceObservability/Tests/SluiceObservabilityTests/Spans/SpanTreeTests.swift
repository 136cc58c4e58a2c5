import Foundation
import InMemoryTracing
import SluiceCore
import SluiceObservability
import SluiceTesting
import Testing
import Tracing

/// The span trees of requests through Sluice's own transport, against a loopback server, as the in-memory tracer of
/// swift-distributed-tracing records them.
@Suite struct SpanTreeTests {
    let server: LoopbackServer
    let backends = Backends()

    init() throws {
        server = try LoopbackServer()
        server.route("GET", "/users/7") { _ in .json(#"{"id": 7}"#) }
    }

    /// One request: its span under the caller's current span, its stages under it, the attempt under the transport
    /// stage, the connection under the attempt; kinds, attributes and instants as the scopes had them.
    @Test func mapsAPlainRequestToASpanTreeUnderTheCallersSpan() async throws {
        let client = backends.client(SocketRequestPerformer())
        let url = server.url("/users/7")
        let tracer = backends.tracer
        try await tracer.withSpan("handler", ofKind: .server) { _ in
            _ = try await client.perform(GetUser(url: url))
        }
        let handler = try #require(backends.spans(named: "handler").first)
        let request = try #require(backends.children(of: handler).first)
        #expect(backends.children(of: handler).count == 1)
        #expect(request.operationName == "GET /users/{id}")
        #expect(request.kind == .client)
        #expect(request.traceID == handler.traceID)
        #expect(request.status == nil)
        #expect(request["http.request.method"] == .string("GET"))
        #expect(request["server.address"] == .string("127.0.0.1"))
        #expect(request["server.port"] == .int64(Int64(server.port)))
        #expect(request["url.full"] == .string("http://127.0.0.1:\(server.port)/users/7"))
        #expect(request["url.template"] == .string("/users/{id}"))
        #expect(request["http.response.status_code"] == .int64(200))
        #expect(request["http.response.body.size"] == .int64(9))
        #expect(request["error.type"] == nil)

        let stages = backends.children(of: request)
        #expect(stages.map(\.operationName).sorted() == ["build", "deserialize", "parse", "transport"])
        #expect(stages.allSatisfy { $0.kind == .internal && $0.lies(within: request) })
        let transport = try #require(backends.child(named: "transport", of: request))
        let attempt = try #require(backends.child(named: "GET /users/{id}", of: transport))
        #expect(attempt.kind == .client)
        #expect(attempt.lies(within: transport))
        #expect(attempt["sluice.attempt.reason"] == .string("first"))
        #expect(attempt["http.request.resend_count"] == nil)
        #expect(attempt["network.protocol.version"] == .string("1.1"))
        #expect(attempt["network.peer.address"] == .string("127.0.0.1"))
        #expect(attempt["network.peer.port"] == .int64(Int64(server.port)))
        let connection = try #require(backends.child(named: "connection", of: attempt))
        #expect(connection["sluice.connection.reused"] == .bool(false))
        #expect(connection["network.transport"] == .string("tcp"))
        let connect = try #require(backends.child(named: "connect", of: connection))
        #expect(connect.lies(within: connection))
        #expect(connection.lies(within: attempt))
    }

    /// Without the caller's span, a request's span is the root of a trace of its own.
    @Test func startsATraceOfItsOwnWithoutACurrentSpan() async throws {
        _ = try await backends.client(SocketRequestPerformer()).perform(GetUser(url: server.url("/users/7")))
        let roots = backends.spans.filter { $0.parentSpanID == nil }
        try #require(roots.count == 1)
        #expect(roots[0].operationName == "GET /users/{id}")
        #expect(backends.spans.allSatisfy { $0.traceID == roots[0].traceID })
        // The request, its four stages, the attempt, its connection and the connection's connect phase.
        #expect(backends.spans.count == 8)
    }

    /// The spans are placed on the wall clock the tracer reads: between its readings before and after the request,
    /// each child within its parent.
    @Test func placesTheSpansOnTheTracersClock() async throws {
        let before = DefaultTracerClock.now.nanosecondsSinceEpoch
        _ = try await backends.client(SocketRequestPerformer()).perform(GetUser(url: server.url("/users/7")))
        let after = DefaultTracerClock.now.nanosecondsSinceEpoch
        let request = try #require(backends.spans.first { $0.parentSpanID == nil })
        #expect(request.startInstant.nanosecondsSinceEpoch >= before)
        #expect(request.endInstant.nanosecondsSinceEpoch <= after)
        for span in backends.spans where span.spanID != request.spanID {
            let parent = try #require(backends.spans.first { $0.spanID == span.parentSpanID })
            #expect(span.lies(within: parent), "\(span.operationName) in \(parent.operationName)")
        }
    }

    /// With stage spans off, the attempt's span is the request's child and nothing else is made.
    @Test func keepsToTheRequestAndItsAttemptsWithoutStageSpans() async throws {
        let backends = Backends(recordsStageSpans: false)
        _ = try await backends.client(SocketRequestPerformer()).perform(GetUser(url: server.url("/users/7")))
        #expect(backends.spans.count == 2)
        let request = try #require(backends.spans.first { $0.parentSpanID == nil })
        let attempt = try #require(backends.children(of: request).first)
        #expect(attempt.kind == .client)
        #expect(attempt["network.peer.address"] == .string("127.0.0.1"))
    }

    /// A retried request: one attempt span per send under the transport stage, the first failed with its status as
    /// `error.type`, the second with its resend count; the request span succeeds.
    @Test func mapsARetriedRequestToTwoAttemptSpans() async throws {
        server.routeBusyOnce("/flaky")
        let client = backends.client(SocketRequestPerformer().retrying(.immediate))
        _ = try await client.perform(Fetch(url: server.url("/flaky")))
        let request = try #require(backends.spans(named: "GET").first { $0.parentSpanID == nil })
        #expect(request.status == nil)
        #expect(request["http.response.status_code"] == .int64(200))
        let transport = try #require(backends.child(named: "transport", of: request))
        let attempts = backends.children(of: transport).filter { $0.kind == .client }
        try #require(attempts.count == 2)
        #expect(attempts[0].status?.code == .error)
        #expect(attempts[0]["error.type"] == .string("503"))
        #expect(attempts[0]["http.response.status_code"] == .int64(503))
        #expect(attempts[0]["http.request.resend_count"] == nil)
        #expect(attempts[1].status == nil)
        #expect(attempts[1]["http.request.resend_count"] == .int64(1))
        #expect(attempts[1]["sluice.attempt.reason"] == .string("retry"))
        #expect(attempts[0].endInstant.nanosecondsSinceEpoch <= attempts[1].startInstant.nanosecondsSinceEpoch)
    }

    /// A redirect the transport follows: an attempt span per hop, the second with its hop and its own URL.
    @Test func mapsARedirectToAnAttemptSpanPerHop() async throws {
        server.route("GET", "/old") { _ in LoopbackServer.Response(status: 302, headers: [.init(.location, "/new")]) }
        server.route("GET", "/new") { _ in .json("{}") }
        _ = try await backends.client(SocketRequestPerformer()).perform(GetUser(url: server.url("/old")))
        let request = try #require(backends.spans.first { $0.parentSpanID == nil })
        let transport = try #require(backends.child(named: "transport", of: request))
        let attempts = backends.children(of: transport)
        try #require(attempts.count == 2)
        #expect(attempts.allSatisfy { $0.operationName == "GET /users/{id}" && $0.kind == .client })
        #expect(attempts[0]["http.response.status_code"] == .int64(302))
        #expect(attempts[0].status == nil)
        #expect(attempts[1]["sluice.attempt.reason"] == .string("redirect"))
        #expect(attempts[1]["sluice.attempt.redirect_hop"] == .int64(1))
        #expect(attempts[1]["url.full"] == .string("http://127.0.0.1:\(server.port)/new"))
        #expect(attempts[1]["url.template"] == nil)
    }

    /// A response the cache answers: a cache stage span with its outcome, and no attempt span.
    @Test func mapsACacheHitToACacheSpanWithoutAnAttempt() async throws {
        server.route("GET", "/cached") { _ in .text("stored").addingHeader("Cache-Control", "max-age=600") }
        let client = backends.client(SocketRequestPerformer().cached(in: HTTPCache()))
        _ = try await client.perform(Fetch(url: server.url("/cached")))
        backends.tracer.clearFinishedSpans()
        _ = try await client.perform(Fetch(url: server.url("/cached")))
        let request = try #require(backends.spans.first { $0.parentSpanID == nil })
        #expect(request["sluice.cache.outcome"] == .string("hit"))
        let transport = try #require(backends.child(named: "transport", of: request))
        let cache = try #require(backends.child(named: "cache", of: transport))
        #expect(cache["sluice.cache.outcome"] == .string("hit"))
        #expect(backends.spans.filter { $0.kind == .client }.map(\.spanID) == [request.spanID])
        #expect(server.receivedRequests.count == 1)
    }

    /// A cache's revalidation in the background: a trace of its own, marked `sluice.background`, whose request span
    /// links to the span of the request whose stale answer started it, from its start.
    @Test func linksABackgroundRevalidationToTheRequestThatStartedIt() async throws {
        server.route("GET", "/stale") { _ in
            .text("stored").addingHeader("Cache-Control", "max-age=0, stale-while-revalidate=600")
        }
        let client = backends.client(SocketRequestPerformer().cached(in: HTTPCache()))
        _ = try await client.perform(Fetch(url: server.url("/stale")))
        _ = try await client.perform(Fetch(url: server.url("/stale")))
        // The revalidation's request span ends after its attempt: the request spans of all three requests.
        try await yield(until: "the revalidation's request span") {
            backends.spans.filter { $0.parentSpanID == nil }.count == 3
        }
        let requests = backends.spans.filter { $0.parentSpanID == nil }
        let stale = try #require(requests.first { $0["sluice.cache.outcome"] == .string("stale-hit") })
        let background = try #require(requests.first { $0["sluice.background"] == .bool(true) })
        #expect(background.links.map(\.context.inMemorySpanContext) == [stale.spanContext])
        #expect(background.traceID != stale.traceID)
        let attempts = backends.spans.filter { $0.kind == .client && $0.parentSpanID != nil }
        #expect(attempts.filter { $0.traceID == background.traceID }.count == 1)
        #expect(attempts.filter { $0.traceID == stale.traceID }.isEmpty)
    }

    /// A de-duplicated burst: one attempt span, under the first caller's request; the others' request spans link to
    /// it, and have no attempt of their own.
    @Test func linksTheFollowersOfADeduplicatedBurstToTheLeadersAttempt() async throws {
        let held = Held()
        held.route("/feed", on: server, answering: "the feed")
        let performer = SocketRequestPerformer().deduplicated()
        let client = backends.client(performer)
        let url = server.url("/feed")
        let leader = Task { try await client.perform(Fetch(url: url)) }
        await held.firstArrival()
        let followers = (0..<3).map { _ in Task { try await client.perform(Fetch(url: url)) } }
        try await yield(until: "4 callers waiting") { performer.callersWaiting == 4 }
        held.releaseOne()
        for task in [leader] + followers {
            #expect(try await task.value == Data("the feed".utf8))
        }
        let attempts = backends.spans.filter { $0.kind == .client && $0.parentSpanID != nil }
        try #require(attempts.count == 1)
        let attempt = attempts[0]
        let requests = backends.spans.filter { $0.parentSpanID == nil }
        try #require(requests.count == 4)
        let transport = try #require(backends.spans.first { $0.spanID == attempt.parentSpanID })
        let owner = try #require(requests.first { $0.spanID == transport.parentSpanID })
        #expect(owner.links.isEmpty)
        for request in requests where request.spanID != owner.spanID {
            #expect(request.links.map(\.context.inMemorySpanContext) == [attempt.spanContext])
        }
    }

    /// A failed request: the request, its transport stage and its attempt have the status `error` and the error's
    /// `error.type`.
    @Test func marksTheSpansOfAFailedRequestAsErrors() async throws {
        server.route("GET", "/broken", response: LoopbackServer.Response(body: Data()).injecting(.closeWithoutResponse))
        let client = backends.client(SocketRequestPerformer())
        let error = await #expect(throws: SluiceError.self) {
            try await client.perform(Fetch(url: server.url("/broken")))
        }
        #expect(error?.code == .transport)
        let rendered = error.map { "\($0)" } ?? ""
        #expect(rendered.hasPrefix("error: the server closed the connection without sending a response"), "\(rendered)")
        let request = try #require(backends.spans.first { $0.parentSpanID == nil })
        let transport = try #require(backends.child(named: "transport", of: request))
        let attempt = try #require(backends.child(named: "GET", of: transport))
        for span in [request, transport, attempt] {
            #expect(span.status?.code == .error, "\(span.operationName)")
            #expect(span["error.type"] == .string("transport"), "\(span.operationName)")
        }
    }
}

import Foundation
import InMemoryTracing
import SluiceCore
import SluiceObservability
import SluiceTesting
import Testing
import Tracing

/// The spans of a streamed response and of a WebSocket, against a loopback server.
@Suite struct StreamAndWebSocketSpanTests {
    let server: LoopbackServer
    let backends = Backends()

    init() throws {
        server = try LoopbackServer()
    }

    /// A streamed response: the attempt's span ends with the head, the request's only when the body has been read,
    /// with the body's size.
    @Test func endsAStreamedRequestsSpanWithItsBody() async throws {
        let chunks: [LoopbackServer.Response.Chunk] = [.init(text: "one,"), .init(text: "two,"), .init(text: "three")]
        server.route("GET", "/export", response: .streamed(chunks))
        let client = backends.client(SocketRequestPerformer())
        let response = try await client.stream(Fetch(url: server.url("/export")))
        let attempt = try #require(backends.spans.first { $0.kind == .client })
        #expect(attempt["http.response.status_code"] == .int64(200))
        #expect(backends.tracer.activeSpans.map(\.operationName) == ["GET"])
        #expect(backends.spans.allSatisfy { $0.parentSpanID != nil })

        var body = Data()
        for try await chunk in response.body {
            body.append(chunk)
        }
        #expect(body == Data("one,two,three".utf8))
        let request = try #require(backends.spans.first { $0.parentSpanID == nil })
        #expect(request["http.response.body.size"] == .int64(13))
        #expect(request.status == nil)
        #expect(backends.tracer.activeSpans.isEmpty)
        let transport = try #require(backends.child(named: "transport", of: request))
        #expect(backends.children(of: transport).map(\.spanID) == [attempt.spanID])
        #expect(attempt.lies(within: request))
        // The stream's context went on the wire with its attempt.
        #expect(server.receivedRequests.first?.header(InMemoryTracer.spanIDKey) == attempt.spanID)
    }

    /// A WebSocket: its request's span, with the handshake's 101, its build and transport stages, and the handshake
    /// as the transport's attempt, whose context the server received.
    @Test func mapsAWebSocketsHandshakeToAnAttemptUnderItsRequest() async throws {
        server.route("GET", "/chat", response: .webSocket([.text("welcome"), .awaitClose]))
        var components = try #require(URLComponents(url: server.url("/chat"), resolvingAgainstBaseURL: false))
        components.scheme = "ws"
        let url = try #require(components.url)
        let socket = try await backends.client(SocketRequestPerformer()).webSocket(Fetch(url: url))
        #expect(try await socket.receive() == .text("welcome"))
        await socket.close()

        let request = try #require(backends.spans.first { $0.parentSpanID == nil })
        #expect(request.operationName == "GET")
        #expect(request.kind == .client)
        #expect(request["http.response.status_code"] == .int64(101))
        #expect(request["url.full"] == .string("ws://127.0.0.1:\(server.port)/chat"))
        #expect(request.status == nil)
        #expect(backends.children(of: request).map(\.operationName) == ["build", "transport"])
        let transport = try #require(backends.child(named: "transport", of: request))
        let attempt = try #require(backends.children(of: transport).first)
        #expect(attempt.kind == .client)
        #expect(attempt["http.response.status_code"] == .int64(101))
        let handshake = try #require(server.receivedRequests.first)
        #expect(handshake.header(InMemoryTracer.spanIDKey) == attempt.spanID)
    }
}

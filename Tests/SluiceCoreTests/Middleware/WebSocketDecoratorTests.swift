import ClientFixtures
import Foundation
import SluiceCore
import SluiceTesting
import Testing

/// The built-in decorators and the client on a WebSocket's handshake: what each does to it, over a scripted server.
@Suite struct WebSocketDecoratorTests {
    /// Waits of zero between attempts.
    let immediate = RetryingPerformer.Policy(maximumAttempts: 3, deadline: .seconds(20), randomFraction: { 0 })
    let clock = TestClock()

    /// A WebSocket endpoint described as a request.
    struct ChatRoom: Request {
        typealias ResponseObject = Void
        let id: Int

        func build() throws -> URLRequest {
            URLRequest(url: try testURL("wss://chat.example.com/rooms/\(id)"))
        }
    }

    /// A server that answers each handshake with the next outcome: a refusal with a status, or a scripted socket.
    final class Handshakes: RequestPerformer {
        enum Outcome: Sendable {
            case refuse(HTTPStatus, HTTPHeaders = [:])
            case open(MockClient.WebSocketScript)
            case fail(URLError.Code)
            /// What Sluice's transport throws when the server does not answer the handshake in time.
            case timeOut
        }

        private let outcomes: Locked<[Outcome]>
        private let received = Locked<[URLRequest]>([])

        init(_ outcomes: [Outcome]) {
            self.outcomes = Locked(outcomes)
        }

        var requests: [URLRequest] { received.withLock { $0 } }

        func perform(_ request: URLRequest) async throws -> HTTPResponse {
            Issue.record("a WebSocket's handshake went as an HTTP request")
            return HTTPResponse(status: .ok)
        }

        func webSocket(
            _ request: URLRequest,
            protocols: [String],
            configuration: WebSocket.Configuration
        ) async throws -> WebSocket {
            received.withLock { $0.append(request) }
            let outcome = outcomes.withLock { $0.isEmpty ? nil : $0.removeFirst() }
            switch outcome {
            case .refuse(let status, let headers):
                let stub = StubPerformer(always: HTTPResponse(status: status, headers: headers, url: request.url))
                return try await stub.webSocket(request, protocols: protocols, configuration: configuration)
            case .open(let server):
                return try await StubPerformer(webSocket: server).webSocket(
                    request,
                    protocols: protocols,
                    configuration: configuration
                )
            case .fail(let code):
                throw URLError(code)
            case .timeOut:
                throw SluiceError(
                    .timedOut,
                    stage: .handshake,
                    message: "the server did not answer the WebSocket handshake within 30 s",
                    request: request,
                    underlyingError: URLError(.timedOut)
                )
            case nil:
                throw URLError(.resourceUnavailable)
            }
        }
    }

    private func request() throws -> URLRequest {
        try ChatRoom(id: 7).build()
    }

    // MARK: - The client

    @Test func theClientBuildsTheRequestAndReportsTheHandshake() async throws {
        let server = MockClient.WebSocketScript([.text("welcome"), .close(.normalClosure)], subprotocols: ["chat.v2"])
        let base = Handshakes([.open(server)])
        let log = EventLog()
        let client = APIClient(requestPerformer: base.observed(by: log))
        let socket = try await client.webSocket(ChatRoom(id: 7), protocols: ["chat.v1", "chat.v2"])
        #expect(socket.subprotocol == "chat.v2")
        #expect(socket.response?.status.code == 101)
        #expect(try await socket.receive() == .text("welcome"))
        #expect(try await socket.receive() == nil)
        #expect(base.requests.map { $0.url?.absoluteString } == ["wss://chat.example.com/rooms/7"])
        #expect(log.events.map(\.kind) == [.started, .finished])
        #expect(log.events.last?.response?.status.code == 101)
        #expect(log.events.last?.error == nil)
    }

    @Test func aRefusedHandshakeFailsTheClientWithItsStatus() async throws {
        let client = APIClient(requestPerformer: Handshakes([.refuse(.forbidden)]))
        let error = await #expect(throws: SluiceError.self) {
            _ = try await client.webSocket(ChatRoom(id: 7))
        }
        #expect(error?.code == .handshake)
        #expect(error?.status == .forbidden)
        #expect(error?.request?.url?.absoluteString == "wss://chat.example.com/rooms/7")
        #expect(
            error?.message
                == "the WebSocket handshake failed: the server answered 403 Forbidden rather than 101 Switching Protocols"
        )
    }

    @Test func theClientsDeadlineBoundsTheHandshake() async throws {
        struct Silent: RequestPerformer {
            func perform(_ request: URLRequest) async throws -> HTTPResponse { HTTPResponse(status: .ok) }
            func webSocket(
                _ request: URLRequest,
                protocols: [String],
                configuration: WebSocket.Configuration
            ) async throws -> WebSocket {
                try await Task.sleep(for: .seconds(3600))
                throw CancellationError()
            }
        }
        let client = APIClient(requestPerformer: Silent(), deadline: .seconds(5), clock: clock)
        let clock = self.clock
        let opening = Task { try await client.webSocket(ChatRoom(id: 7)) }
        await clock.waitForSleepers()
        clock.advance(by: .seconds(5))
        let error = await #expect(throws: SluiceError.self) { _ = try await opening.value }
        #expect(error?.code == .timedOut)
        #expect(error?.message == "the request passed its deadline of 5.00s during the transport stage")
    }

    @Test func aPerformerThatOpensNoWebSocketsSaysSo() async throws {
        let client = APIClient(requestPerformer: StubPerformer.json("{}"))
        let error = await #expect(throws: SluiceError.self) {
            _ = try await client.webSocket(ChatRoom(id: 7))
        }
        #expect(error?.code == .handshake)
        #expect(
            error?.message
                == "the WebSocket handshake failed: the server answered 200 OK rather than 101 Switching Protocols"
        )

        struct HTTPOnly: RequestPerformer {
            func perform(_ request: URLRequest) async throws -> HTTPResponse { HTTPResponse(status: .ok) }
        }
        let plain = await #expect(throws: SluiceError.self) {
            _ = try await APIClient(requestPerformer: HTTPOnly().timeLimited(to: .seconds(5))).webSocket(
                ChatRoom(id: 7)
            )
        }
        #expect(
            plain?.message
                == "HTTPOnly does not open WebSockets (a decorator passes them on to the performer it wraps when it conforms to WrappingPerformer)"
        )
    }

    @Test func aWrappingPerformerOfYoursPassesTheHandshakeOn() async throws {
        struct UserAgentPerformer: WrappingPerformer {
            let base: any RequestPerformer

            func perform(_ request: URLRequest) async throws -> HTTPResponse {
                var request = request
                request.setValue("Catalog/2.1", forHTTPHeaderField: "User-Agent")
                return try await base.perform(request)
            }
        }
        let server = MockClient.WebSocketScript.echo()
        let socket = try await APIClient(requestPerformer: UserAgentPerformer(base: Handshakes([.open(server)])))
            .webSocket(ChatRoom(id: 7))
        try await socket.send(.text("through"))
        #expect(try await socket.receive() == .text("through"))
    }

    // MARK: - Authentication

    @Test func sendsTheCredentialAndRefreshesItAfterA401() async throws {
        let store = CredentialStore(
            credential: CredentialStore.Credential(authorization: "Bearer old"),
            hosts: ["chat.example.com"],
            refresh: { _ in CredentialStore.Credential(authorization: "Bearer new") }
        )
        let server = MockClient.WebSocketScript.echo()
        let base = Handshakes([.refuse(.unauthorized), .open(server)])
        let socket = try await base.authenticated(by: store).webSocket(try request())
        try await socket.send(.text("ping"))
        #expect(try await socket.receive() == .text("ping"))
        #expect(base.requests.map { $0.value(forHTTPHeaderField: "Authorization") } == ["Bearer old", "Bearer new"])
        #expect(await store.refreshes == 1)
    }

    @Test func aSecond401IsThrownAsItCame() async throws {
        let store = CredentialStore(
            credential: CredentialStore.Credential(authorization: "Bearer old"),
            hosts: ["chat.example.com"],
            refresh: { _ in CredentialStore.Credential(authorization: "Bearer new") }
        )
        let base = Handshakes([.refuse(.unauthorized), .refuse(.unauthorized)])
        let error = await #expect(throws: SluiceError.self) {
            _ = try await base.authenticated(by: store).webSocket(try request())
        }
        #expect(error?.status == .unauthorized)
        #expect(base.requests.count == 2)
    }

    // MARK: - Retry

    @Test func retriesARefusalWithARetryableStatusThenOpens() async throws {
        let server = MockClient.WebSocketScript([.text("up"), .close(.normalClosure)])
        let base = Handshakes([.refuse(.serviceUnavailable), .fail(.networkConnectionLost), .open(server)])
        let socket = try await base.retrying(immediate, clock: clock).webSocket(try request())
        #expect(try await socket.receive() == .text("up"))
        #expect(base.requests.count == 3)
    }

    @Test func waitsForRetryAfterBeforeTheNextHandshake() async throws {
        let server = MockClient.WebSocketScript([.close(.normalClosure)])
        let base = Handshakes([.refuse(.serviceUnavailable, [.retryAfter: "3"]), .open(server)])
        let performer = base.retrying(immediate, clock: clock)
        let request = try request()
        let opening = Task { try await performer.webSocket(request) }
        await clock.waitForSleepers()
        #expect(clock.sleepers == [clock.now.advanced(by: .seconds(3))])
        clock.advance(by: .seconds(3))
        _ = try await opening.value
        #expect(base.requests.count == 2)
    }

    @Test func aRefusalThatIsNotRetryableIsThrownAtOnce() async throws {
        let base = Handshakes([.refuse(.forbidden)])
        let error = await #expect(throws: SluiceError.self) {
            _ = try await base.retrying(immediate, clock: clock).webSocket(try request())
        }
        #expect(error?.status == .forbidden)
        #expect(base.requests.count == 1)
    }

    @Test func theLastRetryableRefusalIsThrownAfterEveryAttempt() async throws {
        let base = Handshakes(Array(repeating: .refuse(.badGateway), count: 3))
        let error = await #expect(throws: SluiceError.self) {
            _ = try await base.retrying(immediate, clock: clock).webSocket(try request())
        }
        #expect(error?.status == .badGateway)
        #expect(base.requests.count == 3)
    }

    // MARK: - Time limit and the rest

    @Test func aTimeLimitBoundsTheHandshakeOnly() async throws {
        let server = MockClient.WebSocketScript(
            [.pause(.seconds(60)), .text("late"), .close(.normalClosure)],
            clock: clock
        )
        let performer = Handshakes([.open(server)]).timeLimited(to: .seconds(5), clock: clock)
        let socket = try await performer.webSocket(try request())
        let clock = self.clock
        let reading = Task { try await socket.receive() }
        await clock.waitForSleepers()
        clock.advance(by: .seconds(60))
        #expect(try await reading.value == .text("late"), "the open socket outlived the time limit")
    }

    @Test func theCacheAndDeduplicationPassTheHandshakeOn() async throws {
        let cached = MockClient.WebSocketScript.echo()
        let base = Handshakes([.open(cached)])
        let socket = try await base.cached(in: HTTPCache()).webSocket(try request())
        try await socket.send(.text("cached"))
        #expect(try await socket.receive() == .text("cached"))

        let first = MockClient.WebSocketScript.echo()
        let second = MockClient.WebSocketScript.echo()
        let shared = Handshakes([.open(first), .open(second)])
        let deduplicated = shared.deduplicated()
        async let one = deduplicated.webSocket(try request())
        async let two = deduplicated.webSocket(try request())
        let sockets = try await [one, two]
        for (index, socket) in sockets.enumerated() {
            try await socket.send(.text("\(index)"))
            #expect(try await socket.receive() == .text("\(index)"))
        }
        #expect(shared.requests.count == 2, "identical handshakes in flight are never shared")
        #expect(first.sentMessages.count == 1 && second.sentMessages.count == 1)
    }

    @Test func aTimedOutHandshakeIsRetried() async throws {
        let server = MockClient.WebSocketScript([.text("up")])
        let base = Handshakes([.timeOut, .open(server)])
        let socket = try await base.retrying(immediate, clock: clock).webSocket(try request())
        #expect(try await socket.receive() == .text("up"))
        #expect(base.requests.count == 2)
    }
}

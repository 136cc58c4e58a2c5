public import SluiceCore

/// A `Client` for tests: answers requests from stubs matched in the order they were registered, and
/// checks afterwards that each stub was used as expected.
///
/// ```swift
/// let mock = MockClient()
/// mock.stub(GetUser.self, where: { $0.id == 42 }, .json(#"{"id": 42, "name": "Ada"}"#))
/// mock.stub(GetUser.self, .failure(SluiceError(.status, message: "not found")))
///
/// let model = ProfileModel(client: mock)
/// try await model.load(userID: 42)
/// try mock.verify()
/// ```
///
/// A stub matches by request type, by equality with a request value, or by a predicate; the first registered
/// stub that matches answers. A request that matches none fails at once with a `SluiceError` that lists
/// the request and every stub, so a missing stub never hangs a test.
///
/// A mock is injected into the code under test. To share one mock (held by an app's dependency container, say)
/// between tests that run in parallel, register stubs inside ``withScope(_:)``: they are seen only by the task
/// that registered them and its child tasks.
public final class MockClient: Client {
    /// The deserializer for HTTP responses of requests that name none.
    public let deserializer: any Deserializer
    /// The middleware an HTTP or stream stub's response passes through, as a client's performer chain would wrap the
    /// transport: an HTTP cache, a logger.
    public let middleware: @Sendable (any RequestPerformer) -> any RequestPerformer
    private let stubs = Locked<[MockClient.Stub]>([])
    private let identity = Identity()

    /// What identifies this mock in a task-local scope.
    private final class Identity: Sendable {}

    /// The stubs registered inside the current task's scope of one mock.
    private struct Scope: Sendable {
        let mock: ObjectIdentifier
        let stubs: Locked<[MockClient.Stub]>
    }

    @TaskLocal private static var scope: Scope?

    /// Creates a mock with no stubs.
    ///
    /// Stubs that answer with an HTTP response or a stream are played through `middleware`, so that the app's own
    /// chain (say, an `HTTPCache`) runs as it would over the network; a stub is counted as used whenever it matches,
    /// even when the middleware answers without it:
    ///
    /// ```swift
    /// let cache = HTTPCache()
    /// let mock = MockClient(middleware: { $0.cached(in: cache) })
    /// ```
    ///
    /// - Parameters:
    ///   - deserializer: The deserializer for HTTP responses; a `JSONDeserializer` by default.
    ///   - middleware: Wraps the performer that plays a stub's response; none by default.
    public init(
        deserializer: any Deserializer = JSONDeserializer(),
        middleware: @escaping @Sendable (any RequestPerformer) -> any RequestPerformer = { $0 }
    ) {
        self.deserializer = deserializer
        self.middleware = middleware
    }

    /// Runs an operation in which the stubs registered on this mock belong to the current task and its children
    /// only.
    ///
    /// - Parameter operation: The operation, typically a test's body.
    /// - Returns: What the operation returns.
    /// - Throws: What the operation throws.
    public func withScope<Result>(_ operation: () async throws -> Result) async rethrows -> Result {
        let scope = Scope(mock: ObjectIdentifier(identity), stubs: Locked([]))
        return try await MockClient.$scope.withValue(scope, operation: operation)
    }

    /// The stub table registrations and lookups use: the current scope's, or the mock's own.
    private var table: Locked<[MockClient.Stub]> {
        if let scope = MockClient.scope, scope.mock == ObjectIdentifier(identity) {
            return scope.stubs
        }
        return stubs
    }

    /// Registers a stub for every request of a type.
    ///
    /// - Parameters:
    ///   - type: The request type.
    ///   - response: The answer.
    /// - Returns: The stub, to set how often it is expected to be used.
    @discardableResult
    public func stub<R: Request>(_ type: R.Type, _ response: MockClient.Response<R.ResponseObject>) -> MockClient.Stub {
        register(MockClient.Stub(description: "any \(R.self)", matches: { $0 is R }, answer: response))
    }

    /// Registers a stub for the requests of a type that a predicate accepts.
    ///
    /// - Parameters:
    ///   - type: The request type.
    ///   - predicate: Whether a request of that type matches.
    ///   - response: The answer.
    /// - Returns: The stub, to set how often it is expected to be used.
    @discardableResult
    public func stub<R: Request>(
        _ type: R.Type,
        where predicate: @escaping @Sendable (R) -> Bool,
        _ response: MockClient.Response<R.ResponseObject>
    ) -> MockClient.Stub {
        register(
            MockClient.Stub(
                description: "\(R.self) matching a predicate",
                matches: { ($0 as? R).map(predicate) ?? false },
                answer: response
            )
        )
    }

    /// Registers a stub for the requests equal to a value.
    ///
    /// - Parameters:
    ///   - request: The request to match.
    ///   - response: The answer.
    /// - Returns: The stub, to set how often it is expected to be used.
    @discardableResult
    public func stub<R: Request & Equatable>(
        matching request: R,
        _ response: MockClient.Response<R.ResponseObject>
    ) -> MockClient.Stub {
        register(
            MockClient.Stub(description: "\(request)", matches: { ($0 as? R) == request }, answer: response)
        )
    }

    private func register(_ stub: MockClient.Stub) -> MockClient.Stub {
        table.withLock { $0.append(stub) }
        return stub
    }

    /// The stubs registered in the current scope, or on the mock outside any scope, in order.
    public var registeredStubs: [MockClient.Stub] { table.withLock { $0 } }

    /// Answers a request from the first stub that matches.
    ///
    /// - Parameter request: The request.
    /// - Returns: The stub's response object, or the one its HTTP response decodes to.
    /// - Throws: `SluiceError`: the stub's error, one from the request's own stages, or one listing the
    ///   stubs when none matches.
    public func perform<R: Request>(_ request: R) async throws(SluiceError) -> R.ResponseObject {
        let answer = try await answer(for: request)
        switch answer.content {
        case .value(let make):
            return make()
        case .failure(let error):
            throw error
        case .http(let response):
            // The real pipeline, with a performer that answers with this response.
            let client = APIClient(
                requestPerformer: middleware(StubPerformer(always: response)),
                deserializer: deserializer
            )
            return try await client.perform(request)
        case .stream(let script):
            let client = APIClient(
                requestPerformer: middleware(StubPerformer(streaming: script)),
                deserializer: deserializer
            )
            return try await client.perform(request)
        case .webSocket:
            throw SluiceError(
                .transport,
                message: "the stub for \(R.self) answers a WebSocket handshake; open it with webSocket(_:protocols:)"
            )
        }
    }

    /// Answers a request's stream from the first stub that matches, through the real client's status check and body
    /// errors.
    ///
    /// A ``MockClient/Response/stream(_:)`` stub plays its script; an HTTP response stub hands out its whole body as one
    /// chunk; a value stub cannot stream.
    ///
    /// - Parameter request: The request.
    /// - Returns: The streamed response.
    /// - Throws: `SluiceError`: the stub's error, one from the status check, or one listing the stubs when
    ///   none matches.
    public func stream<R: Request>(_ request: R) async throws(SluiceError) -> HTTPResponse.Streamed {
        let answer = try await answer(for: request)
        let performer: StubPerformer
        switch answer.content {
        case .value:
            throw SluiceError(.transport, message: "the stub for \(R.self) answers a value, which cannot be streamed")
        case .failure(let error):
            throw error
        case .http(let response):
            performer = StubPerformer(always: response)
        case .stream(let script):
            performer = StubPerformer(streaming: script)
        case .webSocket:
            throw SluiceError(.transport, message: "the stub for \(R.self) answers a WebSocket handshake, not a stream")
        }
        return try await APIClient(requestPerformer: middleware(performer), deserializer: deserializer).stream(request)
    }

    /// Opens a WebSocket from the first stub that matches, through the real client and the ``middleware``.
    ///
    /// A ``MockClient/Response/webSocket(_:)`` stub opens a WebSocket that plays its script; an HTTP response stub refuses
    /// the handshake with that response (a 401, say), as a server that does not switch protocols would; a failure
    /// stub throws its error.
    ///
    /// ```swift
    /// mock.stub(ChatRoom.self, .webSocket(MockClient.WebSocketScript([.text("welcome"), .close(.normalClosure)])))
    /// let socket = try await mock.webSocket(ChatRoom(id: 7))
    /// ```
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - protocols: The subprotocols to offer; the scripted server chooses the first it speaks.
    ///   - configuration: The WebSocket's configuration; the scripted server does not use it.
    /// - Returns: The open WebSocket.
    /// - Throws: `SluiceError`: the stub's error, the handshake's refusal, or one listing the stubs when none matches.
    public func webSocket<R: Request>(
        _ request: R,
        protocols: [String],
        configuration: WebSocket.Configuration
    ) async throws(SluiceError) -> WebSocket {
        let answer = try await answer(for: request)
        let performer: StubPerformer
        switch answer.content {
        case .value, .stream:
            throw SluiceError(.handshake, message: "the stub for \(R.self) answers no WebSocket handshake")
        case .failure(let error):
            throw error
        case .http(let response):
            performer = StubPerformer(always: response)
        case .webSocket(let socket):
            performer = StubPerformer(webSocket: socket)
        }
        return try await APIClient(requestPerformer: middleware(performer), deserializer: deserializer).webSocket(
            request,
            protocols: protocols,
            configuration: configuration
        )
    }

    /// The answer of the first stub that matches a request, after its delay.
    private func answer<R: Request>(for request: R) async throws(SluiceError) -> MockClient.Response<R.ResponseObject> {
        let candidates = table.withLock { $0 }
        // A request the client wrapped (to resume an event stream or a download) matches as the request it wraps.
        var matched: any Request = request
        while let wrapping = matched as? any WrappingRequest {
            matched = wrapping.wrappedRequest
        }
        guard let stub = candidates.first(where: { [matched] in $0.matches(matched) }) else {
            let listing =
                candidates.isEmpty
                ? "no stubs are registered"
                : "the stubs are:\n"
                    + candidates.enumerated().map { "  \($0.offset + 1). \($0.element.description)" }
                    .joined(separator: "\n")
            throw SluiceError(
                .transport,
                message: "MockClient has no stub for \(R.self): \(request); \(listing)",
                request: try? request.build()
            )
        }
        stub.recordCall()
        guard let answer = stub.answer as? MockClient.Response<R.ResponseObject> else {
            throw SluiceError(.transport, message: "the stub for \(stub.description) answers another type")
        }
        if answer.delay > .zero {
            do {
                try await Task.sleep(for: answer.delay)
            } catch {
                throw SluiceError(.cancelled, stage: .transport, underlyingError: error)
            }
        }
        return answer
    }

    /// Checks that every stub was used as expected: as many times as set with ``MockClient/Stub/expect(calls:)-(Int)`` or its
    /// range forms, or at least once.
    ///
    /// - Throws: ``SluiceTestingError`` listing every stub that was not.
    public func verify() throws(SluiceTestingError) {
        let failures = registeredStubs.compactMap(\.unmetExpectation)
        guard failures.isEmpty else {
            throw SluiceTestingError(unmetExpectations: failures)
        }
    }
}

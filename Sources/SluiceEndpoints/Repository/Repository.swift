/// The interface of the networking layer for higher layers such as view models: performs endpoint definitions
/// and publishes every request's progress on one event stream.
///
/// ```swift
/// let repository = Repository(server: Server([.production: URL(string: "https://api.example.com")!]))
/// let users = try await repository.perform(Following())
///
/// Task {
///     for await event in repository.events {
///         print(event)  // #1 request 1 GET Following [production] started, …
///     }
/// }
/// ```
///
/// Base URLs are configuration, not code: the repository's ``Server`` resolves each environment to one. An endpoint
/// that keeps the default environment, ``Environment/production``, is called in the server's
/// ``Server/environment``, so switching it at run time (`repository.server.environment = .staging`) redirects every
/// later request of those endpoints, as it does for declarative endpoints sharing the server. An endpoint that
/// declares another ``EndpointDefinition/environment`` is always called there. ``Environment/mock`` is served from
/// the fixtures registered with ``register(_:for:)`` through a stub performer: no connection is made. Setting
/// ``forcedEnvironment`` sends every endpoint, whatever it declares, to one environment, such as `.mock` for UI
/// tests.
///
/// Each subscriber of ``events`` has a buffer of ``eventBufferSize`` events. One that falls behind loses its oldest
/// undelivered events rather than slowing requests or growing memory; the events' sequence numbers show any gap.
public final class Repository: Sendable {
    /// The client that performs requests outside the mock environment.
    public let client: any Client
    /// The base URLs of the environments.
    public let server: Server
    /// The number of events each subscriber's buffer holds.
    public let eventBufferSize: Int

    private let hub = EventHub()
    private let state = Locked(
        (fixtures: [ObjectIdentifier: HTTPResponse](), forced: Environment?.none, requests: UInt64(0))
    )

    /// Creates a repository.
    ///
    /// - Parameters:
    ///   - client: The client for requests outside the mock environment; an ``APIClient`` by default.
    ///   - server: The base URLs of the environments.
    ///   - eventBufferSize: The number of events each subscriber's buffer holds; 256 by default.
    public init(client: any Client = APIClient(), server: Server, eventBufferSize: Int = 256) {
        self.client = client
        self.server = server
        self.eventBufferSize = eventBufferSize
    }

    /// The environment every endpoint is performed in, whatever it declares; `nil` (the default) lets each
    /// endpoint use its own, and the server's ``Server/environment`` for those that keep the default.
    public var forcedEnvironment: Environment? {
        get { state.withLock { $0.forced } }
        set { state.withLock { $0.forced = newValue } }
    }

    /// The repository's events from now on: every request's start and its success, failure or cancellation, in
    /// order.
    ///
    /// Each access subscribes again, and the first loop over the value sees every event from the access on. The
    /// subscription belongs to the loop: it ends, and is removed, when the loop ends (its iterator is released) or
    /// its task is cancelled, even if the value itself is kept. Looping over a kept value again subscribes from
    /// then on. See ``Repository/Events``.
    public var events: Repository.Events {
        Repository.Events(hub: hub, bufferSize: eventBufferSize)
    }

    /// The number of current subscriptions to ``events``: loops in progress, and values from ``events`` that no
    /// loop has iterated yet.
    public var subscriberCount: Int { hub.subscriberCount }

    /// Registers the response the mock environment gives an endpoint.
    ///
    /// - Parameters:
    ///   - fixture: The response, which goes through the same stages as a server's.
    ///   - endpoint: The endpoint definition's type.
    public func register<E: EndpointDefinition>(_ fixture: HTTPResponse, for endpoint: E.Type) {
        state.withLock { $0.fixtures[ObjectIdentifier(endpoint)] = fixture }
    }

    /// Registers a JSON body the mock environment answers an endpoint with.
    ///
    /// - Parameters:
    ///   - json: The body's JSON text.
    ///   - status: The status; 200 by default.
    ///   - endpoint: The endpoint definition's type.
    public func register<E: EndpointDefinition>(json: String, status: HTTPStatus = .ok, for endpoint: E.Type) {
        register(
            HTTPResponse(status: status, headers: [.contentType: "application/json"], body: Data(json.utf8)),
            for: endpoint
        )
    }

    /// Performs an endpoint and returns its result.
    ///
    /// - Parameter endpoint: The endpoint.
    /// - Returns: The response definition's ``ResponseDefinition/result``.
    /// - Throws: ``SluiceError`` naming the stage that failed.
    public func perform<E: EndpointDefinition>(_ endpoint: E) async throws(SluiceError) -> E.Response.Result {
        try await response(for: endpoint).result
    }

    /// Performs an endpoint and returns its response definition.
    ///
    /// - Parameter endpoint: The endpoint.
    /// - Returns: The response definition.
    /// - Throws: ``SluiceError`` naming the stage that failed.
    public func response<E: EndpointDefinition>(for endpoint: E) async throws(SluiceError) -> E.Response {
        let (forced, fixture, id) = state.withLock { state in
            state.requests += 1
            return (state.forced, state.fixtures[ObjectIdentifier(E.self)], state.requests)
        }
        let environment = forced ?? environment(of: E.self)
        let start = ContinuousClock.now
        let publish = { (kind: Repository.Event.Kind, error: SluiceError?) in
            self.hub.publish { sequence in
                Repository.Event(
                    kind: kind,
                    sequence: sequence,
                    requestID: id,
                    endpoint: "\(E.self)",
                    environment: environment,
                    method: endpoint.method,
                    elapsed: kind == .started ? .zero : ContinuousClock.now - start,
                    error: error
                )
            }
        }
        publish(.started, nil)
        do {
            let value = try await perform(endpoint, in: environment, fixture: fixture)
            publish(.succeeded, nil)
            return value
        } catch {
            publish(error.code == .cancelled ? .cancelled : .failed, error)
            throw error
        }
    }

    /// The environment an endpoint declares, or the server's current one for an endpoint that keeps the default.
    private func environment<E: EndpointDefinition>(of endpoint: E.Type) -> Environment {
        E.environment == .production ? server.environment : E.environment
    }

    private func perform<E: EndpointDefinition>(
        _ endpoint: E,
        in environment: Environment,
        fixture: HTTPResponse?
    ) async throws(SluiceError) -> E.Response {
        if environment == .mock {
            let baseURL = server.baseURLs[.mock] ?? Repository.mockURL
            guard let fixture else {
                throw SluiceError(
                    .transport,
                    message: "no fixture is registered for \(E.self) in the mock environment",
                    request: try? GenericRequest(endpoint, baseURL: baseURL).build()
                )
            }
            let fixtures = APIClient(requestPerformer: FixturePerformer(response: fixture))
            return try await fixtures.perform(GenericRequest(endpoint, baseURL: baseURL))
        }
        let baseURL: URL
        do {
            baseURL = try server.baseURL(for: environment)
        } catch {
            throw SluiceError(.build, underlyingError: error)
        }
        return try await client.perform(GenericRequest(endpoint, baseURL: baseURL))
    }

    /// The base URL of the mock environment when the server names none: a host under `.invalid`, which never
    /// resolves (RFC 6761).
    private static let mockURL = URL(string: "http://mock.invalid") ?? URL(fileURLWithPath: "/")
}

/// Answers every request with one fixture, without a network.
private struct FixturePerformer: RequestPerformer {
    let response: HTTPResponse

    func perform(_ request: URLRequest) async throws -> HTTPResponse {
        try Task.checkCancellation()
        var response = response
        response.url = request.url
        return response
    }
}

/// A performer that reports each request it carries to an observer: a start event now, and a finish event with
/// every stage's time when the client has run the whole pipeline.
///
/// ```swift
/// let client = APIClient(requestPerformer: NetworkRequestPerformer().observed(by: metrics))
/// ```
///
/// Placed outside a retrying performer it sees one request; inside, it is called for each attempt but still
/// reports the request once, with the number of attempts. It registers its observer in the request's
/// ``RequestContext``, whose owner sends the finish event: the client, or, used without one, the call itself (see
/// ``RequestContext/withContext(for:_:)``), which then reports the transport alone. A streamed request
/// (``stream(_:)``) is reported the same way; its body passes through unread, and its finish event comes when the body
/// ends, or when its reader leaves it before its end.
public final class ObservingPerformer: WrappingPerformer {
    /// The performer that sends the requests.
    public let base: any RequestPerformer
    /// The observer.
    public let observer: any RequestObserver

    /// Creates an observing performer.
    ///
    /// - Parameters:
    ///   - base: The performer that sends the requests.
    ///   - observer: The observer.
    public init(base: any RequestPerformer, observer: any RequestObserver) {
        self.base = base
        self.observer = observer
    }

    /// Reports the start of the request, sends it, and leaves the finish event to the context's owner.
    ///
    /// - Parameter request: The request.
    /// - Returns: The base performer's response.
    /// - Throws: What the base performer throws.
    public func perform(_ request: URLRequest) async throws -> HTTPResponse {
        try await RequestContext.withContext(for: request) { context in
            announce(request, in: context)
            return try await base.perform(request)
        }
    }

    /// Reports the start of the request, streams it, and leaves the finish event to the context's owner.
    ///
    /// The body is handed out untouched: the observer never reads it. Used without a client, the call owns its
    /// context and the finish event is sent when the body ends, with the bytes received (see
    /// ``RequestContext/runStreaming(_:)``).
    ///
    /// - Parameter request: The request.
    /// - Returns: The base performer's response.
    /// - Throws: What the base performer throws.
    public func stream(_ request: URLRequest) async throws -> HTTPResponse.Streamed {
        try await RequestContext.withContext(forStreaming: request) { context in
            announce(request, in: context)
            return try await base.stream(request)
        }
    }

    /// Reports the start of a WebSocket's handshake in the current request's context, and opens it through the base
    /// performer.
    ///
    /// Through a client, the finish event comes when the handshake has succeeded or failed; used without one, there
    /// is no context to report in, and the handshake passes through unreported.
    ///
    /// - Parameters:
    ///   - request: The handshake's request.
    ///   - protocols: The subprotocols to offer.
    ///   - configuration: The WebSocket's limits and timers.
    /// - Returns: The base performer's WebSocket.
    /// - Throws: What the base performer throws.
    public func webSocket(
        _ request: URLRequest,
        protocols: [String],
        configuration: WebSocket.Configuration
    ) async throws -> WebSocket {
        if let context = RequestContext.current {
            announce(request, in: context)
        }
        return try await base.webSocket(request, protocols: protocols, configuration: configuration)
    }

    /// Registers the observer in the request's context and sends it the start event, once per request.
    private func announce(_ request: URLRequest, in context: RequestContext) {
        guard context.register(observer, id: ObjectIdentifier(self)) else { return }
        observer.observe(
            RequestEvent(
                kind: .started,
                id: context.id,
                request: request,
                attempts: max(context.attempts, 1),
                credentials: context.credentials
            )
        )
    }
}

extension RequestPerformer {
    /// This performer, reporting each request to an observer.
    ///
    /// - Parameter observer: The observer.
    /// - Returns: The observing performer.
    public func observed(by observer: any RequestObserver) -> ObservingPerformer {
        ObservingPerformer(base: self, observer: observer)
    }
}

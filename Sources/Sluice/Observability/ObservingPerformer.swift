/// A performer that reports each request it carries to an observer: a start event now, and a finish event with
/// every stage's time when the client has run the whole pipeline.
///
/// ```swift
/// let client = APIClient(requestPerformer: NetworkRequestPerformer().observed(by: metrics))
/// ```
///
/// Placed outside a retrying performer it sees one request; inside, it is called for each attempt but still
/// reports the request once, with the number of attempts. Used without an ``APIClient`` around it, it reports the
/// transport alone.
public final class ObservingPerformer: RequestPerformer {
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

    /// Reports the start of the request, sends it, and leaves the finish event to the client.
    ///
    /// - Parameter request: The request.
    /// - Returns: The base performer's response.
    /// - Throws: What the base performer throws.
    public func perform(_ request: URLRequest) async throws -> HTTPResponse {
        if let context = RequestContext.current {
            if context.register(observer, id: ObjectIdentifier(self)) {
                observer.observe(
                    RequestEvent(kind: .started, id: context.id, request: request, attempts: context.attempts)
                )
            }
            return try await base.perform(request)
        }
        // No client: the transport is the whole request.
        let id = UInt64.random(in: 1...UInt64.max)
        observer.observe(RequestEvent(kind: .started, id: id, request: request))
        let start = ContinuousClock.now
        var metrics = PipelineMetrics()
        metrics.requestBodyBytes = request.httpBody?.count ?? 0
        do {
            let response = try await base.perform(request)
            metrics.transport = ContinuousClock.now - start
            metrics.responseBodyBytes = response.body.count
            observer.observe(
                RequestEvent(kind: .finished, id: id, request: request, response: response, metrics: metrics)
            )
            return response
        } catch {
            metrics.transport = ContinuousClock.now - start
            let failure = APIClient.transportError(error, request: request)
            observer.observe(RequestEvent(kind: .finished, id: id, request: request, error: failure, metrics: metrics))
            throw error
        }
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

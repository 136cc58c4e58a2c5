extension RequestContext {
    /// Runs a performer's call in the current request's context, or as a request of its own when there is none.
    ///
    /// Inside a client (or another call that owns a context), `body` receives ``current`` and the owner sends the
    /// finish event. Called directly, with no context around, the call is the whole request: a new context is made
    /// for `request` and bound while `body` runs, and when `body` ends the observers registered in it receive their
    /// finish event, with the transport's time. Either way a performer has one code path.
    ///
    /// - Parameters:
    ///   - request: The request the performer received, for a context of its own.
    ///   - body: The call, given the context.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws.
    public static func withContext(
        for request: URLRequest,
        _ body: (RequestContext) async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        if let current {
            return try await body(current)
        }
        return try await RequestContext(request: request).run(body)
    }

    /// Runs a call as this context's owner: binds the context as ``current`` while `body` runs, then sends the
    /// observers registered in it their finish event, with the transport's time and the outcome.
    ///
    /// ``withContext(for:_:)`` runs a call with no context around this way; ``DeduplicatingPerformer`` runs its
    /// shared call this way, under a context of its own rather than the first caller's.
    ///
    /// - Parameter body: The call, given the context.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws.
    public func run(_ body: (RequestContext) async throws -> HTTPResponse) async throws -> HTTPResponse {
        let clock = ContinuousClock()
        let start = clock.now
        var metrics = PipelineMetrics()
        metrics.requestBodyBytes = request.httpBody?.count ?? 0
        do {
            let response = try await withCurrent { try await body(self) }
            metrics.transport = clock.now - start
            metrics.responseBodyBytes = response.body.count
            finish(response: response, error: nil, metrics: metrics)
            return response
        } catch {
            metrics.transport = clock.now - start
            var failure = APIClient.transportError(error, request: request)
            failure.attempts = max(attempts, failure.attempts)
            if failure.attemptFailures.isEmpty {
                failure.attemptFailures = failures
            }
            failure.metrics = metrics
            finish(response: nil, error: failure, metrics: metrics)
            throw error
        }
    }

    /// Runs `body` with this context as ``current``.
    ///
    /// A client binds each request's context around its transport stage with it.
    ///
    /// - Parameters:
    ///   - isolation: The caller's isolation, inherited.
    ///   - body: The work that sees the context.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws.
    public func withCurrent<Result>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> Result
    ) async rethrows -> Result {
        try await RequestContext.$current.withValue(self, operation: body)
    }

    /// Sends the observers registered for the request their finish event.
    ///
    /// The context's owner calls it once, when the request has its outcome: ``APIClient`` when the whole pipeline
    /// has run, ``run(_:)`` when its call ends.
    ///
    /// - Parameters:
    ///   - response: The response, when one arrived.
    ///   - error: The error, for a request that failed.
    ///   - metrics: The stage times and byte counts.
    public func finish(response: HTTPResponse?, error: SluiceError?, metrics: PipelineMetrics) {
        let observers = self.observers
        guard !observers.isEmpty else { return }
        let event = RequestEvent(
            kind: .finished,
            id: id,
            request: request,
            response: response,
            error: error,
            metrics: metrics,
            attempts: max(attempts, 1),
            credentials: credentials
        )
        for observer in observers {
            observer.observe(event)
        }
    }
}

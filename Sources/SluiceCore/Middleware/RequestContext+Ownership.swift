extension RequestContext {
    /// Runs a performer's call in the current request's context, or as a request of its own when there is none.
    ///
    /// Inside a client (or another call that owns a context), `body` receives ``current`` and the owner sends the
    /// finish event. Called directly, with no context around, the call is the whole request: a new context is made
    /// for `request` and bound while `body` runs, and when `body` ends the observers registered in it receive their
    /// finish event, with the transport's time. Either way a performer has one code path. A performer's
    /// ``RequestPerformer/stream(_:)`` uses ``withContext(forStreaming:_:)`` instead.
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

    /// Runs a performer's streaming call in the current request's context, or as a request of its own when there is
    /// none.
    ///
    /// The form of ``withContext(for:_:)`` for ``RequestPerformer/stream(_:)``. Inside a client (or another call
    /// that owns a context), `body` receives ``current`` and the owner sends the finish event. Called directly, with
    /// no context around, the call is the whole request: a new context is made for `request`, and the call owns it
    /// until the body it returns has ended, as ``runStreaming(_:)`` describes.
    ///
    /// - Parameters:
    ///   - request: The request the performer received, for a context of its own.
    ///   - body: The call, given the context.
    /// - Returns: What `body` returns; with a context of its own, the same response whose body sends the finish event
    ///   when it ends.
    /// - Throws: What `body` throws.
    public static func withContext(
        forStreaming request: URLRequest,
        _ body: (RequestContext) async throws -> HTTPResponse.Streamed
    ) async throws -> HTTPResponse.Streamed {
        if let current {
            return try await body(current)
        }
        return try await RequestContext(request: request).runStreaming(body)
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
        let start = ContinuousClock.now
        do {
            let response = try await withCurrent { try await body(self) }
            finishCall(since: start, response: response, bodyBytes: response.body.count, error: nil)
            return response
        } catch {
            finishCall(since: start, response: nil, bodyBytes: 0, error: error)
            throw error
        }
    }

    /// Runs a streaming call as this context's owner: binds the context as ``current`` while `body` runs, until the
    /// head has arrived, and sends the observers registered in it their finish event when the request has its
    /// outcome.
    ///
    /// A streamed request has its outcome when its body ends, not when its head arrives, so the finish event is sent
    /// then, once: when the body has been read to its end; when it fails, with the error; or when its reader is
    /// cancelled or leaves it before its end (its iterator released, as when a loop is left early, even while the
    /// response is still held; or the body released unread), as a cancelled request. The event's response is the
    /// head with an empty body (the body was handed out, not kept, so no observer reads it); its metrics count the
    /// body's bytes received in ``PipelineMetrics/responseBodyBytes`` and the time from the call to the body's end
    /// in ``PipelineMetrics/transport``. A call that throws before the head sends the event at once, with the error.
    ///
    /// ``withContext(forStreaming:_:)`` runs a streaming call with no context around this way.
    ///
    /// - Parameter body: The call, given the context.
    /// - Returns: The response `body` returns, with a body that sends the finish event when it ends.
    /// - Throws: What `body` throws.
    public func runStreaming(
        _ body: (RequestContext) async throws -> HTTPResponse.Streamed
    ) async throws -> HTTPResponse.Streamed {
        let start = ContinuousClock.now
        let response: HTTPResponse.Streamed
        do {
            response = try await withCurrent { try await body(self) }
        } catch {
            finishCall(since: start, response: nil, bodyBytes: 0, error: error)
            throw error
        }
        let end = StreamedCallEnd(
            context: self,
            start: start,
            head: HTTPResponse(status: response.status, headers: response.headers, url: response.url)
        )
        return response.replacingBody(with: response.body.relayed { try await end.next(from: &$0) })
    }

    /// Sends the finish event of a call this context owns, which began at `start`: with the response, or with the
    /// error as the client reports it, the attempts and their failures.
    fileprivate func finishCall(
        since start: ContinuousClock.Instant,
        response: HTTPResponse?,
        bodyBytes: Int,
        error: (any Error)?
    ) {
        var metrics = PipelineMetrics()
        metrics.requestBodyBytes = request.httpBody?.count ?? 0
        metrics.responseBodyBytes = bodyBytes
        metrics.transport = ContinuousClock.now - start
        guard let error else {
            finish(response: response, error: nil, metrics: metrics)
            return
        }
        var failure = APIClient.transportError(error, request: request)
        failure.attempts = max(attempts, failure.attempts)
        if failure.attemptFailures.isEmpty {
            failure.attemptFailures = failures
        }
        failure.metrics = metrics
        finish(response: nil, error: failure, metrics: metrics)
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
        try await TransportScope.$current.withValue(self, operation: body)
    }

    /// Runs `body` outside the current request's context, where ``current`` is `nil`.
    ///
    /// A performer that sends a request of its own while carrying another (fetching a token, say) sends it this way,
    /// so that the performers it goes through see a request of its own rather than count and rebuild the carried one.
    ///
    /// - Parameters:
    ///   - isolation: The caller's isolation, inherited.
    ///   - body: The work that sees no context.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws.
    public static func withoutCurrent<Result>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> Result
    ) async rethrows -> Result {
        try await TransportScope.$current.withValue(nil, operation: body)
    }

    /// Sends the observers registered for the request their finish event.
    ///
    /// The context's owner calls it once, when the request has its outcome: ``APIClient`` when the whole pipeline
    /// has run, ``run(_:)`` when its call ends, ``runStreaming(_:)`` when the body of its call ends.
    ///
    /// - Parameters:
    ///   - response: The response, when one arrived.
    ///   - error: The error, for a request that failed.
    ///   - metrics: The stage times and byte counts.
    public func finish(response: HTTPResponse?, error: SluiceError?, metrics: PipelineMetrics) {
        tracing?.endRequest(response: response, error: error, metrics: metrics, context: self)
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
            credentials: credentials,
            warnings: warnings
        )
        for observer in observers {
            observer.observe(event)
        }
    }
}

/// The end of a streamed call that owns its context: counts the body's bytes as they are read, and sends the finish
/// event once, when the body ends, fails, or is dropped before its end.
private final class StreamedCallEnd: Sendable {
    private let context: RequestContext
    private let start: ContinuousClock.Instant
    /// The response's head, with an empty body, for the finish event.
    private let head: HTTPResponse
    private let state = Locked((bytes: 0, ended: false))

    init(context: RequestContext, start: ContinuousClock.Instant, head: HTTPResponse) {
        self.context = context
        self.start = start
        self.head = head
    }

    /// Reads the next chunk, counting it, and ends the call at the body's end or its failure.
    func next(from chunks: inout HTTPBody.AsyncIterator) async throws -> Data? {
        let chunk: Data?
        do {
            chunk = try await chunks.next()
        } catch {
            end(error)
            throw error
        }
        if let chunk {
            state.withLock { $0.bytes += chunk.count }
        } else {
            end(nil)
        }
        return chunk
    }

    /// Sends the finish event, the first time only.
    private func end(_ error: (any Error)?) {
        let bytes = state.withLock { state -> Int? in
            guard !state.ended else { return nil }
            state.ended = true
            return state.bytes
        }
        guard let bytes else { return }
        context.finishCall(since: start, response: error == nil ? head : nil, bodyBytes: bytes, error: error)
    }

    /// A body left before its end ends the call as cancelled: this is released with the body's iterator when its
    /// reader leaves it (a loop left early), or with the body when it is released unread.
    deinit {
        end(CancellationError())
    }
}

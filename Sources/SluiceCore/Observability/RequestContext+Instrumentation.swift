extension RequestContext {
    /// The request's scope, where the client's ``RequestInstrumentation`` keeps what it made for the request (its
    /// span) in ``InstrumentationScope/state``; `nil` when the client installed none.
    ///
    /// A performer of yours reads it to put its own work under the request's span.
    public var instrumentationScope: InstrumentationScope? { tracing?.request }

    /// Notes why the next attempt on the wire is sent, for its `sluice.attempt.reason`: ``AuthenticatingPerformer``
    /// notes `authentication` before it replays a request after 401.
    ///
    /// Without a note an attempt's reason is `first`, `retry` for any later one, or `redirect`. Nothing happens when
    /// the client installed no instrumentation.
    ///
    /// - Parameter reason: The reason, one word.
    public func noteReplay(_ reason: String) {
        tracing?.noteReplay(reason)
    }

    /// Begins an attempt on the wire for the instrumentation, which may write its fields into the request.
    ///
    /// - Parameters:
    ///   - request: The request about to be sent.
    ///   - redirectHop: 0 for the request itself, then the number of the redirect being followed.
    /// - Returns: The attempt to report to, or `nil` without an instrumentation.
    package func beginWireAttempt(_ request: inout URLRequest, redirectHop: Int) -> (any WireAttempt)? {
        guard let tracing else { return nil }
        return tracing.beginAttempt(&request, redirectHop: redirectHop, context: self)
    }

    /// The context of a call a performer makes on behalf of the current request and others that join it, such as
    /// ``DeduplicatingPerformer``'s: its attempts go under the current request's, and the others link to them.
    static func shared(for request: URLRequest) -> RequestContext {
        let caller = current?.tracing
        return RequestContext(request: request, builtBy: nil) { _ in
            caller.map { RequestTracing(sharing: $0, request: request) }
        }
    }

    /// The context of work a performer does in the background for the current request, such as a cache's
    /// revalidation: a request of its own, with its own scope linked to the current request's.
    static func background(for request: URLRequest) -> RequestContext {
        let caller = current?.tracing
        return RequestContext(request: request, builtBy: nil) { id in
            guard let caller else { return nil }
            return RequestTracing(
                caller.instrumentation,
                request: request,
                id: id,
                template: nil,
                start: .now,
                background: true,
                links: caller.request.map { [$0] } ?? []
            )
        }
    }
}

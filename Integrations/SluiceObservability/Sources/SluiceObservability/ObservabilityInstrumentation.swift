public import Logging
public import Metrics
public import SluiceCore
public import Tracing

/// A ``RequestInstrumentation`` that turns a Sluice client's requests into the spans of a swift-distributed-tracing
/// `Tracer`, the metrics of a swift-metrics `MetricsFactory`, and the records of a swift-log `Logger`, with the names
/// of OpenTelemetry's HTTP client conventions.
///
/// Give the same one to the client, for its requests, and to the transport, for its pool of connections:
///
/// ```swift
/// let instrumentation = ObservabilityInstrumentation(logger: Logger(label: "api"))
/// let transport = SocketRequestPerformer(instrumentation: instrumentation)
/// let client = APIClient(requestPerformer: transport.retrying(), instrumentation: instrumentation)
/// ```
///
/// - **Spans.** Each ``InstrumentationScope`` is a span: the request and each attempt on the wire of kind `client`,
///   the pipeline's stages and the connection's phases of kind `internal`. A request's span is the child of
///   `ServiceContext.current` when it begins, every other span the child of its scope's parent; each starts and ends
///   at its scope's instants, and carries its scope's attributes under their OpenTelemetry names. A failed scope has
///   the status `error`, with its `error.type`; a scope's links (a de-duplicated request's to the attempt it shared,
///   a background revalidation's to the request that started it) are span links. Each attempt carries the tracer's
///   context on the wire, such as W3C `traceparent`, through the tracer's `inject`.
/// - **Metrics.** `http.client.request.duration` for each attempt, `http.client.active_requests`,
///   `http.client.open_connections`, and the connection's phases (see ``Metric``). A backend chooses a histogram's
///   buckets itself: ``durationHistogramBuckets`` holds those the conventions advise, by metric.
/// - **Logs.** The request's own ``LogRecord``s go to `logger`, the pool's to `poolLogger`, at their levels, with their
///   metadata (already redacted) and, for a request's, under its span's context, so that a logging metadata provider
///   can add the trace and span ids.
public struct ObservabilityInstrumentation: RequestInstrumentation {
    /// The tracer of every span, or `nil` for `InstrumentationSystem.tracer`, read when each request begins.
    public var tracer: (any Tracer)?
    /// Whether the pipeline's stages and the connection's phases are spans too, rather than only the request and its
    /// attempts; a request whose span records nothing has no stage spans either (``recordsStages(of:)``).
    public var recordsStageSpans: Bool
    /// The factory of every metric, or `nil` for `MetricsSystem.factory`, read as each is recorded.
    public var metricsFactory: (any MetricsFactory)?
    /// Where the request's own records go, or `nil` for none.
    public var logger: Logger?
    /// Where the pool's records go (connections opened, closed, evicted), or `nil` for none.
    public var poolLogger: Logger?

    /// Creates an instrumentation.
    ///
    /// - Parameters:
    ///   - tracer: The tracer of every span; `nil`, the default, for `InstrumentationSystem.tracer` when each request
    ///     begins. Give `NoOpTracer()` for no spans.
    ///   - recordsStageSpans: Whether the stages (build, cache, transport, deserialize, parse) and the connection's
    ///     phases (queue, DNS, connect, TLS) are spans too; the request's and the attempts' always are.
    ///   - metricsFactory: The factory of every metric; `nil`, the default, for `MetricsSystem.factory`. Give
    ///     `NOOPMetricsHandler.instance` for no metrics.
    ///   - logger: Where the request's own records go; `nil`, the default, for none. Its `logLevel` is the least
    ///     severe level sent to it.
    ///   - poolLogger: Where the pool's records go; `nil`, the default, for `logger`. Set ``poolLogger`` to `nil`
    ///     afterwards for none.
    public init(
        tracer: (any Tracer)? = nil,
        recordsStageSpans: Bool = true,
        metricsFactory: (any MetricsFactory)? = nil,
        logger: Logger? = nil,
        poolLogger: Logger? = nil
    ) {
        self.tracer = tracer
        self.recordsStageSpans = recordsStageSpans
        self.metricsFactory = metricsFactory
        self.logger = logger
        self.poolLogger = poolLogger ?? logger
    }

    /// Starts the scope's span, and counts an active request for a request's scope.
    ///
    /// - Parameter scope: The scope.
    public func begin(_ scope: InstrumentationScope) {
        let active = scope.kind == .request ? activeRequests(of: scope) : nil
        active?.increment()
        scope.state = beginSpan(for: scope, activeRequests: active)
    }

    /// Ends the scope's span at its end, with its attributes, status and links, and records its metrics.
    ///
    /// - Parameter scope: The scope.
    public func end(_ scope: InstrumentationScope) {
        endSpan(of: scope)
        recordMetrics(of: scope)
    }

    /// Whether the request's stages are spans: with ``recordsStageSpans``, for a request whose span records.
    ///
    /// The span of a stage would be the child of one that records nothing (`NoOpTracer`'s, or one a sampler dropped),
    /// so the pipeline is spared making the stages at all; no metric is made from a stage.
    ///
    /// - Parameter request: The request's scope, whose span has begun.
    /// - Returns: Whether to make the stages' scopes.
    public func recordsStages(of request: InstrumentationScope) -> Bool {
        guard recordsStageSpans, let state = request.state as? ScopeState else { return false }
        return state.span?.isRecording ?? false
    }

    /// Writes the tracer's context of the attempt's span, such as W3C `traceparent`, into the attempt's fields.
    ///
    /// - Parameters:
    ///   - headers: The attempt's header fields.
    ///   - attempt: The attempt's scope, whose span has begun.
    public func inject(into headers: inout HTTPHeaders, for attempt: InstrumentationScope) {
        guard let span = attempt.state as? ScopeState else { return }
        span.tracer.inject(span.context, into: &headers, using: HTTPHeadersInjector())
    }
}

/// Receives the scopes of the requests a client performs as they begin and end, to turn them into spans, metrics or
/// logs: the request, each attempt on the wire, each pipeline stage, and the connection each attempt took.
///
/// Install one on the client; a client without one makes no scope and reads no extra clock:
///
/// ```swift
/// let client = APIClient(requestPerformer: SocketRequestPerformer(), instrumentation: tracer)
/// ```
///
/// Every call is made on the task performing the request, in order: a scope begins before its children and ends
/// after them. Each ``InstrumentationScope`` carries its start and end as `ContinuousClock` instants, the clock
/// ``PipelineMetrics`` measures on, and its attributes under OpenTelemetry's names (``InstrumentationScope/Key``).
/// What the instrumentation makes for a scope (its span) it keeps in the scope's ``InstrumentationScope/state``,
/// where the scope's children find their parent's; the request's is also ``RequestContext/instrumentationScope``.
///
/// A custom instrumentation implements ``begin(_:)`` and ``end(_:)``; this one prints each attempt:
///
/// ```swift
/// struct AttemptPrinter: RequestInstrumentation {
///     func begin(_ scope: InstrumentationScope) {}
///
///     func end(_ scope: InstrumentationScope) {
///         guard scope.kind == .attempt, let end = scope.end else { return }
///         let status = scope.attributes[.httpResponseStatusCode]?.description ?? "-"
///         print(scope.name, status, scope.start.duration(to: end))
///     }
/// }
/// ```
///
/// See <doc:ObservingRequests> for the tree of scopes and the attributes of each.
public protocol RequestInstrumentation: Sendable {
    /// A scope has begun: its ``InstrumentationScope/start`` and the attributes known then are set.
    ///
    /// - Parameter scope: The scope; its parent has begun already.
    func begin(_ scope: InstrumentationScope)

    /// A scope has ended: its ``InstrumentationScope/end``, every attribute, its failure and its links are set.
    ///
    /// - Parameter scope: The scope; its children have ended already.
    func end(_ scope: InstrumentationScope)

    /// Whether a request is to have a scope for each stage of its pipeline (build, cache, transport, deserialize,
    /// parse), asked once, just after ``begin(_:)`` for the request's scope.
    ///
    /// An instrumentation that makes nothing of a request's stages answers `false`, and the pipeline then makes none
    /// for it, nor pays for them: its attempts go directly under the request's scope. The request's scope, its
    /// attempts and their connections are made whatever the answer.
    ///
    /// - Parameter request: The request's scope, begun.
    /// - Returns: Whether to make the stages' scopes.
    func recordsStages(of request: InstrumentationScope) -> Bool

    /// Writes what the instrumentation propagates, such as W3C `traceparent` and `tracestate`, into the header fields
    /// of an attempt about to be sent.
    ///
    /// Called after ``begin(_:)`` for the attempt, after every middleware and before the transport, so that each
    /// attempt (a retry, a replay after 401, a redirect) carries its own. The fields written here are not part of the
    /// key a ``CachingPerformer`` matches variants on: the cache looks before the attempt is made.
    ///
    /// - Parameters:
    ///   - headers: The attempt's header fields, to add to.
    ///   - attempt: The attempt's scope, begun.
    func inject(into headers: inout HTTPHeaders, for attempt: InstrumentationScope)

    /// The least severe level of the records ``log(_:)`` takes, or `nil` for none: records below it are never made.
    var logLevel: LogRecord.Level? { get }

    /// Receives a structured log record: the request's own, on its task, or its pool's (see ``LogRecord/activity``).
    ///
    /// Only records at ``logLevel`` or above are made and sent; their metadata has been redacted.
    ///
    /// - Parameter record: The record.
    func log(_ record: LogRecord)

    /// Receives a change in what a pool of connections holds, from the ``SocketRequestPerformer`` the instrumentation
    /// was given to, as in `SocketRequestPerformer(instrumentation:)`.
    ///
    /// - Parameter measurement: The change.
    func record(_ measurement: PoolMeasurement)
}

extension RequestInstrumentation {
    /// `true`: an instrumentation that keeps this default sees every stage of every request.
    ///
    /// - Parameter request: The request's scope.
    /// - Returns: `true`.
    public func recordsStages(of request: InstrumentationScope) -> Bool { true }

    /// Writes nothing: an instrumentation that propagates no context keeps this default.
    ///
    /// - Parameters:
    ///   - headers: The attempt's header fields.
    ///   - attempt: The attempt's scope.
    public func inject(into headers: inout HTTPHeaders, for attempt: InstrumentationScope) {}

    /// `nil`: an instrumentation that keeps the default ``log(_:)`` is sent no record.
    public var logLevel: LogRecord.Level? { nil }

    /// Does nothing: an instrumentation that writes no logs keeps this default.
    ///
    /// - Parameter record: The record.
    public func log(_ record: LogRecord) {}

    /// Does nothing: an instrumentation that keeps no metrics of the pool keeps this default.
    ///
    /// - Parameter measurement: The change.
    public func record(_ measurement: PoolMeasurement) {}
}

/// Receives one request's events: when it starts, and when it finishes with the time each stage took.
///
/// Observers are attached with ``RequestPerformer/observed(by:)``, a performer that wraps another; logging
/// (``LoggingObserver``) and metrics (``MetricsObserver``) are observers. The finish event comes from the client
/// when the whole pipeline has run, so it carries the deserialize and parse times as well as the transport's.
///
/// ```swift
/// struct SlowRequestReporter: RequestObserver {
///     func observe(_ event: RequestEvent) {
///         if event.kind == .finished, event.metrics.total > .seconds(1) {
///             print("slow:", event.request.url?.absoluteString ?? "", event.metrics)
///         }
///     }
/// }
/// ```
///
/// Observers are called on the task performing the request; keep them quick.
public protocol RequestObserver: Sendable {
    /// Receives an event.
    ///
    /// - Parameter event: What happened to a request.
    func observe(_ event: RequestEvent)
}

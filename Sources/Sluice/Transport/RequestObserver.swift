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

/// Something that happened to a request, as an observer receives it.
public struct RequestEvent: Sendable {
    /// What happened.
    ///
    /// An open set: compare against the static members.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        private let name: String

        /// The request is about to be sent.
        public static let started = Kind(name: "started")
        /// The request has its response object or its error.
        public static let finished = Kind(name: "finished")

        /// The kind's name.
        public var description: String { name }
    }

    /// What happened.
    public let kind: Kind
    /// The request's number in this process, shared by its events.
    public let id: UInt64
    /// The request as sent (for a retried request, the first attempt's).
    public let request: URLRequest
    /// The response, when one arrived.
    public let response: HTTPResponse?
    /// The error, for a request that failed.
    public let error: SluiceError?
    /// The time each stage took and the bytes sent and received; zero in a start event.
    public let metrics: PipelineMetrics
    /// The number of attempts: 1 unless a retrying performer tried again.
    ///
    /// A replay after 401 belongs to the attempt it answers.
    public let attempts: Int

    /// Creates an event.
    ///
    /// - Parameters:
    ///   - kind: What happened.
    ///   - id: The request's number.
    ///   - request: The request.
    ///   - response: The response, if any.
    ///   - error: The error, if any.
    ///   - metrics: The stage times and byte counts.
    ///   - attempts: The number of transport attempts.
    public init(
        kind: Kind,
        id: UInt64,
        request: URLRequest,
        response: HTTPResponse? = nil,
        error: SluiceError? = nil,
        metrics: PipelineMetrics = PipelineMetrics(),
        attempts: Int = 1
    ) {
        self.kind = kind
        self.id = id
        self.request = request
        self.response = response
        self.error = error
        self.metrics = metrics
        self.attempts = attempts
    }
}

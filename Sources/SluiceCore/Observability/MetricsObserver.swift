/// An observer that counts requests and adds up their stage times and bytes, for a metrics screen or exporter.
///
/// ```swift
/// let metrics = MetricsObserver()
/// let client = APIClient(requestPerformer: NetworkRequestPerformer().observed(by: metrics))
/// // later
/// let snapshot = metrics.snapshot
/// print(snapshot.finished, snapshot.failures, snapshot.averageTotal)
/// ```
public final class MetricsObserver: RequestObserver {
    /// The counts and sums at one moment.
    public struct Snapshot: Sendable, Hashable {
        /// Requests started.
        public var started = 0
        /// Requests finished, successfully or not.
        public var finished = 0
        /// Failed requests by error code, such as `status` or `timed out`.
        public var failures: [String: Int] = [:]
        /// Responses by status code.
        public var statuses: [Int: Int] = [:]
        /// Transport attempts, retries included.
        public var attempts = 0
        /// The sum of each stage's time over the finished requests.
        public var stageTotals = PipelineMetrics()
        /// The longest total time of one request.
        public var longestTotal: Duration = .zero

        /// The average total time of a finished request.
        public var averageTotal: Duration {
            finished == 0 ? .zero : stageTotals.total / finished
        }
    }

    private let state = Locked(Snapshot())

    /// Creates an observer with every count at zero.
    public init() {}

    /// The counts and sums so far.
    public var snapshot: Snapshot { state.withLock { $0 } }

    /// Sets every count back to zero.
    public func reset() {
        state.withLock { $0 = Snapshot() }
    }

    /// Counts an event.
    ///
    /// - Parameter event: The event.
    public func observe(_ event: RequestEvent) {
        state.withLock { snapshot in
            guard event.kind == .finished else {
                snapshot.started += 1
                return
            }
            snapshot.finished += 1
            snapshot.attempts += event.attempts
            if let error = event.error {
                snapshot.failures[error.code.description, default: 0] += 1
            }
            if let status = event.response?.status.code {
                snapshot.statuses[status, default: 0] += 1
            }
            snapshot.stageTotals.build += event.metrics.build
            snapshot.stageTotals.transport += event.metrics.transport
            snapshot.stageTotals.deserialize += event.metrics.deserialize
            snapshot.stageTotals.parse += event.metrics.parse
            snapshot.stageTotals.requestBodyBytes += event.metrics.requestBodyBytes
            snapshot.stageTotals.responseBodyBytes += event.metrics.responseBodyBytes
            snapshot.longestTotal = max(snapshot.longestTotal, event.metrics.total)
        }
    }
}

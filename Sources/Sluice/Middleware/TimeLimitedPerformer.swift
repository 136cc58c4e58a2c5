/// A performer that gives the performers it wraps a fixed time to answer, in total, and cancels them when it runs
/// out.
///
/// A request's `timeoutInterval` is an idle timeout: a response that keeps trickling in never trips it. A time
/// limit bounds the whole exchange instead. Where it stands in the chain decides what it bounds: inside a retry,
/// each attempt (and a timed-out attempt is retried, as `URLError(.timedOut)` is a transient failure); outside it,
/// all attempts together.
///
/// ```swift
/// let client = APIClient(
///     requestPerformer: NetworkRequestPerformer()
///         .timeLimited(to: .seconds(5))  // each attempt
///         .retrying(RetryPolicy(maximumAttempts: 3))
///         .timeLimited(to: .seconds(12))  // all of them
/// )
/// ```
///
/// Running out throws `URLError(.timedOut)`, which ``APIClient`` reports as ``SluiceError/Code/timedOut`` in the
/// transport stage. For a bound on every stage, building and parsing included, see ``APIClient/deadline``.
public struct TimeLimitedPerformer: RequestPerformer {
    /// The performer whose answer is awaited.
    public let base: any RequestPerformer
    /// The longest the base performer may take.
    public let limit: Duration
    /// The clock the limit is measured on; a `ContinuousClock` unless a test passes a `TestClock`.
    public let clock: any Clock<Duration>

    /// Creates a time-limited performer.
    ///
    /// - Parameters:
    ///   - base: The performer whose answer is awaited.
    ///   - limit: The longest it may take.
    ///   - clock: The clock the limit is measured on; a `ContinuousClock` by default.
    public init(base: any RequestPerformer, limit: Duration, clock: any Clock<Duration> = ContinuousClock()) {
        self.base = base
        self.limit = limit
        self.clock = clock
    }

    /// Sends a request through the base performer, cancelling it if it has not answered within the limit.
    ///
    /// - Parameter request: The request.
    /// - Returns: The base performer's response.
    /// - Throws: `URLError(.timedOut)` when the limit passes first; what the base performer throws otherwise.
    public func perform(_ request: URLRequest) async throws -> HTTPResponse {
        let base = self.base
        let response = try await TimeLimitedPerformer.race(within: limit, clock: clock) {
            try await base.perform(request)
        }
        guard let response else {
            throw URLError(
                .timedOut,
                userInfo: [
                    NSLocalizedDescriptionKey: "no response within the time limit of \(PipelineMetrics.format(limit))"
                ]
            )
        }
        return response
    }

    /// Runs the transport until it ends or `limit` passes on `clock`, whichever is first; when the limit passes the
    /// transport is cancelled and the result is `nil`.
    ///
    /// ``APIClient/deadline`` runs its transport stage through this too.
    static func race<Response: Sendable>(
        within limit: Duration,
        clock: any Clock<Duration>,
        _ transport: @escaping @Sendable () async throws -> Response
    ) async throws -> Response? {
        try await withThrowingTaskGroup(of: Response?.self) { group in
            group.addTask { try await transport() }
            group.addTask {
                try await clock.sleep(for: limit)
                return nil
            }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
    }
}

extension RequestPerformer {
    /// This performer, given a fixed time to answer.
    ///
    /// - Parameters:
    ///   - limit: The longest it may take, all it does included.
    ///   - clock: The clock the limit is measured on; a `ContinuousClock` by default.
    /// - Returns: The time-limited performer.
    public func timeLimited(to limit: Duration, clock: any Clock<Duration> = ContinuousClock()) -> TimeLimitedPerformer
    {
        TimeLimitedPerformer(base: self, limit: limit, clock: clock)
    }
}

extension RetryingPerformer {
    /// When and how long a ``RetryingPerformer`` waits before trying a request again.
    ///
    /// ```swift
    /// let policy = RetryingPerformer.Policy(maximumAttempts: 4, baseDelay: .milliseconds(200), deadline: .seconds(10))
    /// let client = APIClient(requestPerformer: NetworkRequestPerformer().retrying(policy))
    /// ```
    ///
    /// - Between attempts it waits a random time between zero and an exponentially growing ceiling ("full jitter":
    ///   `baseDelay × 2^(attempt - 1)`, at most `maximumDelay`), so that clients that failed together do not retry
    ///   together.
    /// - A 429 or 503 response with `Retry-After` (seconds or an HTTP date) waits that long instead.
    /// - No attempt starts after `deadline` (counted from the first attempt): a wait that would end after it is not
    ///   waited, and the last response or error is returned.
    /// - Only idempotent methods (`GET`, `HEAD`, `PUT`, `DELETE`, `OPTIONS`, `TRACE`) are retried, unless
    ///   ``retriesNonIdempotentMethods`` is set or the request carries an `Idempotency-Key` header.
    /// - Transient transport failures (timed out, connection lost, cannot connect, DNS failures) and the statuses 408,
    ///   429, 500, 502, 503 and 504 are retried by default.
    public struct Policy: Sendable {
        /// The most attempts made, the first included.
        public var maximumAttempts: Int
        /// The ceiling of the first wait; each later ceiling doubles.
        public var baseDelay: Duration
        /// The largest ceiling of a wait drawn by the backoff.
        public var maximumDelay: Duration
        /// How long after the first attempt a new attempt may still start; `nil` for no limit.
        public var deadline: Duration?
        /// The statuses that are retried.
        public var retryableStatuses: Set<Int>
        /// The transport errors that are retried.
        public var retryableErrors: Set<URLError.Code>
        /// Whether `POST`, `PATCH` and other non-idempotent methods are retried too.
        public var retriesNonIdempotentMethods: Bool
        /// Draws a fraction in `0..<1` for the jitter; random by default, fixed in tests.
        public var randomFraction: @Sendable () -> Double

        /// Creates a policy.
        ///
        /// - Parameters:
        ///   - maximumAttempts: The most attempts made, the first included; 3 by default.
        ///   - baseDelay: The ceiling of the first wait; 100 ms by default.
        ///   - maximumDelay: The largest ceiling of a wait; 10 s by default.
        ///   - deadline: How long after the first attempt a new attempt may start; 30 s by default.
        ///   - retryableStatuses: The statuses retried; 408, 429, 500, 502, 503 and 504 by default.
        ///   - retryableErrors: The transport errors retried; transient ones by default.
        ///   - retriesNonIdempotentMethods: Whether non-idempotent methods are retried; `false` by default.
        ///   - randomFraction: Draws a fraction in `0..<1` for the jitter; random by default.
        public init(
            maximumAttempts: Int = 3,
            baseDelay: Duration = .milliseconds(100),
            maximumDelay: Duration = .seconds(10),
            deadline: Duration? = .seconds(30),
            retryableStatuses: Set<Int> = [408, 429, 500, 502, 503, 504],
            retryableErrors: Set<URLError.Code> = RetryingPerformer.Policy.transientErrors,
            retriesNonIdempotentMethods: Bool = false,
            randomFraction: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
        ) {
            self.maximumAttempts = max(1, maximumAttempts)
            self.baseDelay = baseDelay
            self.maximumDelay = maximumDelay
            self.deadline = deadline
            self.retryableStatuses = retryableStatuses
            self.retryableErrors = retryableErrors
            self.retriesNonIdempotentMethods = retriesNonIdempotentMethods
            self.randomFraction = randomFraction
        }

        /// Transport failures worth another try: timed out, connection lost or refused, host not found, DNS failure,
        /// not connected.
        public static let transientErrors: Set<URLError.Code> = [
            .timedOut, .networkConnectionLost, .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed,
            .notConnectedToInternet,
        ]

        /// Three attempts, 100 ms first ceiling, 10 s largest ceiling, 30 s deadline.
        public static let `default` = RetryingPerformer.Policy()

        /// The wait before an attempt, drawn with full jitter.
        ///
        /// - Parameter attempt: The attempt about to be made, counted from 2.
        /// - Returns: A duration between zero and the attempt's ceiling.
        public func backoff(before attempt: Int) -> Duration {
            let doublings = min(max(attempt - 2, 0), 30)
            let ceiling = min(baseDelay * (1 << doublings), maximumDelay)
            return ceiling * min(max(randomFraction(), 0), 1)
        }

        /// Whether a request's method allows retrying it.
        ///
        /// - Parameter request: The request.
        /// - Returns: Whether it may be sent again.
        public func allowsRetrying(_ request: URLRequest) -> Bool {
            retriesNonIdempotentMethods || HTTPMethod(request.httpMethod ?? "GET").isIdempotent
                || request.value(forHTTPHeaderField: "Idempotency-Key") != nil
        }
    }
}

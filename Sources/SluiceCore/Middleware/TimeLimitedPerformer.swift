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
///         .retrying(RetryingPerformer.Policy(maximumAttempts: 3))
///         .timeLimited(to: .seconds(12))  // all of them
/// )
/// ```
///
/// A streamed request (``stream(_:)``) is bounded as a whole: the head must arrive within the limit, and the body must
/// end within what is left of it, or it fails. A request's `timeoutInterval`, the idle timeout, still bounds each
/// silence between two chunks.
///
/// Running out throws `URLError(.timedOut)`, which ``APIClient`` reports as ``SluiceError/Code/timedOut`` in the
/// transport stage. For a bound on every stage, building and parsing included, see ``APIClient/deadline``.
public struct TimeLimitedPerformer: WrappingPerformer {
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
        let response = try await withTimeLimit(limit, clock: clock) {
            try await base.perform(request)
        }
        guard let response else { throw noResponse() }
        return response
    }

    /// Streams a request through the base performer within the limit, its body included.
    ///
    /// The limit bounds the whole exchange, from this call to the body's end: the head must arrive within it, and
    /// the body must end within what is left, the reader's own time between chunks included. When the limit passes
    /// while the body is being read, the base performer's transfer is cancelled and the body throws
    /// `URLError(.timedOut)` saying how many bytes had arrived. How long the body may stay silent between two chunks
    /// is the request's `timeoutInterval`, which ``NetworkRequestPerformer`` enforces between chunks.
    ///
    /// - Parameter request: The request.
    /// - Returns: The base performer's response, with a body that fails when the limit passes.
    /// - Throws: `URLError(.timedOut)` when the limit passes before the head; what the base performer throws
    ///   otherwise.
    public func stream(_ request: URLRequest) async throws -> HTTPResponse.Streamed {
        let base = self.base
        let elapsed = Stopwatch(clock)
        let response = try await withTimeLimit(limit, clock: clock) {
            try await base.stream(request)
        }
        guard let response else { throw noResponse() }
        let rest = BodyTimeLimit(limit: limit, clock: clock, elapsed: elapsed)
        return response.replacingBody(with: response.body.relayed { try await rest.next(from: &$0) })
    }

    /// Opens a WebSocket through the base performer, cancelling the handshake if it has not finished within the
    /// limit; the open WebSocket is not limited.
    ///
    /// - Parameters:
    ///   - request: The handshake's request.
    ///   - protocols: The subprotocols to offer.
    ///   - configuration: The WebSocket's limits and timers.
    /// - Returns: The base performer's WebSocket.
    /// - Throws: `URLError(.timedOut)` when the limit passes first; what the base performer throws otherwise.
    public func webSocket(
        _ request: URLRequest,
        protocols: [String],
        configuration: WebSocket.Configuration
    ) async throws -> WebSocket {
        let base = self.base
        let socket = try await withTimeLimit(limit, clock: clock) {
            try await base.webSocket(request, protocols: protocols, configuration: configuration)
        }
        guard let socket else { throw noResponse() }
        return socket
    }

    private func noResponse() -> URLError {
        URLError(
            .timedOut,
            userInfo: [
                NSLocalizedDescriptionKey: "no response within the time limit of \(PipelineMetrics.format(limit))"
            ]
        )
    }
}

/// What is left of a time limit once the head has arrived, spent reading the body.
private struct BodyTimeLimit: Sendable {
    let limit: Duration
    let clock: any Clock<Duration>
    /// The time since the exchange began.
    let elapsed: Stopwatch
    /// The bytes read so far, and whether the body has ended or failed, after which it reads as ended.
    private let state = Locked((bytes: 0, over: false))

    init(limit: Duration, clock: any Clock<Duration>, elapsed: Stopwatch) {
        self.limit = limit
        self.clock = clock
        self.elapsed = elapsed
    }

    /// Reads the next chunk if it arrives within the limit; otherwise ends the transfer and throws.
    func next(from chunks: inout HTTPBody.AsyncIterator) async throws -> Data? {
        let (bytes, over) = state.withLock { ($0.bytes, $0.over) }
        guard !over else { return nil }
        let remaining = limit - elapsed.read()
        var chunk: Data??
        if remaining > .zero {
            // The race reads in a task of its own. The iterator is passed through a lock rather than shared: this task
            // waits for the race to end before it touches the iterator again, so one task at a time reads it.
            let reading = Locked<HTTPBody.AsyncIterator?>(chunks)
            chunk = try await withTimeLimit(remaining, clock: clock) {
                var iterator = reading.withLock { $0 }
                return try await iterator?.next()
            }
        }
        guard let chunk else {
            state.withLock { $0.over = true }
            // The race cancelled the read, which ends the transfer; the limit may also have passed between reads, so
            // the base body is let go too.
            chunks = .finished
            throw URLError(
                .timedOut,
                userInfo: [
                    NSLocalizedDescriptionKey:
                        "the time limit of \(PipelineMetrics.format(limit)) passed while the body was being read, "
                        + "after \(bytes) \(bytes == 1 ? "byte" : "bytes")"
                ]
            )
        }
        state.withLock { state in
            if let chunk {
                state.bytes += chunk.count
            } else {
                state.over = true
            }
        }
        return chunk
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

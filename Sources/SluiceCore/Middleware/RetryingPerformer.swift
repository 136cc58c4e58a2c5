/// A performer that tries a request again when it fails in a way worth retrying, as its ``RetryingPerformer/Policy`` says.
///
/// ```swift
/// let client = APIClient(requestPerformer: NetworkRequestPerformer().retrying(.default))
/// ```
///
/// Each attempt is built afresh through ``RequestContext``, so a request's body stream is read again from its start
/// (called directly, with no client, there is no ``Request`` to build from, and a request with a body stream is sent
/// once). Each attempt is counted in the context and each failure noted there. Waits are measured on ``clock`` and end
/// at once when the calling task is cancelled. After the last attempt, a response is returned as it is (the client
/// then reports its status) and a transport failure is thrown as a ``SluiceError`` saying how many attempts were made
/// and why each failed; either way ``SluiceError/attemptFailures`` lists the earlier failures.
///
/// A streamed response (``stream(_:)``) is retried the same way, but only until its head is handed out: a response
/// that is retried is dropped, which ends its transfer, and an error in the body of the one returned is never retried.
public struct RetryingPerformer: WrappingPerformer {
    /// The performer that sends each attempt.
    public let base: any RequestPerformer
    /// When and how long to wait.
    public let policy: RetryingPerformer.Policy
    /// The clock the waits and the policy's deadline are measured on; a `ContinuousClock` unless a test passes a
    /// `TestClock`.
    public let clock: any Clock<Duration>

    /// Creates a retrying performer.
    ///
    /// - Parameters:
    ///   - base: The performer that sends each attempt.
    ///   - policy: When and how long to wait.
    ///   - clock: The clock the waits and the deadline are measured on; a `ContinuousClock` by default.
    public init(
        base: any RequestPerformer,
        policy: RetryingPerformer.Policy,
        clock: any Clock<Duration> = ContinuousClock()
    ) {
        self.base = base
        self.policy = policy
        self.clock = clock
    }

    /// Sends a request, and again after a wait while it fails in a retryable way.
    ///
    /// - Parameter request: The request.
    /// - Returns: The first response that is not retried, or the last one.
    /// - Throws: A ``SluiceError`` with every attempt's failure when the last attempt fails in the transport;
    ///   `CancellationError` when the task is cancelled during a wait; what the base performer throws otherwise.
    public func perform(_ request: URLRequest) async throws -> HTTPResponse {
        try await RequestContext.withContext(for: request) { context in
            try await attempts(of: request, in: context) { try await base.perform($0) }
        }
    }

    /// Streams a request, and again after a wait while it fails in a retryable way before its head is handed out.
    ///
    /// The attempts are those of ``perform(_:)``: the same policy, statuses, `Retry-After`, errors and deadline, each
    /// counted and each failure noted in the context. A retry can only happen before the head is handed out: a
    /// response that is retried (a 503, say) is dropped, which ends its transfer, and once a response is returned, an
    /// error while reading its body is thrown by the body and never retried, since part of it may have been read.
    ///
    /// - Parameter request: The request.
    /// - Returns: The first response that is not retried, or the last one, with its body still arriving.
    /// - Throws: A ``SluiceError`` with every attempt's failure when the last attempt fails before its head;
    ///   `CancellationError` when the task is cancelled during a wait; what the base performer throws otherwise.
    public func stream(_ request: URLRequest) async throws -> HTTPResponse.Streamed {
        try await RequestContext.withContext(forStreaming: request) { context in
            try await attempts(of: request, in: context) { try await base.stream($0) }
        }
    }

    /// Opens a WebSocket, and tries the handshake again after a wait while it fails in a retryable way: a refusal
    /// with one of the policy's statuses (a 503, with its `Retry-After`), or one of its transport errors.
    ///
    /// The attempts are those of ``perform(_:)``. Only the handshake is retried: once the WebSocket is open, a
    /// connection that fails is the reader's to handle.
    ///
    /// - Parameters:
    ///   - request: The handshake's request.
    ///   - protocols: The subprotocols to offer.
    ///   - configuration: The WebSocket's limits and timers.
    /// - Returns: The open WebSocket.
    /// - Throws: The last refusal; a ``SluiceError`` with every attempt's failure when the last attempt fails in the
    ///   transport; `CancellationError` when the task is cancelled during a wait.
    public func webSocket(
        _ request: URLRequest,
        protocols: [String],
        configuration: WebSocket.Configuration
    ) async throws -> WebSocket {
        let context = RequestContext.current ?? RequestContext(request: request)
        let outcome = try await context.withCurrent {
            try await handshakeAttempts(request, protocols: protocols, configuration: configuration, in: context)
        }
        switch outcome {
        case .opened(let socket): return socket
        case .refused(let error): throw error
        }
    }

    /// The handshake's attempts, in the context the inner performers see.
    private func handshakeAttempts(
        _ request: URLRequest,
        protocols: [String],
        configuration: WebSocket.Configuration,
        in context: RequestContext
    ) async throws -> HandshakeOutcome {
        try await attempts(of: request, in: context) { attempt in
            do {
                return HandshakeOutcome.opened(
                    try await base.webSocket(attempt, protocols: protocols, configuration: configuration)
                )
            } catch let error as SluiceError where error.code == .handshake && error.response != nil {
                return HandshakeOutcome.refused(error)
            }
        }
    }

    /// The attempts of either form: sends each with `send` until a response or error is not retried.
    private func attempts<Response: ResponseHead>(
        of request: URLRequest,
        in context: RequestContext,
        send: (URLRequest) async throws -> Response
    ) async throws -> Response {
        let elapsed = Stopwatch(clock)
        // A request whose body stream cannot be read again is sent once.
        let mayRetry = policy.allowsRetrying(request) && context.canRebuild
        var failures: [String] = []
        var attempt = 0
        while true {
            attempt += 1
            _ = context.beginAttempt()
            let attemptRequest = attempt == 1 ? request : try context.rebuild(keepingChangesIn: request, for: "a retry")
            let delay: Duration
            do {
                // A response retried is released with this block, before the wait: a streamed one's transfer ends.
                let response = try await send(attemptRequest)
                guard mayRetry, policy.retryableStatuses.contains(response.status.code),
                    attempt < policy.maximumAttempts
                else { return response }
                let reason = String(describing: response.status)
                let asked =
                    [429, 503].contains(response.status.code)
                    ? response.headers[.retryAfter].flatMap { RetryAfter.delay($0) } : nil
                delay = asked ?? policy.backoff(before: attempt + 1)
                guard startsBeforeDeadline(after: delay, elapsed: elapsed) else { return response }
                failures.append(reason)
                context.noteFailure(reason)
            } catch {
                if error is CancellationError || Task.isCancelled {
                    throw error
                }
                let reason = SluiceError.describe(error)
                let urlCode =
                    (error as? URLError)?.code ?? ((error as? SluiceError)?.underlyingError as? URLError)?.code
                guard mayRetry, let urlCode, policy.retryableErrors.contains(urlCode),
                    attempt < policy.maximumAttempts
                else {
                    throw failures.isEmpty
                        ? error : exhausted(error, reason: reason, failures: failures, request: request)
                }
                delay = policy.backoff(before: attempt + 1)
                guard startsBeforeDeadline(after: delay, elapsed: elapsed) else {
                    throw exhausted(error, reason: reason, failures: failures, request: request)
                }
                failures.append(reason)
                context.noteFailure(reason)
            }
            try await clock.sleep(for: delay)
        }
    }

    private func startsBeforeDeadline(after delay: Duration, elapsed: Stopwatch) -> Bool {
        guard let deadline = policy.deadline else { return true }
        return elapsed.read() + delay <= deadline
    }

    /// The error after the last attempt: what failed it, and how many attempts were made.
    private func exhausted(_ error: any Error, reason: String, failures: [String], request: URLRequest) -> SluiceError {
        let attempts = failures.count + 1
        let code: SluiceError.Code = (error as? URLError)?.code == .timedOut ? .timedOut : .transport
        var exhausted = SluiceError(
            code,
            stage: .transport,
            message: "the request failed after \(attempts) attempts, the last with \(reason)",
            request: request,
            underlyingError: error
        )
        exhausted.attempts = attempts
        exhausted.attemptFailures = failures
        return exhausted
    }
}

extension RequestPerformer {
    /// This performer, trying requests again as a policy says.
    ///
    /// - Parameters:
    ///   - policy: When and how long to wait; ``RetryingPerformer/Policy/default`` by default.
    ///   - clock: The clock the waits and the deadline are measured on; a `ContinuousClock` by default.
    /// - Returns: The retrying performer.
    public func retrying(
        _ policy: RetryingPerformer.Policy = .default,
        clock: any Clock<Duration> = ContinuousClock()
    ) -> RetryingPerformer {
        RetryingPerformer(base: self, policy: policy, clock: clock)
    }
}

/// A WebSocket handshake's outcome as the attempts see it: an open socket, or a refusal whose status the policy may
/// retry.
private enum HandshakeOutcome: ResponseHead {
    case opened(WebSocket)
    case refused(SluiceError)

    var status: HTTPStatus {
        switch self {
        case .opened: HTTPStatus(code: 101)
        case .refused(let error): error.status ?? HTTPStatus(code: 101)
        }
    }

    var headers: HTTPHeaders {
        switch self {
        case .opened: HTTPHeaders()
        case .refused(let error): error.headers ?? HTTPHeaders()
        }
    }
}

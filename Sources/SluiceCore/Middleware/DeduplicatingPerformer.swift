/// A performer that lets identical requests in flight at the same time share one transport call.
///
/// Two `GET` or `HEAD` requests are identical when their method, URL and headers are; requests with a body are
/// never shared, and neither is a stream (``stream(_:)``), whose body is read once. Every caller gets the shared
/// response. A caller that is cancelled stops waiting at once without
/// disturbing the others; the transport call is cancelled only when every caller has gone.
///
/// Each caller keeps its own ``RequestContext``. The shared call runs under a context of its own (see
/// ``RequestContext/run(_:)``), so performers inside it count its attempts and register observers there, never in
/// the first caller's; an observer inside reports the shared call once. When the call ends, its attempts and their
/// failures are copied into every caller's context that received the outcome, so that each caller's error and
/// finish event say how many attempts were made for it. Waiting takes no clock: a de-duplicated call is as long as
/// the call it shares.
///
/// ```swift
/// let client = APIClient(requestPerformer: NetworkRequestPerformer().deduplicated())
/// ```
public final class DeduplicatingPerformer: WrappingPerformer {
    /// The performer that sends the shared requests.
    public let base: any RequestPerformer
    private let inFlight = Locked<[Key: SharedCall]>([:])
    /// The calls in `inFlight`, counted as they are added and removed, under its lock.
    private let calls = Gauge()
    /// The callers waiting for any of the calls, counted by the calls as callers begin and stop waiting.
    private let waiting = Gauge()

    struct Key: Hashable {
        let method: String
        let url: URL?
        let headers: [String: String]
    }

    /// Creates a de-duplicating performer.
    ///
    /// - Parameter base: The performer that sends the shared requests.
    public init(base: any RequestPerformer) {
        self.base = base
    }

    /// The number of transport calls in flight.
    public var callsInFlight: Int { calls.value }

    /// The gauge that counts ``callsInFlight``, for a test to await a count rather than poll it.
    package var callsInFlightGauge: Gauge { calls }

    /// Sends a request, or joins the identical one already in flight.
    ///
    /// - Parameter request: The request.
    /// - Returns: The shared response.
    /// - Throws: What the shared call throws, or `CancellationError` when this caller is cancelled.
    public func perform(_ request: URLRequest) async throws -> HTTPResponse {
        let method = request.httpMethod ?? "GET"
        guard method == "GET" || method == "HEAD", request.httpBody == nil, request.httpBodyStream == nil else {
            return try await base.perform(request)
        }
        let key = Key(method: method, url: request.url, headers: request.allHTTPHeaderFields ?? [:])
        // A caller joins under the lock of the calls in flight, so that no call is abandoned between finding it and
        // joining it.
        let (call, caller, isNew) = inFlight.withLock { inFlight -> (SharedCall, Int, Bool) in
            if let call = inFlight[key], let caller = call.join() {
                return (call, caller, false)
            }
            let call = SharedCall(context: RequestContext.shared(for: request), waiting: waiting)
            // In place of an abandoned call, which then finds itself replaced and leaves the count alone.
            if inFlight.updateValue(call, forKey: key) == nil {
                calls.add(1)
            }
            return (call, SharedCall.firstCaller, true)
        }
        if isNew {
            let base = self.base
            let (inFlight, calls) = (self.inFlight, self.calls)
            call.start(
                Task {
                    defer {
                        inFlight.withLock { inFlight in
                            if inFlight[key] === call {
                                inFlight.removeValue(forKey: key)
                                calls.add(-1)
                            }
                        }
                    }
                    // Under the call's own context, not the first caller's, which this task would otherwise inherit.
                    return try await call.context.run { _ in try await base.perform(request) }
                }
            )
        }
        return try await RequestContext.withContext(for: request) { context in
            do {
                let response = try await call.wait(as: caller)
                call.report(to: context)
                return response
            } catch {
                // A caller that left before the outcome has nothing to report.
                if !(error is CancellationError && Task.isCancelled) {
                    call.report(to: context)
                }
                throw error
            }
        }
    }

    /// Streams a request through the base performer, on its own: a stream is never shared.
    ///
    /// A streamed body is read once, by one reader, as it arrives, so identical streams in flight each have a
    /// transfer of their own.
    ///
    /// - Parameter request: The request.
    /// - Returns: The base performer's response.
    /// - Throws: What the base performer throws.
    public func stream(_ request: URLRequest) async throws -> HTTPResponse.Streamed {
        try await base.stream(request)
    }

    /// The number of callers waiting for the calls in flight.
    public var callersWaiting: Int { waiting.value }

    /// The gauge that counts ``callersWaiting``, for a test to await a count rather than poll it.
    package var callersWaitingGauge: Gauge { waiting }
}

/// One transport call and the callers waiting for it.
///
/// Its state is in a `Locked` box; a caller's continuation is resumed exactly once, by the call's end or by the
/// caller's cancellation, whichever comes first.
final class SharedCall: Sendable {
    /// The call's own context: its attempts, failures and observers belong to no caller.
    let context: RequestContext

    private struct State {
        var task: Task<HTTPResponse, any Error>?
        var waiters: [Int: CheckedContinuation<HTTPResponse, any Error>] = [:]
        var cancelledEarly: Set<Int> = []
        var nextWaiter = SharedCall.firstCaller
        /// The callers that joined and have not left, waiting or about to wait, the first caller included: when the
        /// last one leaves before the outcome, the call is abandoned and its task cancelled.
        var callers = 1
        var outcome: Result<HTTPResponse, any Error>?
        var abandoned = false
    }

    private let state = Locked(State())
    /// The de-duplicating performer's count of waiting callers, which this call's `waiters` are part of; changed
    /// with them, under the call's lock.
    private let waiting: Gauge

    init(context: RequestContext, waiting: Gauge) {
        self.context = context
        self.waiting = waiting
    }

    /// Copies the call's attempts and their failures into a caller's context, once the call has ended, so that the
    /// caller's error and finish event count the attempts made for it.
    func report(to caller: RequestContext) {
        for _ in 0..<context.attempts {
            _ = caller.beginAttempt()
        }
        for failure in context.failures {
            caller.noteFailure(failure)
        }
        if let tracing = context.tracing {
            caller.tracing?.link(toAttemptsOf: tracing)
        }
    }

    /// The number of the caller that makes the call, which joins it as it is made.
    static let firstCaller = 1

    /// Adds a caller to the call, unless every caller left before the call ended, so that it was cancelled and a new
    /// caller must start anew.
    ///
    /// - Returns: The caller's number, for ``wait(as:)``, or `nil` when the call is abandoned.
    func join() -> Int? {
        state.withLock { state in
            guard !state.abandoned else { return nil }
            state.nextWaiter += 1
            state.callers += 1
            return state.nextWaiter
        }
    }

    /// Starts the call: when it ends, every waiter receives its outcome.
    func start(_ task: Task<HTTPResponse, any Error>) {
        // Every caller may have left before the task was handed over: then nobody else would cancel it.
        let abandoned = state.withLock { state in
            state.task = task
            return state.abandoned
        }
        if abandoned {
            task.cancel()
        }
        Task {
            let outcome = await task.result
            let waiters = self.state.withLock { state in
                state.outcome = outcome
                defer { state.waiters = [:] }
                if !state.waiters.isEmpty {
                    self.waiting.add(-state.waiters.count)
                }
                return state.waiters.values
            }
            for waiter in waiters {
                waiter.resume(with: outcome)
            }
        }
    }

    /// Waits for the call's outcome, or until the calling task is cancelled, as a caller that made the call or that
    /// ``join()`` added.
    ///
    /// A caller that is cancelled leaves with `CancellationError` at once, whether it waits already or not yet; the
    /// last one to leave before the outcome cancels the call's task.
    ///
    /// - Parameter id: The caller's number: ``firstCaller``, or the one ``join()`` gave.
    /// - Returns: The call's response.
    /// - Throws: What the call threw, or `CancellationError` when the caller was cancelled.
    func wait(as id: Int) async throws -> HTTPResponse {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let immediate = state.withLock { state -> Result<HTTPResponse, any Error>? in
                    if state.cancelledEarly.remove(id) != nil {
                        return .failure(CancellationError())
                    }
                    if let outcome = state.outcome {
                        return outcome
                    }
                    state.waiters[id] = continuation
                    waiting.add(1)
                    return nil
                }
                if let immediate {
                    continuation.resume(with: immediate)
                }
            }
        } onCancel: {
            let (waiter, lastTask) = state.withLock {
                state -> (CheckedContinuation<HTTPResponse, any Error>?, Task<HTTPResponse, any Error>?) in
                guard state.outcome == nil else { return (nil, nil) }
                // Waiting already, or not yet: then it finds itself among the early ones when it comes to wait.
                let waiter = state.waiters.removeValue(forKey: id)
                if waiter == nil {
                    state.cancelledEarly.insert(id)
                } else {
                    waiting.add(-1)
                }
                state.callers -= 1
                guard state.callers == 0 else { return (waiter, nil) }
                state.abandoned = true
                return (waiter, state.task)
            }
            waiter?.resume(throwing: CancellationError())
            lastTask?.cancel()
        }
    }
}

extension RequestPerformer {
    /// This performer, sharing one transport call among identical requests in flight.
    ///
    /// - Returns: The de-duplicating performer.
    public func deduplicated() -> DeduplicatingPerformer {
        DeduplicatingPerformer(base: self)
    }
}

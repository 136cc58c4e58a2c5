extension Client {
    /// Opens a WebSocket that opens a new connection, as a retry policy says, when the one it reads from drops: for a
    /// feed that can resume.
    ///
    /// The WebSocket reads from one connection at a time. When that connection ends in a way a new one may mend (it
    /// was cut without a closing frame, the server closed it with 1001 going away, 1011, 1012, 1013 or 1014, or a
    /// keep-alive ping went unanswered), the reader waits the policy's backoff on `clock` and the request's handshake
    /// is sent again, through the client and its middleware, with the same subprotocols; `onConnect` then runs on
    /// the new connection before its messages are read, to subscribe again or send where the feed left off. It runs
    /// on the first connection too, so the subscription is written once. A handshake that fails with one of the
    /// policy's ``RetryingPerformer/Policy/retryableErrors`` or is refused with one of its ``RetryingPerformer/Policy/retryableStatuses`` (after
    /// its `Retry-After`, for 429 and 503), and a new connection that closes while `onConnect` runs, count as failed
    /// attempts and are tried again; after ``RetryingPerformer/Policy/maximumAttempts`` attempts in a row with no message between
    /// them, the reader gets the last failure. The waits grow as the policy's backoff does, and start again from the
    /// shortest only once a connection has stayed up for the policy's ``RetryingPerformer/Policy/maximumDelay``: a server that
    /// greets each connection, then drops it, is not reconnected to in a tight loop.
    ///
    /// The messages end, with no new connection, when the server closes with 1000 or no code, or when the client
    /// closes, also while a new connection is awaited (which stops the wait at once); a frame that breaks RFC 6455, any
    /// other close code, another refusal, and the reading task's cancellation end them with their error. New
    /// connections are made only as the messages are read. Between two
    /// connections ``WebSocket/send(_:)`` fails with ``SluiceError/Code/close``: messages are not held for the next
    /// connection, which is what `onConnect` is for. ``WebSocket/subprotocol`` and ``WebSocket/response`` are the
    /// first connection's; ``WebSocket/closeStatus`` is the current one's.
    ///
    /// ```swift
    /// let feed = try await client.webSocket(Prices(), reconnecting: .default) { socket in
    ///     try await socket.send(.text(#"{"subscribe": "ACME"}"#))
    /// }
    /// for try await message in feed.messages {
    ///     print(message)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - request: The request; its URL's scheme is `ws`, `wss`, `http` or `https`.
    ///   - protocols: The subprotocols to offer, in order of preference; none by default.
    ///   - configuration: Each connection's limits and timers.
    ///   - policy: How often and after how long to connect again.
    ///   - clock: The clock the waits are measured on; a `ContinuousClock` by default.
    ///   - onConnect: Runs on each new connection before its messages are read; nothing by default.
    /// - Returns: The WebSocket.
    /// - Throws: ``SluiceError`` when the first handshake or its `onConnect` fails.
    public func webSocket<R: Request>(
        _ request: R,
        protocols: [String] = [],
        configuration: WebSocket.Configuration = WebSocket.Configuration(),
        reconnecting policy: RetryingPerformer.Policy,
        clock: any Clock<Duration> = ContinuousClock(),
        onConnect: @escaping @Sendable (WebSocket) async throws -> Void = { _ in }
    ) async throws(SluiceError) -> WebSocket {
        let connect = { @Sendable () async throws(SluiceError) -> WebSocket in
            let socket = try await self.webSocket(request, protocols: protocols, configuration: configuration)
            do {
                try await onConnect(socket)
            } catch {
                await socket.close(code: .goingAway)
                if let error = error as? SluiceError { throw error }
                if error is CancellationError || Task.isCancelled {
                    throw SluiceError(.cancelled, stage: .handshake, underlyingError: error)
                }
                throw SluiceError(
                    .handshake,
                    message: "the WebSocket's onConnect failed: \(SluiceError.describe(error))",
                    underlyingError: error
                )
            }
            return socket
        }
        let first = try await connect()
        return WebSocket(
            channel: ReconnectingWebSocketChannel(first: first, policy: policy, clock: clock, connect: connect),
            subprotocol: first.subprotocol,
            compressesMessages: first.compressesMessages,
            response: first.response
        )
    }
}

/// The connections of one reconnecting WebSocket: the one being read, and the ones after it.
final class ReconnectingWebSocketChannel: WebSocket.Channel {
    private struct State {
        /// The connection being read; `nil` between two connections, and once the client has closed.
        var current: WebSocket?
        /// The last connection, for its close status.
        var last: WebSocket
        /// How long the current connection has been up.
        var connected: Stopwatch
        /// Attempts since the last message that failed to give a working connection.
        var failedAttempts = 0
        /// New connections since one last stayed up for the policy's longest wait: the backoff's attempt number.
        var reconnects = 0
        var closedByClient = false
        /// A reader waiting out the backoff, woken by the client's close.
        var closeWaiter: CheckedContinuation<Void, Never>?
        /// A new connection being opened, cancelled by the client's close.
        var connecting: Task<WebSocket, any Error>?
    }

    private let state: Locked<State>
    private let policy: RetryingPerformer.Policy
    private let clock: any Clock<Duration>
    private let connect: @Sendable () async throws(SluiceError) -> WebSocket

    init(
        first: WebSocket,
        policy: RetryingPerformer.Policy,
        clock: any Clock<Duration>,
        connect: @escaping @Sendable () async throws(SluiceError) -> WebSocket
    ) {
        state = Locked(State(current: first, last: first, connected: Stopwatch(clock)))
        self.policy = policy
        self.clock = clock
        self.connect = connect
    }

    /// Close codes after which a new connection may do better: the server went away, failed or is restarting.
    private static let passingCodes: Set<WebSocket.CloseCode> = [
        .goingAway, .internalServerError, WebSocket.CloseCode(rawValue: 1012), WebSocket.CloseCode(rawValue: 1013),
        WebSocket.CloseCode(rawValue: 1014),
    ]

    func receive() async throws -> WebSocket.Message? {
        while true {
            guard let socket = state.withLock({ $0.current }) else { return nil }
            var failure: any Error
            do {
                if let message = try await socket.receive() {
                    let policy = self.policy
                    state.withLock { state in
                        state.failedAttempts = 0
                        if state.connected.read() >= policy.maximumDelay {
                            state.reconnects = 0
                        }
                    }
                    return message
                }
                guard let code = socket.closeStatus?.code, code == .goingAway,
                    !state.withLock({ $0.closedByClient })
                else { return nil }
                failure = SluiceError(.close, message: "the server closed the WebSocket with \(code)")
            } catch {
                guard mayReconnect(after: error, on: socket) else { throw error }
                failure = error
            }
            guard try await reconnect(after: failure) else { return nil }
        }
    }

    /// Whether the connection's end is one a new connection may mend.
    private func mayReconnect(after error: any Error, on socket: WebSocket) -> Bool {
        guard !Task.isCancelled, !state.withLock({ $0.closedByClient }), let error = error as? SluiceError else {
            return false
        }
        switch error.code {
        case .timedOut, .transport: return true
        case .close:
            guard let status = socket.closeStatus else { return true }
            return status.code.map { Self.passingCodes.contains($0) } ?? false
        default: return false
        }
    }

    /// Waits, then connects again until a connection opens, the policy's attempts run out or a failure is not one to
    /// retry.
    ///
    /// - Returns: Whether a new connection is open; `false` when the client closed meanwhile.
    private func reconnect(after failure: any Error) async throws -> Bool {
        var failure = failure
        var asked: Duration?
        while true {
            let attempt = state.withLock { state -> Int? in
                state.current = nil
                guard !state.closedByClient, state.failedAttempts + 1 < policy.maximumAttempts else { return nil }
                state.failedAttempts += 1
                state.reconnects += 1
                return state.reconnects
            }
            guard let attempt else {
                if state.withLock({ $0.closedByClient }) { return false }
                throw failure
            }
            guard try await waitUnlessClosed(asked ?? policy.backoff(before: attempt + 1)) else { return false }
            asked = nil
            do {
                guard let next = try await open() else { return false }
                return state.withLock { state in
                    guard !state.closedByClient else { return false }
                    state.current = next
                    state.last = next
                    state.connected = Stopwatch(clock)
                    return true
                }
            } catch let error as SluiceError {
                if error.code == .cancelled || Task.isCancelled { throw error }
                guard retryable(error) else { throw error }
                if let status = error.status?.code, [429, 503].contains(status) {
                    asked = error.headers?[.retryAfter].flatMap { RetryAfter.delay($0) }
                }
                failure = error
            }
        }
    }

    /// Whether a failed reconnection is worth another attempt: a refusal or transport failure the policy retries, or
    /// a new connection that closed while `onConnect` ran.
    private func retryable(_ error: SluiceError) -> Bool {
        if let status = error.status?.code {
            return policy.retryableStatuses.contains(status)
        }
        if error.code == .close {
            return true
        }
        let urlCode =
            (error.underlyingError as? URLError)?.code
            ?? ((error.underlyingError as? SluiceError)?.underlyingError as? URLError)?.code
        return urlCode.map { policy.retryableErrors.contains($0) } ?? false
    }

    /// Opens the next connection in a task the client's close cancels.
    ///
    /// - Returns: The connection, or `nil` when the client closed meanwhile.
    private func open() async throws -> WebSocket? {
        let connect = self.connect
        let task = Task { () async throws -> WebSocket in try await connect() }
        let closed = state.withLock { state -> Bool in
            guard !state.closedByClient else { return true }
            state.connecting = task
            return false
        }
        if closed {
            task.cancel()
            await (try? task.value)?.close(code: .goingAway)
            return nil
        }
        defer { state.withLock { $0.connecting = nil } }
        return try await withTaskCancellationHandler {
            do {
                return try await task.value
            } catch {
                if state.withLock({ $0.closedByClient }) { return nil }
                throw error
            }
        } onCancel: {
            task.cancel()
        }
    }

    /// Waits on the clock unless the client closes first.
    ///
    /// - Returns: `true` when the wait is over, `false` when the client closed.
    /// - Throws: `CancellationError` when the reading task is cancelled.
    private func waitUnlessClosed(_ delay: Duration) async throws -> Bool {
        let clock = self.clock
        let state = self.state
        let waited = try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                try await clock.sleep(for: delay)
                return true
            }
            group.addTask {
                await withTaskCancellationHandler {
                    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                        let now = state.withLock { state -> Bool in
                            guard !state.closedByClient, !Task.isCancelled else { return true }
                            state.closeWaiter = continuation
                            return false
                        }
                        if now { continuation.resume() }
                    }
                } onCancel: {
                    state.withLock { state in
                        defer { state.closeWaiter = nil }
                        return state.closeWaiter
                    }?.resume()
                }
                return false
            }
            defer { group.cancelAll() }
            return try await group.next() ?? false
        }
        // A cancelled reader wakes both children at once; whichever answers first, the reader's cancellation wins.
        try Task.checkCancellation()
        return waited && !state.withLock { $0.closedByClient }
    }

    func send(_ message: WebSocket.Message) async throws {
        guard let socket = state.withLock({ $0.current }) else {
            throw SluiceError(
                .close,
                message: state.withLock { $0.closedByClient }
                    ? "cannot send on a WebSocket that is closed"
                    : "cannot send while the WebSocket is between two connections; onConnect runs on the next one"
            )
        }
        try await socket.send(message)
    }

    /// Marks the channel closed by the client, wakes a reader waiting to reconnect, cancels a connection being
    /// opened, and returns the current connection.
    private func closeLocked(_ state: inout State) -> WebSocket? {
        state.closedByClient = true
        state.closeWaiter?.resume()
        state.closeWaiter = nil
        state.connecting?.cancel()
        defer { state.current = nil }
        return state.current
    }

    func close(code: WebSocket.CloseCode, reason: String) async {
        let socket = state.withLock { closeLocked(&$0) }
        await socket?.close(code: code, reason: reason)
    }

    func abort() {
        state.withLock { closeLocked(&$0) }?.abort()
    }

    var closeStatus: (code: WebSocket.CloseCode?, reason: String)? {
        state.withLock { $0.last }.closeStatus
    }
}

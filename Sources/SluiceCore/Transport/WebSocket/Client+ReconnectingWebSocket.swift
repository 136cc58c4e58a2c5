extension Client {
    /// Opens a WebSocket that opens a new connection, as a retry policy says, when the one it reads from drops: for a
    /// feed that can resume.
    ///
    /// The WebSocket reads from one connection at a time. When that connection ends in a way a new one may mend (it
    /// was cut without a closing frame, the server closed it with 1001 going away, 1011, 1012, 1013 or 1014, or a
    /// keep-alive ping went unanswered), the reader waits the policy's backoff on `clock` and the request's handshake
    /// is sent again, through the client and its middleware, with the same subprotocols; `onConnect` then runs on
    /// the new connection before its messages are read, to subscribe again or send where the feed left off. It runs
    /// on the first connection too, so the subscription is written once. A handshake that fails in the transport or
    /// is refused with one of the policy's ``RetryPolicy/retryableStatuses`` counts as a failed attempt and is tried
    /// again; after ``RetryPolicy/maximumAttempts`` attempts in a row with no message between them, the reader gets
    /// the last failure.
    ///
    /// The messages end, with no new connection, when the server closes with 1000 or no code, or when the client
    /// closes; a frame that breaks RFC 6455, any other close code, another refusal, and the reading task's
    /// cancellation end them with their error. New connections are made only as the messages are read. Between two
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
        reconnecting policy: RetryPolicy,
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
                throw SluiceError(
                    .handshake,
                    message: "the WebSocket's onConnect failed: \(SluiceError.describe(error))",
                    request: try? request.build(),
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
final class ReconnectingWebSocketChannel: WebSocketChannel {
    private struct State {
        /// The connection being read; `nil` between two connections, and once the client has closed.
        var current: WebSocket?
        /// The last connection, for its close status.
        var last: WebSocket
        /// Attempts since the last message that failed to give a working connection.
        var failedAttempts = 0
        var closedByClient = false
    }

    private let state: Locked<State>
    private let policy: RetryPolicy
    private let clock: any Clock<Duration>
    private let connect: @Sendable () async throws(SluiceError) -> WebSocket

    init(
        first: WebSocket,
        policy: RetryPolicy,
        clock: any Clock<Duration>,
        connect: @escaping @Sendable () async throws(SluiceError) -> WebSocket
    ) {
        state = Locked(State(current: first, last: first))
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
            var failure: (any Error)?
            do {
                if let message = try await socket.receive() {
                    state.withLock { $0.failedAttempts = 0 }
                    return message
                }
                guard let code = socket.closeStatus?.code, code == .goingAway else { return nil }
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
    /// - Returns: Whether a new connection is open; `false` when the client closed meanwhile, or the attempts ran out
    ///   after a normal end.
    private func reconnect(after failure: (any Error)?) async throws -> Bool {
        var failure = failure
        while true {
            let attempt = state.withLock { state -> Int? in
                state.current = nil
                guard !state.closedByClient, state.failedAttempts + 1 < policy.maximumAttempts else { return nil }
                state.failedAttempts += 1
                return state.failedAttempts
            }
            guard let attempt else {
                if let failure, !state.withLock({ $0.closedByClient }) { throw failure }
                return false
            }
            try await clock.sleep(for: policy.backoff(before: attempt + 1))
            do {
                let next = try await connect()
                let opened = state.withLock { state -> Bool in
                    guard !state.closedByClient else { return false }
                    state.current = next
                    state.last = next
                    return true
                }
                guard opened else {
                    await next.close(code: .goingAway)
                    return false
                }
                return true
            } catch {
                let underlying = (error.underlyingError as? URLError)?.code
                let retryable =
                    error.code == .transport || error.code == .timedOut
                    || error.status.map { policy.retryableStatuses.contains($0.code) } == true
                    || underlying.map { policy.retryableErrors.contains($0) } == true
                guard retryable else { throw error }
                failure = error
            }
        }
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

    func close(code: WebSocket.CloseCode, reason: String) async {
        let socket = state.withLock { state -> WebSocket? in
            state.closedByClient = true
            defer { state.current = nil }
            return state.current
        }
        await socket?.close(code: code, reason: reason)
    }

    func abort() {
        state.withLock { state in
            state.closedByClient = true
            state.current = nil
        }
    }

    var closeStatus: (code: WebSocket.CloseCode?, reason: String)? {
        state.withLock { $0.last }.closeStatus
    }
}

extension NetworkRequestPerformer {
    /// The state of the performer's in-flight tasks, and the session delegate that fills it in.
    ///
    /// `@unchecked Sendable`: all mutable state is in a `Locked` box; URLSession calls the delegate methods on its
    /// own queue, and `perform` calls `start` and `cancel` from any task.
    final class TaskTable: NSObject, URLSessionDataDelegate, @unchecked Sendable {
        struct Entry {
            var continuation: CheckedContinuation<HTTPResponse, any Error>?
            /// For a streamed request: who waits for the head, until it arrives.
            var head: CheckedContinuation<HTTPResponse.Streamed, any Error>?
            /// For a streamed request: the body's writer, once the head has arrived.
            var writer: HTTPBody.Writer?
            /// For a streamed request, whether the task is suspended while the reader catches up.
            var paused = false
            /// For a buffered request, the largest body accepted; for a streamed one, the most bytes held for a
            /// reader that is behind.
            var limit: Int
            /// Who wants to know how much of the request body was sent, and the body's length when known.
            var upload: TransportScope.UploadWatch?
            var body = Data()
            var response: HTTPURLResponse?
            var failure: (any Error)?
            var lastActivity = ContinuousClock.now
            /// The idle timeout, and the task it cancels, once ``TaskTable/watch(_:idleTimeout:)`` watches it.
            var idle: (timeout: Duration, task: URLSessionTask)?
        }

        /// The table's state, under one lock.
        struct State {
            /// In-flight tasks by identifier.
            var entries: [Int: Entry] = [:]
            /// Identifiers cancelled before they were started.
            var cancelledEarly: Set<Int> = []
            /// When ``TaskTable/idleTimer`` is set to fire, if it is.
            var timerDeadline: ContinuousClock.Instant?
        }

        let state = Locked(State())

        /// The tasks started and not completed: the entries of the table, counted as they are added and removed,
        /// under the table's lock.
        let inFlight = Gauge()

        /// One timer for the idle timeouts of every task, set for the earliest moment one could end.
        ///
        /// A request only notes its timeout; the timer is set again only when that timeout would end before the
        /// moment the timer is set for. When it fires it fails the tasks idle for their timeout and is set for the
        /// next moment one could end, so a task that keeps receiving is looked at about once a timeout's length,
        /// and nothing is made or cancelled per request.
        let idleTimer: any DispatchSourceTimer

        /// Whether a redirect from `https` to `http` is followed; see ``RedirectRule``.
        let followsRedirectsFromHTTPSToHTTP: Bool

        init(followsRedirectsFromHTTPSToHTTP: Bool) {
            self.followsRedirectsFromHTTPSToHTTP = followsRedirectsFromHTTPSToHTTP
            idleTimer = DispatchSource.makeTimerSource(
                queue: DispatchQueue(label: "Sluice.NetworkRequestPerformer.timeouts")
            )
            super.init()
            idleTimer.setEventHandler { [weak self] in
                self?.checkIdleTimeouts()
            }
            idleTimer.resume()
        }

        deinit {
            idleTimer.cancel()
        }

        /// Registers a task; returns whether to resume it (not when it was cancelled first).
        func start(
            _ identifier: Int,
            continuation: CheckedContinuation<HTTPResponse, any Error>,
            limit: Int,
            upload: TransportScope.UploadWatch?
        ) -> Bool {
            let cancelled = state.withLock { state in
                if state.cancelledEarly.remove(identifier) != nil {
                    return true
                }
                state.entries[identifier] = Entry(continuation: continuation, limit: limit, upload: upload)
                inFlight.add(1)
                return false
            }
            if cancelled {
                continuation.resume(throwing: URLError(.cancelled))
            }
            return !cancelled
        }

        /// Registers a streamed task; returns whether to resume it (not when it was cancelled first).
        func startStream(
            _ identifier: Int,
            head: CheckedContinuation<HTTPResponse.Streamed, any Error>,
            bufferLimit: Int,
            upload: TransportScope.UploadWatch?
        ) -> Bool {
            let cancelled = state.withLock { state in
                if state.cancelledEarly.remove(identifier) != nil {
                    return true
                }
                state.entries[identifier] = Entry(head: head, limit: bufferLimit, upload: upload)
                inFlight.add(1)
                return false
            }
            if cancelled {
                head.resume(throwing: URLError(.cancelled))
            }
            return !cancelled
        }

        /// Notes a cancellation that may come before `start`, so that the continuation is never left waiting.
        func cancel(_ identifier: Int) {
            state.withLock { state in
                if state.entries[identifier] == nil {
                    state.cancelledEarly.insert(identifier)
                }
            }
        }

        /// Fails a task with `URLError(.timedOut)` once `idleTimeout` passes without a byte of the response.
        ///
        /// The shared timer is set for the moment the timeout would end when it is not set for an earlier one.
        func watch(_ task: URLSessionTask, idleTimeout: Duration) {
            let identifier = task.taskIdentifier
            state.withLock { state in
                guard let lastActivity = state.entries[identifier]?.lastActivity else { return }
                state.entries[identifier]?.idle = (idleTimeout, task)
                setIdleTimer(for: lastActivity + idleTimeout, in: &state)
            }
        }

        /// Fails the tasks that have been idle for their timeout, and sets the timer again for the earliest moment a
        /// timeout left could end; a paused task (a reader that is behind) is not idle, and is looked at again a
        /// timeout's length later.
        func checkIdleTimeouts() {
            let now = ContinuousClock.now
            let expired = state.withLock { state -> [URLSessionTask] in
                var expired: [URLSessionTask] = []
                state.timerDeadline = nil
                for (identifier, entry) in state.entries {
                    guard let (timeout, task) = entry.idle else { continue }
                    let deadline = entry.paused ? now + timeout : entry.lastActivity + timeout
                    if deadline <= now {
                        state.entries[identifier]?.failure = entry.failure ?? URLError.idleTimeout(timeout)
                        state.entries[identifier]?.idle = nil
                        expired.append(task)
                    } else {
                        setIdleTimer(for: deadline, in: &state)
                    }
                }
                return expired
            }
            for task in expired {
                task.cancel()
            }
        }

        /// Sets the shared timer to fire at a moment of the continuous clock, unless it is set to fire before.
        ///
        /// Called under the table's lock, so that two threads setting it cannot leave it set for the later moment.
        func setIdleTimer(for deadline: ContinuousClock.Instant, in state: inout State) {
            if let armed = state.timerDeadline, armed <= deadline {
                return
            }
            state.timerDeadline = deadline
            let remaining = max(deadline - ContinuousClock.now, .zero)
            idleTimer.schedule(deadline: .now() + remaining.dispatchInterval)
        }

    }
}

extension Duration {
    /// This duration for Dispatch, in nanoseconds; `.never` when it is more than Dispatch can count.
    fileprivate var dispatchInterval: DispatchTimeInterval {
        let (seconds, attoseconds) = components
        let (nanoseconds, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        let (total, overflowAgain) = nanoseconds.addingReportingOverflow(attoseconds / 1_000_000_000)
        guard !overflow, !overflowAgain, let interval = Int(exactly: total) else { return .never }
        return .nanoseconds(interval)
    }
}

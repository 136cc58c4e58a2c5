extension NetworkRequestPerformer {
    /// The state of the performer's in-flight tasks, and the session delegate that fills it in.
    ///
    /// `@unchecked Sendable`: all mutable state is in a `Locked` box; URLSession calls the delegate methods on its
    /// own queue, and `perform` calls `start` and `cancel` from any task.
    final class TaskTable: NSObject, URLSessionDataDelegate, @unchecked Sendable {
        private struct Entry {
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
        private struct State {
            /// In-flight tasks by identifier.
            var entries: [Int: Entry] = [:]
            /// Identifiers cancelled before they were started.
            var cancelledEarly: Set<Int> = []
            /// When ``TaskTable/idleTimer`` is set to fire, if it is.
            var timerDeadline: ContinuousClock.Instant?
        }

        private let state = Locked(State())

        /// The tasks started and not completed: the entries of the table, counted as they are added and removed,
        /// under the table's lock.
        let inFlight = Gauge()

        /// One timer for the idle timeouts of every task, set for the earliest moment one could end.
        ///
        /// A request only notes its timeout; the timer is set again only when that timeout would end before the
        /// moment the timer is set for. When it fires it fails the tasks idle for their timeout and is set for the
        /// next moment one could end, so a task that keeps receiving is looked at about once a timeout's length,
        /// and nothing is made or cancelled per request.
        private let idleTimer: any DispatchSourceTimer

        /// Whether a redirect from `https` to `http` is followed; see ``RedirectRule``.
        private let followsRedirectsFromHTTPSToHTTP: Bool

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
        private func checkIdleTimeouts() {
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
        private func setIdleTimer(for deadline: ContinuousClock.Instant, in state: inout State) {
            if let armed = state.timerDeadline, armed <= deadline {
                return
            }
            state.timerDeadline = deadline
            let remaining = max(deadline - ContinuousClock.now, .zero)
            idleTimer.schedule(deadline: .now() + remaining.dispatchInterval)
        }

        func urlSession(
            _ session: URLSession,
            dataTask: URLSessionDataTask,
            didReceive response: URLResponse,
            completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
        ) {
            let identifier = dataTask.taskIdentifier
            // A redirect refused by the rule: the task ends with the rule's error, not with the redirect response.
            guard state.withLock({ $0.entries[identifier]?.failure == nil }) else {
                completionHandler(.cancel)
                return
            }
            let streamed = state.withLock {
                state -> (CheckedContinuation<HTTPResponse.Streamed, any Error>, HTTPBody)? in
                guard var entry = state.entries[identifier], let head = entry.head else { return nil }
                let length = response.expectedContentLength
                let (body, writer) = HTTPBody.makeStream(expectedLength: length >= 0 ? length : nil)
                entry.head = nil
                entry.writer = writer
                entry.response = response as? HTTPURLResponse
                entry.lastActivity = .now
                state.entries[identifier] = entry
                return (head, body)
            }
            if let (head, body) = streamed {
                guard let http = response as? HTTPURLResponse else {
                    completionHandler(.cancel)
                    head.resume(throwing: URLError(.badServerResponse))
                    return
                }
                watchReader(of: dataTask)
                completionHandler(.allow)
                head.resume(returning: HTTPResponse.Streamed(http, body: body))
                return
            }
            let tooLarge = state.withLock { state -> Int? in
                guard var entry = state.entries[dataTask.taskIdentifier] else { return nil }
                entry.response = response as? HTTPURLResponse
                entry.lastActivity = .now
                defer { state.entries[dataTask.taskIdentifier] = entry }
                if response.expectedContentLength > entry.limit {
                    entry.failure = TaskTable.tooLarge(declared: response.expectedContentLength, limit: entry.limit)
                    return entry.limit
                }
                return nil
            }
            completionHandler(tooLarge == nil ? .allow : .cancel)
        }

        /// Ends the transfer when the reader of a streamed body goes, and, where URLSession can pause a transfer,
        /// resumes it when the reader has caught up.
        private func watchReader(of task: URLSessionDataTask) {
            let identifier = task.taskIdentifier
            guard
                let (writer, limit) = state.withLock({ state in
                    state.entries[identifier].flatMap { entry in entry.writer.map { ($0, entry.limit) } }
                })
            else { return }
            writer.onTermination { [weak task] _ in
                task?.cancel()
            }
            #if canImport(Darwin)
            writer.onDemand(highWater: TaskTable.pauseThreshold(limit), lowWater: TaskTable.pauseThreshold(limit) / 4) {
                [weak self, weak task] in
                guard let self, let task else { return }
                let resume = self.state.withLock { state -> Bool in
                    guard state.entries[identifier]?.paused == true else { return false }
                    state.entries[identifier]?.paused = false
                    state.entries[identifier]?.lastActivity = .now
                    return true
                }
                if resume {
                    task.resume()
                }
            }
            #endif
        }

        /// The waiting bytes at which a transfer is paused: a quarter of the buffer limit, so that the chunks
        /// already on their way when it pauses fit in the rest.
        private static func pauseThreshold(_ limit: Int) -> Int {
            max(limit / 4, 1)
        }

        /// Hands a chunk of a streamed body to its reader; pauses the transfer when the reader is behind where
        /// URLSession can, and fails it when the reader is more than the buffer limit behind.
        private func deliver(_ data: Data, to task: URLSessionDataTask) -> Bool {
            let identifier = task.taskIdentifier
            guard
                let (writer, limit) = state.withLock({ state -> (HTTPBody.Writer, Int)? in
                    guard var entry = state.entries[identifier], let writer = entry.writer, entry.failure == nil else {
                        return nil
                    }
                    entry.lastActivity = .now
                    state.entries[identifier] = entry
                    return (writer, entry.limit)
                })
            else { return false }
            let buffered = writer.write(data)
            if buffered > limit {
                state.withLock { state in
                    state.entries[identifier]?.failure = SluiceError(
                        .transport,
                        message: "the reader of the streamed body fell more than \(limit) bytes behind, the "
                            + "performer's stream buffer limit; URLSession on this platform cannot pause a transfer"
                    )
                }
                TaskTable.cancelFromTheDelegateQueue(task)
                return true
            }
            #if canImport(Darwin)
            if buffered > TaskTable.pauseThreshold(limit) {
                let pause = state.withLock { state -> Bool in
                    guard state.entries[identifier]?.paused == false else { return false }
                    state.entries[identifier]?.paused = true
                    return true
                }
                if pause {
                    task.suspend()
                }
            }
            #endif
            return true
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            if deliver(data, to: dataTask) {
                return
            }
            let identifier = dataTask.taskIdentifier
            let exceeded = state.withLock { state -> Bool in
                // Changed in place: a copy of the entry would share its body's storage with the table, and
                // appending to it would copy the whole body for every chunk.
                guard
                    let (received, limit) = state.entries[identifier].flatMap({ entry in
                        entry.failure == nil ? (entry.body.count, entry.limit) : nil
                    })
                else { return false }
                state.entries[identifier]?.lastActivity = .now
                if received + data.count > limit {
                    state.entries[identifier]?.failure = TaskTable.tooLarge(declared: nil, limit: limit)
                    state.entries[identifier]?.body = Data()
                    return true
                }
                state.entries[identifier]?.body.append(data)
                return false
            }
            if exceeded {
                TaskTable.cancelFromTheDelegateQueue(dataTask)
            }
        }

        /// Cancels a task from a delegate call without waiting for URLSession's own queue.
        ///
        /// FoundationNetworking's `cancel()` waits for that queue (Swift 6.3), which may itself be waiting for the
        /// delegate queue to make room (``BoundedDelegateQueue``): the cancellation is made from another thread.
        private static func cancelFromTheDelegateQueue(_ task: URLSessionTask) {
            #if canImport(FoundationNetworking)
            DispatchQueue.global().async {
                task.cancel()
            }
            #else
            task.cancel()
            #endif
        }

        /// Follows a redirect that ``RedirectRule`` allows, without the credentials when it leaves the origin
        /// (scheme, host and port) that they were sent to, and with the stored cookies for its URL, those the
        /// redirect response set included, as URLSession sends them without a delegate.
        ///
        /// A redirect the rule refuses is not followed, and the task fails with the rule's error once URLSession has
        /// delivered the redirect response in its place.
        func urlSession(
            _ session: URLSession,
            task: URLSessionTask,
            willPerformHTTPRedirection response: HTTPURLResponse,
            newRequest request: URLRequest,
            completionHandler: @escaping @Sendable (URLRequest?) -> Void
        ) {
            // The target as the Location names it: FoundationNetworking resolves some itself to another URL (a
            // `file:///etc/passwd` to a path on the same server), which would hide what the server asked for.
            let location = response.value(forHTTPHeaderField: "Location")
            let named = location.flatMap { URL(string: $0, relativeTo: response.url)?.absoluteURL }
            if let target = named ?? request.url,
                let reason = RedirectRule.refusal(
                    from: response.url,
                    location: location,
                    to: target,
                    allowingDowngrade: followsRedirectsFromHTTPSToHTTP
                )
            {
                let identifier = task.taskIdentifier
                state.withLock { $0.entries[identifier]?.failure = RedirectRule.refused(to: target, because: reason) }
                completionHandler(nil)
                return
            }
            var redirected = request.droppingCredentials(leaving: response.url)
            let configuration = session.configuration
            if let storage = configuration.httpCookieStorage, configuration.httpShouldSetCookies,
                let url = response.url
            {
                // Stored here as well as by URLSession, which may store them only after this method returns.
                let fields = response.allHeaderFields.reduce(into: [String: String]()) { fields, field in
                    if let name = field.key as? String, let value = field.value as? String {
                        fields[name] = value
                    }
                }
                storage.setCookies(
                    HTTPCookie.cookies(withResponseHeaderFields: fields, for: url),
                    for: url,
                    mainDocumentURL: task.originalRequest?.mainDocumentURL ?? url
                )
            }
            // The redirected request may not keep the original's choice about cookies.
            redirected.httpShouldHandleCookies = task.originalRequest?.httpShouldHandleCookies ?? true
            let storage = configuration.httpShouldSetCookies ? configuration.httpCookieStorage : nil
            redirected = redirected.addingStoredCookies(from: storage)
            completionHandler(redirected)
        }

        /// Reports the bytes of the body sent so far, which FoundationNetworking counts as it reads the body for
        /// libcurl, whether the body is data or a stream.
        func urlSession(
            _ session: URLSession,
            task: URLSessionTask,
            didSendBodyData bytesSent: Int64,
            totalBytesSent: Int64,
            totalBytesExpectedToSend: Int64
        ) {
            guard let upload = state.withLock({ $0.entries[task.taskIdentifier]?.upload }) else { return }
            let expected = upload.expected ?? (totalBytesExpectedToSend > 0 ? totalBytesExpectedToSend : nil)
            upload.report(totalBytesSent, expected)
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            guard let entry = state.withLock({ remove(task.taskIdentifier, from: &$0) }) else { return }
            resume(entry, response: entry.response ?? task.response, error: error)
        }

        /// Completes a task of a session whose delegate is not this table, from its completion handler.
        func finish(_ identifier: Int, body: Data, response: URLResponse?, error: (any Error)?) {
            guard var entry = state.withLock({ remove(identifier, from: &$0) }) else { return }
            if body.count > entry.limit {
                entry.failure = entry.failure ?? TaskTable.tooLarge(declared: Int64(body.count), limit: entry.limit)
            }
            entry.body = body
            resume(entry, response: response, error: error)
        }

        /// Takes a completed task's entry out of the table, under its lock, and counts it out of ``inFlight``.
        private func remove(_ identifier: Int, from state: inout State) -> Entry? {
            guard let entry = state.entries.removeValue(forKey: identifier) else { return nil }
            inFlight.add(-1)
            return entry
        }

        private func resume(_ entry: Entry, response: URLResponse?, error: (any Error)?) {
            if let head = entry.head {
                head.resume(throwing: entry.failure ?? error ?? URLError(.badServerResponse))
                return
            }
            if let writer = entry.writer {
                writer.finish(throwing: entry.failure ?? error)
                return
            }
            guard let continuation = entry.continuation else { return }
            if let failure = entry.failure ?? error {
                continuation.resume(throwing: failure)
                return
            }
            guard let response = response as? HTTPURLResponse else {
                continuation.resume(throwing: URLError(.badServerResponse))
                return
            }
            continuation.resume(returning: HTTPResponse(response, body: entry.body))
        }

        private static func tooLarge(declared: Int64?, limit: Int) -> SluiceError {
            HTTPBody.tooLarge(size: declared.map { "\($0) bytes" } ?? "more than \(limit) bytes", limit: limit)
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

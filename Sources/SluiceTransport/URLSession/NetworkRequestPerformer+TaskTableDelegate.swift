/// The session delegate's side of the task table: URLSession's calls, on its own queue, filling in the entries and
/// resuming who waits.
extension NetworkRequestPerformer.TaskTable {
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
                entry.failure = Self.tooLarge(declared: response.expectedContentLength, limit: entry.limit)
                return entry.limit
            }
            return nil
        }
        completionHandler(tooLarge == nil ? .allow : .cancel)
    }

    /// Ends the transfer when the reader of a streamed body goes, and, where URLSession can pause a transfer,
    /// resumes it when the reader has caught up.
    func watchReader(of task: URLSessionDataTask) {
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
    static func pauseThreshold(_ limit: Int) -> Int {
        max(limit / 4, 1)
    }

    /// Hands a chunk of a streamed body to its reader; pauses the transfer when the reader is behind where
    /// URLSession can, and fails it when the reader is more than the buffer limit behind.
    func deliver(_ data: Data, to task: URLSessionDataTask) -> Bool {
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
            Self.cancelFromTheDelegateQueue(task)
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
                state.entries[identifier]?.failure = Self.tooLarge(declared: nil, limit: limit)
                state.entries[identifier]?.body = Data()
                return true
            }
            state.entries[identifier]?.body.append(data)
            return false
        }
        if exceeded {
            Self.cancelFromTheDelegateQueue(dataTask)
        }
    }

    /// Cancels a task from a delegate call without waiting for URLSession's own queue.
    ///
    /// FoundationNetworking's `cancel()` waits for that queue (Swift 6.3), which may itself be waiting for the
    /// delegate queue to make room (``BoundedDelegateQueue``): the cancellation is made from another thread.
    static func cancelFromTheDelegateQueue(_ task: URLSessionTask) {
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
            entry.failure = entry.failure ?? Self.tooLarge(declared: Int64(body.count), limit: entry.limit)
        }
        entry.body = body
        resume(entry, response: response, error: error)
    }

    /// Takes a completed task's entry out of the table, under its lock, and counts it out of ``inFlight``.
    func remove(_ identifier: Int, from state: inout State) -> Entry? {
        guard let entry = state.entries.removeValue(forKey: identifier) else { return nil }
        inFlight.add(-1)
        return entry
    }

    func resume(_ entry: Entry, response: URLResponse?, error: (any Error)?) {
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

    static func tooLarge(declared: Int64?, limit: Int) -> SluiceError {
        HTTPBody.tooLarge(size: declared.map { "\($0) bytes" } ?? "more than \(limit) bytes", limit: limit)
    }
}

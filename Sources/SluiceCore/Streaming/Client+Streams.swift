extension Client {
    /// Sends a request and returns the lines of its body as they arrive.
    ///
    /// Lines end with LF, CR or CRLF, also when the CR ends one chunk and the LF starts the next; they come without
    /// their terminators, and the last line is returned even without one. Text is decoded as UTF-8, with replacement
    /// characters for bytes that are not. A line longer than `maximumLength` fails the stream with a ``SluiceError``
    /// whose ``StreamParseError`` names the line. See <doc:Streaming>.
    ///
    /// ```swift
    /// for try await line in try await client.lines(TailLog(service: "api")) {
    ///     print(line)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - request: The request; its parser and `parse` are not used.
    ///   - maximumLength: The most bytes a line may hold; 1 MiB by default.
    /// - Returns: The lines, read once.
    /// - Throws: ``SluiceError`` naming the stage that failed before the body.
    public func lines<R: Request>(
        _ request: R,
        maximumLength: Int = 1 << 20
    ) async throws(SluiceError) -> ResponseStream<String> {
        let head = try await stream(request)
        return .reading(head, head.body.decodingLines(maximumLength: maximumLength))
    }

    /// Sends a request and decodes each line of its JSON Lines (NDJSON) body as it arrives.
    ///
    /// Each line is one JSON document, decoded with `decoder`; lines end as for
    /// ``Client/lines(_:maximumLength:)``. Blank lines are skipped, and still counted; a line that is not JSON, or
    /// not a `Record`, fails the stream with a ``SluiceError`` whose ``StreamParseError`` names the line. See
    /// <doc:Streaming>.
    ///
    /// ```swift
    /// for try await entry in try await client.jsonLines(ExportAudit(), of: AuditEntry.self) {
    ///     print(entry.action)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - request: The request; its parser and `parse` are not used.
    ///   - type: The type of each record.
    ///   - decoder: The decoder; a default `JSONDocumentDecoder` by default.
    ///   - maximumLineLength: The most bytes a line may hold; 1 MiB by default.
    /// - Returns: The records, read once.
    /// - Throws: ``SluiceError`` naming the stage that failed before the body.
    public func jsonLines<R: Request, Record: Decodable & Sendable>(
        _ request: R,
        of type: Record.Type,
        decoder: JSONDocumentDecoder = JSONDocumentDecoder(),
        maximumLineLength: Int = 1 << 20
    ) async throws(SluiceError) -> ResponseStream<Record> {
        let head = try await stream(request)
        return .reading(
            head,
            head.body.decodingJSONLines(of: type, decoder: decoder, maximumLineLength: maximumLineLength)
        )
    }

    /// Sends a request and returns the server-sent events of its `text/event-stream` body as they arrive,
    /// reconnecting as an `EventSource` does when the connection ends.
    ///
    /// Events are read by the WHATWG HTML standard's rules, as a browser's `EventSource` reads them (see
    /// <doc:Streaming>). The response must be `text/event-stream`; any other `Content-Type` fails with
    /// ``SluiceError/Code/deserialize``. A `204 No Content` ends the stream: the server has nothing to send.
    ///
    /// When the body ends, or the connection fails or is cut, the stream reconnects, unless `policy` is `nil`: it
    /// waits the time the server's last `retry` field set or, when it set none, the policy's backoff, then sends the
    /// request again, built afresh, with `Last-Event-ID` set to the last event ID the server gave, so that it can
    /// resume after it. A reconnection that fails in the transport, or is answered with one of the policy's
    /// ``RetryingPerformer/Policy/retryableStatuses``, counts as a failed attempt and is tried again; after
    /// ``RetryingPerformer/Policy/maximumAttempts`` attempts in a row with no event between them, the stream throws the last
    /// failure (or, when the server had closed the stream normally, ends). Another status, a `Content-Type` that is
    /// not an event stream, an event past its limit or the reading task's cancellation end it at once. A request
    /// the policy does not allow to be sent again (a `POST`, unless ``RetryingPerformer/Policy/retriesNonIdempotentMethods``) is
    /// not reconnected.
    ///
    /// ```swift
    /// for try await event in try await client.events(PriceFeed(symbol: "ACME")) {
    ///     print(event.type, event.data)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - request: The request; its parser and `parse` are not used.
    ///   - policy: How often and after how long to reconnect, or `nil` not to; ``RetryingPerformer/Policy/default`` by default.
    ///   - clock: The clock the waits are measured on; a `ContinuousClock` by default.
    /// - Returns: The events, read once.
    /// - Throws: ``SluiceError`` naming the stage that failed before the first event stream's body.
    public func events<R: Request>(
        _ request: R,
        reconnecting policy: RetryingPerformer.Policy? = .default,
        clock: any Clock<Duration> = ContinuousClock()
    ) async throws(SluiceError) -> ResponseStream<ServerSentEvent> {
        let first = try await eventStream(request)
        let response = HTTPResponse(status: first.status, headers: first.headers, url: first.url)
        let reconnects = policy.flatMap { policy in
            (try? request.build()).map { policy.allowsRetrying($0) } ?? false ? policy : nil
        }
        let connection = EventConnection(client: self, request: request, policy: reconnects, clock: clock)
        return ResponseStream(response: response) {
            var state = EventConnection<Self, R>.State(current: first)
            return ResponseStream.AsyncIterator { () async throws(SluiceError) -> ServerSentEvent? in
                try await connection.next(&state)
            }
        }
    }

    /// Sends a request for an event stream: checks its type, and answers a 204 with an empty body.
    fileprivate func eventStream<R: Request>(_ request: R) async throws(SluiceError) -> HTTPResponse.Streamed {
        let head = try await stream(request)
        if head.status.code == 204 {
            return head.replacingBody(with: HTTPBody(Data()))
        }
        let type = head.headers[.contentType] ?? ""
        let mediaType = type.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        guard mediaType == "text/event-stream" else {
            throw SluiceError(
                .deserialize,
                stage: .deserialize,
                message: "the response is not an event stream: its Content-Type is "
                    + (type.isEmpty ? "missing" : "\"\(type)\""),
                response: HTTPResponse(status: head.status, headers: head.headers, url: head.url)
            )
        }
        return head
    }
}

/// The connections of one event stream: the one being read, and the reconnections after it.
private struct EventConnection<C: Client, R: Request>: Sendable {
    let client: C
    let request: R
    let policy: RetryingPerformer.Policy?
    let clock: any Clock<Duration>

    /// Where the stream is: the events being read, the last event ID and reconnection time, and the attempts made
    /// since the last event.
    struct State {
        var events: ServerSentEventDecodingSequence<HTTPBody>.AsyncIterator?
        var response: HTTPResponse
        var lastEventID = ""
        var retry: Duration?
        var failedAttempts = 0
        var ended = false

        init(current: HTTPResponse.Streamed) {
            events = current.body.decodingServerSentEvents().makeAsyncIterator()
            response = HTTPResponse(status: current.status, headers: current.headers, url: current.url)
            // A 204 says there is nothing to send: not even a reconnection.
            ended = current.status.code == 204
        }
    }

    func next(_ state: inout State) async throws(SluiceError) -> ServerSentEvent? {
        while !state.ended {
            var lastFailure: SluiceError?
            if var events = state.events {
                do {
                    let event = try await events.next()
                    state.lastEventID = events.lastEventID
                    state.retry = events.retry ?? state.retry
                    state.events = events
                    if let event {
                        state.failedAttempts = 0
                        return event
                    }
                } catch {
                    state.lastEventID = events.lastEventID
                    state.retry = events.retry ?? state.retry
                    let failure = ResponseStream<ServerSentEvent>.streamError(error, response: state.response)
                    guard failure.code == .transport || failure.code == .timedOut else {
                        state.ended = true
                        throw failure
                    }
                    lastFailure = failure
                }
                state.events = nil
            }
            try await reconnect(&state, after: lastFailure)
        }
        return nil
    }

    /// Opens the next connection, after the wait; ends the stream when the policy does not allow another.
    private func reconnect(_ state: inout State, after failure: SluiceError?) async throws(SluiceError) {
        var failure = failure
        while true {
            guard let policy, state.failedAttempts + 1 < policy.maximumAttempts else {
                state.ended = true
                if let failure { throw failure }
                return
            }
            state.failedAttempts += 1
            let delay = state.retry ?? policy.backoff(before: state.failedAttempts + 1)
            do {
                try await clock.sleep(for: delay)
            } catch {
                state.ended = true
                throw SluiceError(.cancelled, stage: .transport, response: state.response, underlyingError: error)
            }
            do {
                let next = try await client.eventStream(
                    HeaderSettingRequest(
                        base: request,
                        headers: state.lastEventID.isEmpty ? [:] : ["Last-Event-ID": state.lastEventID]
                    )
                )
                if next.status.code == 204 {
                    state.ended = true
                    return
                }
                state.events = ServerSentEventDecodingSequence(
                    base: next.body,
                    lastEventID: state.lastEventID,
                    retry: state.retry
                ).makeAsyncIterator()
                state.response = HTTPResponse(status: next.status, headers: next.headers, url: next.url)
                return
            } catch {
                let retryable =
                    error.code == .transport || error.code == .timedOut
                    || (error.code == .status
                        && error.status.map { policy.retryableStatuses.contains($0.code) } == true)
                guard retryable else {
                    state.ended = true
                    throw error
                }
                failure = error
            }
        }
    }
}

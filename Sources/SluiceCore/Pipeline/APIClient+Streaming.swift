extension APIClient {
    /// The most bytes of an unaccepted streamed response's body read for its error, as ``SluiceError/response``
    /// and for ``Request/errorResponse(from:)``.
    public static let streamedErrorBodyLimit = 1 << 20

    /// Sends a request and returns as soon as the head has arrived and its status is accepted, with the body still
    /// arriving.
    ///
    /// The request goes through the same stages as ``perform(_:)`` up to the status check: built once, sent through
    /// the performer's streaming form (``RequestPerformer/stream(_:)``) under the request's ``RequestContext``, so
    /// that every decorator sees it, and within what is left of the ``deadline``. A status the client does not accept
    /// fails with ``SluiceError/Code/status``, its body read up to ``streamedErrorBodyLimit`` bytes for the error.
    ///
    /// The body throws ``SluiceError``s that name the transport stage and how many bytes arrived before the failure.
    /// The observers' finish event is sent once, when the body ends: read to its end, failed, cancelled, or left
    /// before its end by its reader (its iterator released, as when a loop is left early, even while the response is
    /// still held; or the body released unread). It carries the byte count, the time to the first byte and the body's
    /// time in its ``PipelineMetrics``; the observers never see the body itself.
    ///
    /// ```swift
    /// let response = try await client.stream(GetExport(id: 7))
    /// for try await chunk in response.body {
    ///     try output.write(contentsOf: chunk)
    /// }
    /// ```
    ///
    /// - Parameter request: The request; its parser and `parse` are not used.
    /// - Returns: The head and the body.
    /// - Throws: ``SluiceError`` naming the stage that failed before the body.
    public func stream<R: Request>(_ request: R) async throws(SluiceError) -> HTTPResponse.Streamed {
        var record = PipelineRecord()
        do {
            let elapsed = deadline.map { _ in Stopwatch(self.clock) }
            let (urlRequest, context) = try build(request, into: &record, elapsed: elapsed)
            let sent = ContinuousClock.now
            let head = try await transport(urlRequest, in: context, into: &record, elapsed: elapsed) {
                performer,
                request in
                try await performer.stream(request)
            }
            let headOnly = HTTPResponse(status: head.status, headers: head.headers, url: head.url)
            if !acceptableStatus.accepts(head.status) {
                var response = headOnly
                response.body = (try? await head.body.collect(upTo: APIClient.streamedErrorBodyLimit)) ?? Data()
                record.response = response
                try checkStatus(of: response, for: request, sent: urlRequest)
            }
            record.response = headOnly
            let monitor = StreamMonitor(client: self, request: urlRequest, record: record, sent: sent)
            return head.replacingBody(with: head.body.relayed { try await monitor.next(from: &$0) })
        } catch {
            throw fail(record, error)
        }
    }
}

/// Watches a streamed body for the client: counts its bytes, times its first byte and its end, turns what fails it
/// into a ``SluiceError``, and sends the observers their finish event once, when it ends however it ends.
private final class StreamMonitor: Sendable {
    private struct State {
        var record: APIClient.PipelineRecord
        var bytes = 0
        var finished = false
    }

    private let client: APIClient
    private let request: URLRequest
    private let sent: ContinuousClock.Instant
    private let headArrived = ContinuousClock.now
    private let state: Locked<State>

    init(client: APIClient, request: URLRequest, record: APIClient.PipelineRecord, sent: ContinuousClock.Instant) {
        self.client = client
        self.request = request
        self.sent = sent
        self.state = Locked(State(record: record))
    }

    /// Reads the next chunk for the reader: counts it, or ends the watch at the end of the body or with what failed
    /// it, which the reader then receives as a ``SluiceError``.
    func next(from iterator: inout HTTPBody.AsyncIterator) async throws -> Data? {
        do {
            guard let chunk = try await iterator.next() else {
                finish(nil)
                return nil
            }
            received(chunk)
            return chunk
        } catch {
            throw finish(error) ?? SluiceError(.transport, underlyingError: error)
        }
    }

    private func received(_ chunk: Data) {
        let isFirst = state.withLock { state in
            state.bytes += chunk.count
            return state.record.metrics.timeToFirstByte == nil
        }
        // The clock is read for the first chunk only: the others pass with a count.
        if isFirst {
            let now = ContinuousClock.now
            state.withLock { $0.record.metrics.timeToFirstByte = now - sent }
        }
    }

    /// Ends the watch at the end of the body, or with what failed it; returns the error for the reader.
    @discardableResult
    func finish(_ error: (any Error)?) -> SluiceError? {
        let now = ContinuousClock.now
        guard
            let (record, bytes) = state.withLock({ state -> (APIClient.PipelineRecord, Int)? in
                guard !state.finished else { return nil }
                state.finished = true
                state.record.metrics.streamedBody = now - headArrived
                state.record.metrics.responseBodyBytes = state.bytes
                return (state.record, state.bytes)
            })
        else {
            return error.map { wrap($0, bytes: 0, expected: nil) }
        }
        guard let error else {
            client.finish(record, error: nil)
            return nil
        }
        let expected = record.response?.headers[.contentLength].flatMap { Int($0) }
        let failure = wrap(error, bytes: bytes, expected: expected)
        return client.fail(record, failure)
    }

    /// What failed a body, as the ``SluiceError`` its reader receives: the transport stage, with the bytes that
    /// arrived before it.
    private func wrap(_ error: any Error, bytes: Int, expected: Int?) -> SluiceError {
        let transportError = APIClient.transportError(error, request: request)
        let received = expected.map { "\(bytes) of \($0) bytes" } ?? "\(bytes) bytes"
        let message: String
        if transportError.code == .cancelled {
            message = "the response body was cancelled after \(received)"
        } else {
            message = "the response body failed after \(received): \(transportError.message)"
        }
        var wrapped = SluiceError(
            transportError.code,
            stage: .transport,
            message: message,
            request: request,
            underlyingError: error
        )
        wrapped.credentials = transportError.credentials
        return wrapped
    }

    deinit {
        // Released with the body's iterator when its reader leaves it before its end (a loop left early), or with
        // the body when it is released unread; after the end, the watch has finished already.
        finish(CancellationError())
    }
}

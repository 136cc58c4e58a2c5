import Foundation

extension HTTP2Connection {
    // MARK: Starting

    /// Starts an exchange on a stream of its own, on a lease just taken from the pool.
    ///
    /// The request's frames go out from the calling thread as far as the socket takes them, the rest and the response
    /// are the loop's. On a connection the server has been silent on, the request waits for the answer to a PING
    /// first (``HTTP2Connection/Liveness``).
    func start(_ exchange: Exchange) {
        lock.withLock { _ in
            guard !exchange.cancelled.withLock({ $0 }) else {
                pool.release(self, reusable: !isClosed && !isDraining, idleSince: loop.now)
                exchange.fail(CancellationError())
                return
            }
            guard !isClosed, !isDraining else {
                pool.release(self, reusable: false, idleSince: loop.now)
                exchange.fail(
                    UnprocessedStream(
                        error: failure
                            ?? SluiceError.connectionLost("the HTTP/2 connection to \(origin) was going away")
                    )
                )
                return
            }
            becameIdle = nil
            if awaitsPingAnswer() {
                held.append(exchange)
            } else {
                submit(exchange)
            }
            flush()
        }
    }

    /// Sends an exchange's request on a new stream; under the lock.
    func submit(_ exchange: Exchange) {
        exchange.protocolVersion = "HTTP/2"
        exchange.lastProgress = loop.now
        let request = exchange.request
        let fields = exchange.head.http2Fields(scheme: origin.usesTLS ? "https" : "http")
        // What the body is read from, decided once: bytes in memory, a stream, or nothing.
        let bodyData = request.httpBody.flatMap { $0.isEmpty ? nil : $0 }
        let bodyStream = request.httpBody == nil ? request.httpBodyStream : nil
        let pending = PendingStream()
        var source: HTTP2Session.BodySource?
        if bodyData != nil || bodyStream != nil {
            bodyStream?.open()
            source = { [weak self] buffer in self?.readBody(of: pending, into: buffer) ?? .end }
        }
        let identifier: Int32
        do {
            identifier = try session.submitRequest(fields, body: source)
        } catch {
            bodyStream?.close()
            releaseStream()
            exchange.fail(error)
            return
        }
        let stream = Stream(identifier: identifier, exchange: exchange)
        stream.bodyData = bodyData
        stream.bodyStream = bodyStream
        pending.stream = stream
        streams[identifier] = stream
        exchange.http2Stream = identifier
    }

    /// Ends an exchange with a cancellation: its stream is reset, and the connection goes on with the others.
    func cancel(_ exchange: Exchange) {
        lock.withLock { _ in
            if let index = held.firstIndex(where: { $0 === exchange }) {
                held.remove(at: index)
                dropCancelled(exchange)
                return
            }
            guard let identifier = exchange.http2Stream, let stream = streams[identifier], stream.exchange === exchange
            else { return }
            reset(stream, because: CancellationError())
            flush()
        }
    }

    /// Resets a stream this side no longer wants, gives its lease back, and fails its exchange.
    func reset(_ stream: Stream, because error: any Error) {
        guard streams.removeValue(forKey: stream.identifier) != nil else { return }
        session.reset(
            stream.identifier,
            because: SluiceError(.transport, message: "the stream was reset by this client")
        )
        endStream(stream)
        releaseStream()
        stream.exchange.fail(error)
    }

    /// Lets go of a stream's body and reader.
    func endStream(_ stream: Stream) {
        stream.bodyStream?.close()
        stream.bodyStream = nil
        stream.bodyData = nil
        stream.exchange.writer = nil
    }

    /// Gives a stream's lease back to the pool; a draining connection closes with its last stream.
    func releaseStream() {
        if streams.isEmpty && held.isEmpty {
            becameIdle = loop.now
        }
        pool.release(self, reusable: !isClosed && !isDraining, idleSince: loop.now)
        if isDraining && streams.isEmpty {
            closeLocked()
        }
    }

    // MARK: Request bodies

    /// Fills a frame's buffer with the next bytes of a stream's request body, and reports the bytes sent.
    private func readBody(
        of pending: PendingStream,
        into buffer: UnsafeMutableRawBufferPointer
    ) -> HTTP2Session.BodyRead {
        // The session asks for the first bytes while the request is submitted, before the stream is known.
        guard let stream = pending.stream else { return .later }
        let exchange = stream.exchange
        if let data = stream.bodyData {
            let count = min(buffer.count, data.count - stream.bodyOffset)
            guard count > 0 else {
                stream.bodyData = nil
                return .end
            }
            data.withUnsafeBytes { bytes in
                buffer.copyMemory(
                    from: UnsafeRawBufferPointer(rebasing: bytes[stream.bodyOffset..<stream.bodyOffset + count])
                )
            }
            stream.bodyOffset += count
            exchange.bodyBytesSent += Int64(count)
            exchange.lastProgress = loop.now
            exchange.upload?(exchange.bodyBytesSent, Int64(data.count))
            return .bytes(count)
        }
        guard let body = stream.bodyStream else { return .end }
        if stream.leftover.isEmpty {
            do {
                if let async = body as? AsyncBodyStream {
                    let identifier = stream.identifier
                    let taken = try async.channel.take(whenReady: { [weak self] in
                        self?.loop.execute { [weak self] in self?.resumeBody(of: identifier) }
                    })
                    switch taken {
                    case .bytes(let bytes):
                        exchange.awaitingBody = false
                        stream.leftover = bytes
                    case .pending:
                        exchange.awaitingBody = true
                        return .later
                    case .end:
                        return finishBody(stream)
                    }
                } else {
                    var chunk = [UInt8](repeating: 0, count: buffer.count)
                    let count = body.read(&chunk, maxLength: chunk.count)
                    if count < 0 {
                        let reason = body.streamError.map { "\($0)" } ?? "an unknown error"
                        throw SluiceError(.transport, message: "reading the request body stream failed: \(reason)")
                    }
                    guard count > 0 else { return finishBody(stream) }
                    stream.leftover = Array(chunk[0..<count])
                }
            } catch let error as SluiceError {
                return .failed(error)
            } catch {
                return .failed(SluiceError(.transport, message: "reading the request body stream failed: \(error)"))
            }
        }
        let count = min(buffer.count, stream.leftover.count)
        stream.leftover.withUnsafeBytes { bytes in
            buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[0..<count]))
        }
        stream.leftover.removeFirst(count)
        exchange.bodyBytesSent += Int64(count)
        exchange.lastProgress = loop.now
        if case .length(let length) = exchange.head.framing {
            exchange.upload?(exchange.bodyBytesSent, length)
        } else {
            exchange.upload?(exchange.bodyBytesSent, nil)
        }
        return .bytes(count)
    }

    /// Ends a body stream: the last DATA frame ends the request.
    private func finishBody(_ stream: Stream) -> HTTP2Session.BodyRead {
        stream.bodyStream?.close()
        stream.bodyStream = nil
        return .end
    }

    /// Goes on sending a body whose producer has its next chunk; on the loop.
    private func resumeBody(of identifier: Int32) {
        lock.withLock { _ in
            guard !isClosed, let stream = streams[identifier], stream.exchange.awaitingBody else { return }
            stream.exchange.awaitingBody = false
            stream.exchange.lastProgress = loop.now
            session.resumeBody(of: identifier)
            flush()
        }
    }

    // MARK: Responses

    /// Acts on what the server's bytes meant, in order; what they held of streamed bodies then goes to the readers,
    /// a chunk a stream.
    func handle(_ events: [HTTP2Session.Event]) {
        defer { writeUnwritten() }
        for event in events {
            switch event {
            case .settings(let maximumConcurrentStreams):
                updateCapacity(serverLimit: maximumConcurrentStreams)
            case .head(let identifier, let status, let fields):
                guard let stream = streams[identifier] else { continue }
                let exchange = stream.exchange
                exchange.lastProgress = loop.now
                exchange.responseStarted = exchange.responseStarted ?? loop.now
                let length = fields.last { $0.name == "content-length" }.flatMap { Int64($0.value) }
                let head = ParsedHead(status: status, fields: fields, keepAlive: true, contentLength: length)
                do {
                    try exchange.takeHead(head) { writer in self.pace(writer, on: identifier, exchange) }
                } catch {
                    reset(stream, because: error)
                }
            case .trailers(let identifier, let fields):
                streams[identifier]?.exchange.trailers = HTTPHeaders(
                    fields.map { HTTPHeaders.Field(name: Header($0.name), value: $0.value) }
                )
            case .data(let identifier, let bytes):
                guard let stream = streams[identifier] else {
                    // A stream already reset: its bytes still count against the connection's window.
                    session.consume(bytes.count, on: identifier)
                    continue
                }
                take(bytes, on: stream)
            case .end(let identifier):
                guard let stream = streams[identifier] else { continue }
                complete(stream)
            case .closed(let identifier, let error):
                guard let stream = streams[identifier] else { continue }
                let reason =
                    error
                    ?? SluiceError.connectionLost(
                        "the server closed the HTTP/2 stream to \(origin) before the end of its response"
                    )
                streams[identifier] = nil
                endStream(stream)
                releaseStream()
                stream.exchange.fail(reason)
            case .refused(let identifier):
                guard let stream = streams[identifier] else { continue }
                unprocessed(
                    stream,
                    SluiceError.connectionLost("the server refused the HTTP/2 stream to \(origin) (REFUSED_STREAM)")
                )
            case .goAway(let lastStream, let errorCode):
                goingAway(lastStream: lastStream, errorCode: errorCode)
            case .pingAcknowledged:
                answered()
            }
        }
    }

    /// Hands each streamed body's reader the bytes this round read for it, then each held head to its task; a reader
    /// left behind stops its stream's window from opening.
    private func writeUnwritten() {
        for stream in streams.values where !stream.exchange.unwritten.isEmpty || stream.exchange.heldHead != nil {
            if stream.exchange.writeUnwritten(readAhead: readAhead) {
                stream.exchange.paused = true
            }
            stream.exchange.releaseHead()
        }
    }

    /// Fails a stream the server did not process, for the performer to send again elsewhere.
    private func unprocessed(_ stream: Stream, _ error: SluiceError) {
        streams[stream.identifier] = nil
        endStream(stream)
        releaseStream()
        stream.exchange.fail(UnprocessedStream(error: error))
    }

    /// Drains the connection on the server's `GOAWAY`: the streams above its last fail as unprocessed, the pool
    /// stops leasing it, and it closes with its last stream.
    private func goingAway(lastStream: Int32, errorCode: UInt32) {
        guard !isDraining else { return }
        isDraining = true
        let code = HTTP2Session.errorName(errorCode)
        let error = SluiceError.connectionLost(
            "the server sent GOAWAY with \(code) on the HTTP/2 connection to \(origin)"
        )
        failure = error
        failHeld(error)
        for stream in streams.values.sorted(by: { $0.identifier < $1.identifier }) where stream.identifier > lastStream
        {
            unprocessed(stream, error)
        }
        _ = pool.withdraw(self)
        if streams.isEmpty {
            closeLocked()
        }
    }

    /// Takes body bytes of a stream: a buffered body gives its window back at once, a streamed one as its reader
    /// keeps up.
    private func take(_ bytes: [UInt8], on stream: Stream) {
        let exchange = stream.exchange
        exchange.lastProgress = loop.now
        let behind: Bool
        do {
            behind = try bytes.withUnsafeBytes { try exchange.takeBody($0, readAhead: readAhead) }
        } catch {
            session.consume(bytes.count, on: stream.identifier)
            reset(stream, because: error)
            return
        }
        if behind || exchange.paused {
            exchange.paused = true
            stream.unconsumed += bytes.count
        } else {
            session.consume(bytes.count, on: stream.identifier)
        }
    }

    /// Ties a streamed body's reader to the stream's window: bytes the reader has not taken are not given back.
    private func pace(_ writer: HTTPBody.Writer, on identifier: Int32, _ exchange: Exchange) {
        let loop = self.loop
        writer.onDemand(highWater: readAhead, lowWater: readAhead / 4) { [weak self] in
            loop.execute { [weak self] in self?.resumeReading(identifier) }
        }
        writer.onTermination { [weak self] _ in
            loop.execute { [weak self] in self?.abandon(identifier, exchange) }
        }
    }

    /// Opens a paused stream's window again once its reader has caught up.
    private func resumeReading(_ identifier: Int32) {
        lock.withLock { _ in
            guard !isClosed, let stream = streams[identifier], stream.exchange.paused else { return }
            stream.exchange.paused = false
            stream.exchange.lastProgress = loop.now
            session.consume(stream.unconsumed, on: identifier)
            stream.unconsumed = 0
            flush()
        }
    }

    /// Resets the stream of a streamed body its reader dropped before its end.
    private func abandon(_ identifier: Int32, _ exchange: Exchange) {
        lock.withLock { _ in
            guard let stream = streams[identifier], stream.exchange === exchange else { return }
            exchange.writer = nil
            reset(stream, because: CancellationError())
            flush()
        }
    }

    /// Ends the exchange whose response has ended: the lease goes back, and the waiting task gets its response.
    private func complete(_ stream: Stream) {
        let exchange = stream.exchange
        streams[stream.identifier] = nil
        _ = exchange.writeUnwritten(readAhead: readAhead)
        do {
            try exchange.decoder?.finish()
        } catch {
            endStream(stream)
            releaseStream()
            exchange.fail(error)
            return
        }
        requestsServed += 1
        let delivery = exchange.delivery
        exchange.delivery = nil
        let writer = exchange.writer
        endStream(stream)
        releaseStream()
        if case .buffered(let continuation) = delivery, let head = exchange.responseHead {
            continuation.resume(returning: exchange.response(head: head))
        }
        writer?.finish(trailers: exchange.trailers)
        exchange.releaseHead()
    }
}

/// The stream a body source reads for, known once the request's stream has its identifier: nghttp2 may ask for the
/// first bytes while the request is submitted.
final class PendingStream {
    var stream: HTTP2Connection.Stream?
}

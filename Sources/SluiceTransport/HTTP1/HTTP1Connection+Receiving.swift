import Foundation

extension HTTP1Connection {
    /// Reads the response as far as the stream has it, for a bounded number of reads, into the parser, whose events
    /// go to the exchange; the exchange completes at the response's end.
    func receive(_ exchange: Exchange) {
        receiveRound(exchange)
        // What the round read of a streamed body goes to its reader at once, in one chunk, and then the head to the
        // waiting task, which finds the body there, and its end when it came in the round.
        if exchange.writeUnwritten(readAhead: readAhead), self.exchange === exchange {
            pause(exchange)
        }
        exchange.releaseHead()
    }

    /// Stops reading while a streamed body's reader is behind.
    private func pause(_ exchange: Exchange) {
        exchange.paused = true
        setInterest(requestSent ? [] : .writable)
    }

    /// One round of ``receive(_:)``: at most 16 reads.
    private func receiveRound(_ exchange: Exchange) {
        let buffer = loop.receiveBuffer
        for _ in 0..<16 {
            guard self.exchange === exchange, !exchange.paused else { return }
            switch stream.receive(into: buffer) {
            case .transferred(let count):
                exchange.lastProgress = loop.now
                if exchange.responseStarted == nil {
                    exchange.responseStarted = loop.now
                }
                let bytes = UnsafeRawBufferPointer(rebasing: buffer[0..<count])
                let consumed: Int
                do {
                    consumed = try parser.parse(bytes) { event in try self.take(event, exchange) }
                } catch {
                    failConnection(Self.responseError(error, origin: origin))
                    return
                }
                if parser.isComplete {
                    complete(exchange, extraBytes: count - consumed)
                    return
                }
            case .wouldBlock:
                return
            case .endOfStream:
                if !parser.hasStarted && requestsServed > 0 {
                    failConnection(
                        StaleConnection(
                            error: SluiceError.connectionLost(
                                "the server closed the kept-alive connection to \(origin)"
                            )
                        )
                    )
                    return
                }
                if let tls = stream.tls, tls.endedWithoutCloseNotify, parser.hasStarted {
                    // A TLS stream ends with close_notify: without it, an attacker may have cut the response short.
                    failConnection(
                        SluiceError.connectionLost(
                            "the TLS stream from \(origin) was cut without close_notify \(progress(exchange)): the response may be truncated"
                        )
                    )
                    return
                }
                do {
                    try parser.parseEndOfStream { event in try self.take(event, exchange) }
                } catch {
                    failConnection(Self.responseError(error, origin: origin))
                    return
                }
                keepAlive = false
                complete(exchange, extraBytes: 0)
                return
            case .failed(let code):
                let error = SluiceError.connectionLost(
                    "the connection to \(origin) failed \(progress(exchange)): \(stream.failureDescription(call: "recv", code: code))"
                )
                failConnection(!parser.hasStarted && requestsServed > 0 ? StaleConnection(error: error) : error)
                return
            }
        }
        receiveBufferedInputLater(exchange)
    }

    /// Reads on in a later round of the loop when bytes wait inside the stream (TLS records read ahead), which the
    /// socket's readiness would not report: the loop reads one connection for a bounded time, then others.
    func receiveBufferedInputLater(_ exchange: Exchange) {
        guard stream.hasBufferedInput else { return }
        loop.execute { [weak self] in
            guard let self else { return }
            self.lock.withLock { _ in
                guard !self.isClosed, self.exchange === exchange, !exchange.paused else { return }
                self.receive(exchange)
            }
        }
    }

    /// Hands what the parser read to the exchange, pausing the socket while a streamed body's reader is behind.
    private func take(_ event: ResponseParser.Event, _ exchange: Exchange) throws {
        switch event {
        case .head(let head):
            try exchange.takeHead(head) { writer in
                let loop = self.loop
                writer.onDemand(highWater: readAhead, lowWater: readAhead / 4) { [weak self] in
                    loop.execute { [weak self] in self?.resumeReading(exchange) }
                }
                writer.onTermination { [weak self] _ in
                    loop.execute { [weak self] in self?.abandon(exchange) }
                }
            }
        case .body(let bytes):
            if try exchange.takeBody(bytes, readAhead: readAhead) {
                pause(exchange)
            }
        case .end:
            _ = exchange.writeUnwritten(readAhead: readAhead)
            try exchange.decoder?.finish()
        }
    }

    /// How far the response had come, for messages: "before the response", "after 7 of 20 bytes of the body".
    private func progress(_ exchange: Exchange) -> String {
        guard parser.hasStarted else { return "before the response" }
        guard let head = exchange.responseHead else { return "in the middle of the response head" }
        if let length = head.contentLength {
            return "after \(parser.bodyBytesRead) of \(length) bytes of the body"
        }
        return "after \(parser.bodyBytesRead) bytes of the body"
    }

    private static func responseError(_ error: any Error, origin: Origin) -> any Error {
        switch error {
        case let protocolError as ResponseProtocolError where protocolError.message.hasPrefix("the server closed"):
            return SluiceError.connectionLost("\(protocolError.message) (\(origin))")
        case let protocolError as ResponseProtocolError:
            return SluiceError(
                .transport,
                message: "the response from \(origin) is not valid HTTP/1.1: \(protocolError.message)",
                underlyingError: URLError(.badServerResponse)
            )
        default:
            return error
        }
    }
}

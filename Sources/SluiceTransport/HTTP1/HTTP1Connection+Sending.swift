import Foundation

extension HTTP1Connection {
    /// Starts an exchange on this connection, just taken from the pool: writes the request from the calling thread
    /// as far as the socket takes it, then leaves the rest, and the response, to the loop.
    func start(_ exchange: Exchange) {
        lock.withLock { _ in
            guard !exchange.cancelled.withLock({ $0 }) else {
                exchange.fail(CancellationError())
                becameIdle = loop.now
                pool.release(self, reusable: !isClosed, idleSince: loop.now)
                return
            }
            guard !isClosed else {
                exchange.fail(
                    StaleConnection(
                        error: SluiceError.connectionLost("the server closed the kept-alive connection to \(origin)")
                    )
                )
                return
            }
            self.exchange = exchange
            becameIdle = nil
            parser = ResponseParser(limits: limits, isHeadRequest: exchange.head.method == "HEAD")
            encoder = RequestEncoder(framing: exchange.head.framing)
            output.removeAll(keepingCapacity: true)
            outputOffset = 0
            requestSent = false
            do {
                try encoder.encodeHead(exchange.head, body: exchange.request.httpBody, into: &output)
            } catch {
                failConnection(error)
                return
            }
            headBytesUnsent = exchange.head.bytes.count
            if let stream = exchange.request.httpBodyStream {
                stream.open()
                bodyStream = stream
            }
            exchange.lastProgress = loop.now
            setInterest(.readable)
            flush(exchange)
        }
    }

    /// Sends as much of the request as the socket takes, reading more of a stream body as it goes, and reports the
    /// body bytes sent of a body of data.
    func flush(_ exchange: Exchange) {
        while true {
            if outputOffset == output.count {
                guard bodyStream != nil else { break }
                switch refillFromBodyStream(exchange) {
                case .filled:
                    exchange.awaitingBody = false
                    continue
                case .failed: return
                case .pending:
                    // Nothing to write until the producer gives the next chunk; the response is still read.
                    exchange.awaitingBody = true
                    setInterest(interest.subtracting(.writable))
                    return
                }
            }
            let result = output.withUnsafeBytes { bytes in
                stream.sendSome(UnsafeRawBufferPointer(rebasing: bytes[outputOffset...]))
            }
            switch result {
            case .transferred(let count):
                outputOffset += count
                exchange.lastProgress = loop.now
                if exchange.request.httpBody != nil {
                    let bodySent = count - min(count, headBytesUnsent)
                    headBytesUnsent = max(0, headBytesUnsent - count)
                    if bodySent > 0 {
                        exchange.bodyBytesSent += Int64(bodySent)
                        exchange.upload?(exchange.bodyBytesSent, Int64(exchange.request.httpBody?.count ?? 0))
                    }
                }
            case .wouldBlock:
                setInterest(interest.union(.writable))
                return
            case .endOfStream, .failed:
                // The server stopped reading: it may have answered already (a 413, say), so the response decides.
                requestSent = true
                bodyStream?.close()
                bodyStream = nil
                setInterest(exchange.paused ? [] : .readable)
                keepAlive = false
                return
            }
        }
        // What the stream took and still holds (TLS records) goes out before the request counts as sent.
        switch stream.flush() {
        case .wouldBlock:
            setInterest(interest.union(.writable))
            return
        case .failed:
            keepAlive = false
        default:
            break
        }
        requestSent = true
        setInterest(exchange.paused ? [] : .readable)
    }

    /// What a refill of `output` from the body stream came to.
    enum Refill {
        /// `output` holds the next piece, or the body's end.
        case filled
        /// The exchange failed.
        case failed
        /// An async body has no chunk yet; sending resumes when it has (``resumeSending(_:)``).
        case pending
    }

    /// Reads the next piece of a stream body into `output`, framed, and reports the body bytes encoded.
    ///
    /// An async body's chunk is taken without waiting, since this runs on the event loop; an `InputStream` is read,
    /// and a stream that blocks holds up the loop (see ``SocketRequestPerformer/loopExecutor()``).
    private func refillFromBodyStream(_ exchange: Exchange) -> Refill {
        guard let stream = bodyStream else { return .filled }
        output.removeAll(keepingCapacity: true)
        outputOffset = 0
        do {
            let piece: [UInt8]
            if let body = stream as? AsyncBodyStream {
                switch try body.channel.take(whenReady: { [weak self] in self?.resumeSendingLater(exchange) }) {
                case .bytes(let bytes): piece = bytes
                case .pending: return .pending
                case .end: piece = []
                }
            } else {
                var chunk = [UInt8](repeating: 0, count: 64 << 10)
                let count = stream.read(&chunk, maxLength: chunk.count)
                if count < 0 {
                    let reason = stream.streamError.map { "\($0)" } ?? "an unknown error"
                    throw SluiceError(.transport, message: "reading the request body stream failed: \(reason)")
                }
                piece = Array(chunk[0..<count])
            }
            if piece.isEmpty {
                stream.close()
                bodyStream = nil
                try encoder.encodeEnd(into: &output)
                return .filled
            }
            try encoder.encodeBody(piece, into: &output)
        } catch {
            failConnection(error)
            return .failed
        }
        exchange.bodyBytesSent = encoder.bodyBytesEncoded
        if case .length(let length) = exchange.head.framing {
            exchange.upload?(exchange.bodyBytesSent, length)
        } else {
            exchange.upload?(exchange.bodyBytesSent, nil)
        }
        return .filled
    }

    /// Goes on sending, on the loop, once an async body has its next chunk: called on the producer's thread.
    private func resumeSendingLater(_ exchange: Exchange) {
        loop.execute { [weak self] in
            self?.resumeSending(exchange)
        }
    }

    /// Goes on sending the exchange's body, if it is still this connection's and waits for a chunk.
    func resumeSending(_ exchange: Exchange) {
        lock.withLock { _ in
            guard self.exchange === exchange, exchange.awaitingBody else { return }
            exchange.awaitingBody = false
            exchange.lastProgress = loop.now
            flush(exchange)
        }
    }
}

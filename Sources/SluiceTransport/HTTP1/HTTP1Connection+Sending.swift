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
                guard refillFromBodyStream(exchange) else { return }
                continue
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

    /// Reads the next piece of a stream body into `output`, framed, and reports the body bytes encoded; `false` when
    /// the exchange failed.
    private func refillFromBodyStream(_ exchange: Exchange) -> Bool {
        guard let stream = bodyStream else { return true }
        output.removeAll(keepingCapacity: true)
        outputOffset = 0
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        let count = stream.read(&chunk, maxLength: chunk.count)
        do {
            if count < 0 {
                let reason = stream.streamError.map { "\($0)" } ?? "an unknown error"
                throw SluiceError(.transport, message: "reading the request body stream failed: \(reason)")
            }
            if count == 0 {
                stream.close()
                bodyStream = nil
                try encoder.encodeEnd(into: &output)
                return true
            }
            try encoder.encodeBody(chunk[0..<count], into: &output)
        } catch {
            failConnection(error)
            return false
        }
        exchange.bodyBytesSent = encoder.bodyBytesEncoded
        if case .length(let length) = exchange.head.framing {
            exchange.upload?(exchange.bodyBytesSent, length)
        } else {
            exchange.upload?(exchange.bodyBytesSent, nil)
        }
        return true
    }
}

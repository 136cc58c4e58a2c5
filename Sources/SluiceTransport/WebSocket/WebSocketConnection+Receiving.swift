import Foundation

extension WebSocketConnection {
    func receive() {
        let buffer = loop.receiveBuffer
        for _ in 0..<16 {
            guard !isClosed, !paused else { return }
            switch stream.receive(into: buffer) {
            case .transferred(let count):
                do {
                    try take(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
                } catch {
                    failProtocol(error)
                    return
                }
            case .wouldBlock:
                return
            case .endOfStream:
                endOfStream()
                return
            case .failed(let code):
                fail(lost("failed: \(stream.failureDescription(call: "recv", code: code))"))
                return
            }
        }
        if stream.hasBufferedInput {
            loop.execute { [weak self] in
                guard let self else { return }
                self.lock.withLock { _ in
                    if !self.paused {
                        self.receive()
                    }
                }
            }
        }
    }

    /// Hands bytes to the handshake's parser, then to the frame parser.
    func take(_ bytes: UnsafeRawBufferPointer) throws {
        var rest = bytes
        if case .handshaking = phase {
            var head: ParsedHead?
            let consumed: Int
            do {
                consumed = try responseParser.parse(bytes) { event in
                    if case .head(let parsed) = event, head == nil {
                        head = parsed
                    }
                }
            } catch let error as ResponseProtocolError {
                throw SluiceError(
                    .handshake,
                    message: "the WebSocket handshake failed: the answer is not valid HTTP/1.1: \(error.message)",
                    request: request
                )
            }
            guard let head else { return }
            try finishHandshake(head)
            rest = UnsafeRawBufferPointer(rebasing: bytes[consumed...])
        }
        guard receivedClose == nil else { return }
        try frameParser.parse(rest) { event in try self.take(event) }
    }

    func take(_ event: WebSocketFrameParser.Event) throws {
        guard receivedClose == nil else { return }
        switch event {
        case .text(let text):
            deliver(.text(text), bytes: text.utf8.count)
        case .binary(let data):
            deliver(.binary(data), bytes: data.count)
        case .ping(let payload):
            if !sentClose {
                enqueue(.pong, Array(payload))
                flushLocked()
            }
        case .pong:
            pingSent = nil
        case .close(let code, let reason):
            receivedClose = (code, reason)
            if !sentClose {
                // The echo of the server's code, as RFC 6455 section 5.5.1 asks.
                sendCloseLocked(code: code, reason: "")
            }
            closeDeadline = closeDeadline ?? loop.now + configuration.closeTimeout
            // What follows the closing frame is not read; the reader learns of the close after what it has not read.
            wakeReader()
        }
    }

    func deliver(_ message: WebSocket.Message, bytes: Int) {
        wroteSinceMessage = false
        if let reader {
            self.reader = nil
            reader.resume(returning: message)
            return
        }
        incoming.append(message)
        incomingBytes += bytes
        if incomingBytes >= configuration.readAhead {
            paused = true
            setInterest(interest.subtracting(.readable))
        }
    }

    func endOfStream() {
        switch phase {
        case .handshaking:
            fail(lost("closed before it answered the WebSocket handshake"))
        case .open:
            if let receivedClose {
                finish(.closed(code: receivedClose.code, reason: receivedClose.reason))
            } else {
                fail(
                    SluiceError(
                        .close,
                        message:
                            "the server closed the connection without a closing frame (1006, abnormal closure)\(frameParser.isInsideMessage ? ", in the middle of a frame" : "")",
                        request: request,
                        underlyingError: URLError(.networkConnectionLost)
                    )
                )
            }
        case .closed:
            break
        }
    }

    // MARK: Reading messages

    /// The next message, or `nil` after a normal close.
    ///
    /// - Throws: ``SluiceError`` for a connection that failed or closed with a code other than 1000, 1001 or none;
    ///   `CancellationError` when the task is cancelled, which closes the connection.
    func next() async throws -> WebSocket.Message? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                lock.withLock { _ in
                    if incomingStart < incoming.count {
                        continuation.resume(returning: takeIncoming())
                    } else if let outcome = readerOutcome() {
                        continuation.resume(with: outcome)
                    } else if reader != nil {
                        continuation.resume(
                            throwing: SluiceError(
                                .frame,
                                message: "another task is already reading this WebSocket's messages",
                                request: request
                            )
                        )
                    } else if Task.isCancelled {
                        continuation.resume(throwing: CancellationError())
                        cancelLocked()
                    } else {
                        reader = continuation
                    }
                }
            }
        } onCancel: {
            lock.withLock { _ in
                if let reader {
                    self.reader = nil
                    reader.resume(throwing: CancellationError())
                }
                cancelLocked()
            }
        }
    }

    func takeIncoming() -> WebSocket.Message {
        guard let message = incoming[incomingStart] else {
            preconditionFailure("a message was read twice")
        }
        incoming[incomingStart] = nil
        incomingStart += 1
        switch message {
        case .text(let text): incomingBytes -= text.utf8.count
        case .binary(let data): incomingBytes -= data.count
        }
        if incomingStart == incoming.count {
            incoming.removeAll(keepingCapacity: true)
            incomingStart = 0
        } else if incomingStart >= 64 && incomingStart * 2 >= incoming.count {
            incoming.removeFirst(incomingStart)
            incomingStart = 0
        }
        // Reading resumes once the reader has taken half of what was read ahead, not at its first message: the socket is
        // then read in runs rather than a message at a time, with its registration changed twice per run.
        if paused && incomingBytes <= configuration.readAhead / 2 {
            paused = false
            setInterest(interest.union(.readable))
            loop.execute { [weak self] in
                guard let self else { return }
                self.lock.withLock { _ in
                    if !self.isClosed && !self.paused {
                        self.receive()
                    }
                }
            }
        }
        return message
    }

    /// What a reader with nothing left to read is told: the end, or the error; `nil` while the connection is open.
    func readerOutcome() -> Result<WebSocket.Message?, any Error>? {
        if let receivedClose {
            return Self.outcome(code: receivedClose.code, reason: receivedClose.reason, request: request)
        }
        switch ending {
        case .closed(let code, let reason): return Self.outcome(code: code, reason: reason, request: request)
        case .failed(let error): return .failure(error)
        case nil: return nil
        }
    }

    static func outcome(
        code: UInt16?,
        reason: String,
        request: URLRequest
    ) -> Result<
        WebSocket.Message?, any Error
    > {
        guard let code, ![1000, 1001].contains(code) else { return .success(nil) }
        let because = reason.isEmpty ? "" : ": \(reason)"
        return .failure(
            SluiceError(
                .close,
                message:
                    "the server closed the WebSocket with \(WebSocket.CloseCode(rawValue: code))\(because)",
                request: request
            )
        )
    }

    func wakeReader() {
        guard let reader, incomingStart == incoming.count, let outcome = readerOutcome() else { return }
        self.reader = nil
        reader.resume(with: outcome)
    }
}

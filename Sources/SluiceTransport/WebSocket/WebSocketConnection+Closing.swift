import Foundation

extension WebSocketConnection {
    /// Starts the closing handshake, and waits until the connection is closed.
    func close(code: UInt16, reason: String) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            lock.withLock { _ in
                guard !isClosed else {
                    continuation.resume()
                    return
                }
                closeWaiters.append(continuation)
                if !sentClose {
                    sendCloseLocked(code: code, reason: reason)
                    closeDeadline = loop.now + configuration.closeTimeout
                }
            }
        }
    }

    func sendCloseLocked(code: UInt16?, reason: String) {
        sentClose = true
        var payload: [UInt8] = []
        if let code {
            payload = [UInt8(code >> 8), UInt8(code & 0xFF)] + Array(reason.utf8.prefix(123))
        }
        enqueue(.close, payload)
        flushLocked()
    }

    /// Closes at once for a cancelled reader: a closing frame with 1001, going away, sent as far as the socket takes
    /// it, and the socket closed.
    func cancelLocked() {
        guard !isClosed else { return }
        if !sentClose {
            sendCloseLocked(code: WebSocket.CloseCode.goingAway.rawValue, reason: "")
        }
        finish(.failed(CancellationError()))
    }

    /// Closes at once, without a closing handshake (the handle was dropped).
    func abort() {
        lock.withLock { _ in
            guard !isClosed else { return }
            if phase == .open && !sentClose {
                sendCloseLocked(code: WebSocket.CloseCode.goingAway.rawValue, reason: "")
            }
            finish(.failed(CancellationError()))
        }
    }

    /// Fails for a frame that broke the protocol: a closing frame with the code the rule calls for, then the socket
    /// closed.
    func failProtocol(_ error: any Error) {
        if phase == .open && !sentClose && !isClosed {
            sendCloseLocked(code: frameParser.closeCode, reason: "")
        }
        let described = (error as? SluiceError)?.adding(request: request, response: nil) ?? error
        fail(described)
    }

    func fail(_ error: any Error) {
        finish(.failed(error))
    }

    /// Ends the connection: tells whoever waits, and closes the socket.
    func finish(_ end: Ending) {
        guard !isClosed else { return }
        isClosed = true
        phase = .closed
        ending = end
        if let handshakeWaiter {
            self.handshakeWaiter = nil
            if case .failed(let error) = end {
                handshakeWaiter.resume(throwing: error)
            } else {
                handshakeWaiter.resume(throwing: lost("closed during the WebSocket handshake"))
            }
        }
        wakeReader()
        let refusal = sendRefusal() ?? SluiceError(.close, message: "the WebSocket closed", request: request)
        for writer in writers {
            if case .closed = end {
                writer.continuation.resume()
            } else {
                writer.continuation.resume(throwing: refusal)
            }
        }
        writers = []
        for waiter in closeWaiters {
            waiter.resume()
        }
        closeWaiters = []
        let (loop, stream, interest, descriptors) = (self.loop, self.stream, self.interest, self.descriptors)
        loop.execute {
            loop.deregister(stream.socket.descriptor, interest: interest)
            stream.close()
            descriptors.add(-1)
        }
    }

    /// The server's 101 answer, once the handshake has succeeded.
    var handshakeResponse: HTTPResponse? {
        lock.withLock { _ in answer }
    }

    /// The close code and reason of a finished closing handshake, if the connection ended with one.
    var rawCloseStatus: (code: UInt16?, reason: String)? {
        lock.withLock { _ in
            if let receivedClose { return receivedClose }
            if case .closed(let code, let reason) = ending { return (code, reason) }
            return nil
        }
    }
}

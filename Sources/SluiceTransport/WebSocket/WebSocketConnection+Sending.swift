import Foundation

extension WebSocketConnection {
    /// Sends a message, suspending while more than the send buffer waits to go out.
    ///
    /// A message is written to the socket from the sender's task at once, with one exception: a sender that sends
    /// again soon after its last write (within the loop's tick), before any message has come in, is sending a run,
    /// and the rest of the run is gathered for the loop to write together a moment later, one write for many where
    /// each would cost a system call of its own. A request and its answer, an echo, or messages sent further apart
    /// go out at once.
    ///
    /// - Throws: ``SluiceError`` when the connection has failed or is closing.
    func send(_ opcode: WebSocketOpcode, _ payload: some ContiguousBytes) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            lock.withLock { _ in
                if let error = sendRefusal() {
                    continuation.resume(throwing: error)
                    return
                }
                enqueue(opcode, payload)
                if flushScheduled || interest.contains(.writable) {
                    // The loop writes it: with the run gathered so far, or once the socket has room.
                } else if wroteSinceMessage {
                    flushScheduled = true
                    loop.execute { [weak self] in
                        guard let self else { return }
                        self.lock.withLock { _ in
                            self.flushScheduled = false
                            self.flushLocked()
                            // All of the run went: the next message is written by its sender again.
                            if self.outputOffset == self.output.count {
                                self.wroteSinceMessage = false
                            }
                        }
                    }
                } else {
                    wroteSinceMessage = true
                    flushLocked()
                }
                let pending = output.count - outputOffset
                if pending <= configuration.sendBuffer || isClosed {
                    continuation.resume(returning: ())
                } else {
                    writers.append((output.count, continuation))
                }
            }
        }
    }

    func sendRefusal() -> SluiceError? {
        if case .failed(let error) = ending {
            return SluiceError(
                .close,
                message: "cannot send on a WebSocket that failed: \(SluiceError.describe(error))",
                request: request,
                underlyingError: error
            )
        }
        guard !sentClose, !isClosed else {
            return SluiceError(
                .close,
                message: "cannot send on a WebSocket that is closing or closed",
                request: request
            )
        }
        return nil
    }

    /// Frames a payload into the output; call with the lock held.
    func enqueue(_ opcode: WebSocketOpcode, _ payload: some ContiguousBytes) {
        let key = UInt32.random(in: .min ... .max, using: &random)
        releaseSent()
        if let deflater, !opcode.isControl {
            deflater.compress(payload).withUnsafeBytes { bytes in
                WebSocketFrameEncoder.encode(opcode, payload: bytes, reservedBits: 0x40, maskKey: key, into: &output)
            }
            return
        }
        payload.withUnsafeBytes { bytes in
            WebSocketFrameEncoder.encode(opcode, payload: bytes, maskKey: key, into: &output)
        }
    }

    /// Sends what the socket takes now, and waits for room for the rest; call with the lock held.
    func flushLocked() {
        guard !isClosed else { return }
        while outputOffset < output.count {
            let result = output.withUnsafeBytes { bytes in
                stream.sendSome(UnsafeRawBufferPointer(rebasing: bytes[outputOffset...]))
            }
            switch result {
            case .transferred(let count):
                outputOffset += count
            case .wouldBlock:
                setInterest(interest.union(.writable))
                releaseSent()
                resumeWriters()
                return
            case .endOfStream:
                fail(lost("closed while a message was being sent"))
                return
            case .failed(let code):
                fail(lost("failed: \(stream.failureDescription(call: "send", code: code))"))
                return
            }
        }
        if case .wouldBlock = stream.flush() {
            setInterest(interest.union(.writable))
        } else {
            setInterest(interest.subtracting(.writable))
        }
        releaseSent()
        resumeWriters()
    }

    /// Drops the bytes already sent: all of them once everything has gone, or those before the first unsent byte once
    /// they are half the buffer, so that a sender a little ahead of the network holds about the send buffer, not
    /// everything it sent.
    func releaseSent() {
        if outputOffset > 0 && outputOffset == output.count {
            output.removeAll(keepingCapacity: output.capacity <= configuration.sendBuffer * 2)
        } else if outputOffset >= 64 << 10 && outputOffset * 2 >= output.count {
            output.removeFirst(outputOffset)
        } else {
            return
        }
        writersDrained(by: outputOffset)
        outputOffset = 0
    }

    /// Rebases the writers' marks after the bytes sent were dropped from the output.
    func writersDrained(by count: Int) {
        for index in writers.indices {
            writers[index].bytes -= count
        }
    }

    func resumeWriters() {
        let sent = outputOffset
        let limit = configuration.sendBuffer
        while let first = writers.first, first.bytes - sent <= limit {
            writers.removeFirst()
            first.continuation.resume()
        }
    }
}

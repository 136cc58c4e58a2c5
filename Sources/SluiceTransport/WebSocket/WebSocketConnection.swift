import Foundation

/// A WebSocket's byte stream on its event loop: the opening handshake, then frames both ways.
///
/// It takes the stream of a connection made for it alone (never pooled), once the TCP connection, any proxy tunnel
/// and TLS are up, and drives the handshake and the frame codec over it. The loop reads; senders write from their own
/// task as far as the socket takes it and leave the rest to the loop, as ``Connection`` does. Its state is guarded by
/// a lock both take; the socket is registered, deregistered and closed on the loop's thread. `@unchecked Sendable`
/// for that reason.
final class WebSocketConnection: ReadinessHandler, @unchecked Sendable {
    private enum Phase {
        case handshaking
        case open
        case closed
    }

    /// How the connection ended, once it has.
    private enum Ending {
        /// Both closing frames went, or the server's came: its code and reason.
        case closed(code: UInt16?, reason: String)
        /// It failed.
        case failed(any Error)
    }

    let loop: EventLoop
    private let stream: ByteStream
    private let request: URLRequest
    private let configuration: WebSocket.Configuration
    private let handshake: WebSocketHandshake
    private let descriptors: Gauge

    /// Guards everything below; its value is not used (see ``Connection``'s lock).
    private let lock = Locked(0)
    private var phase = Phase.handshaking
    private var isClosed = false
    private var interest: Interest = []
    private var responseParser: ResponseParser
    private var frameParser: WebSocketFrameParser
    private var handshakeWaiter: CheckedContinuation<WebSocketHandshake.Agreement, any Error>?
    /// The server's 101 answer, once the handshake has succeeded.
    private var answer: HTTPResponse?
    private let started: ContinuousClock.Instant

    private var output: [UInt8] = []
    private var outputOffset = 0
    /// Whether a sender wrote to the socket itself since the last message came in, the last tick and the last run the
    /// loop wrote: a sender that writes again before any of those is sending a run of messages, which the loop then
    /// writes together (see ``send(_:_:)``).
    private var wroteSinceMessage = false
    /// Whether the loop is to write the messages gathered since.
    private var flushScheduled = false
    private var writers: [(bytes: Int, continuation: CheckedContinuation<Void, any Error>)] = []

    /// The messages not yet read, from `incomingStart` on; a message read is dropped at once, and the slots before
    /// `incomingStart` are removed once they are half the array, so that a reader a little behind holds no more than
    /// the read-ahead.
    private var incoming: [WebSocket.Message?] = []
    private var incomingStart = 0
    private var incomingBytes = 0
    private var paused = false
    private var reader: CheckedContinuation<WebSocket.Message?, any Error>?

    private var sentClose = false
    private var receivedClose: (code: UInt16?, reason: String)?
    private var closeDeadline: ContinuousClock.Instant?
    private var ending: Ending?
    private var closeWaiters: [CheckedContinuation<Void, Never>] = []

    private var lastPing: ContinuousClock.Instant
    private var pingSent: ContinuousClock.Instant?
    private var pingCount: UInt64 = 0
    private var random = SystemRandomNumberGenerator()
    /// Compresses the client's messages, under `permessage-deflate`.
    private var deflater: MessageDeflateCodec?

    /// Takes a connected stream, ready to send the handshake with ``open()``.
    init(
        stream: ByteStream,
        loop: EventLoop,
        request: URLRequest,
        handshake: WebSocketHandshake,
        configuration: WebSocket.Configuration,
        descriptors: Gauge
    ) {
        self.stream = stream
        self.loop = loop
        self.request = request
        self.handshake = handshake
        self.configuration = configuration
        self.descriptors = descriptors
        responseParser = ResponseParser(
            upgradeWithLimits: HeadLimits(statusLineLength: 8 << 10, headerCount: 100, headBytes: 64 << 10)
        )
        frameParser = WebSocketFrameParser(
            limits: .init(
                maximumFrameSize: configuration.maximumFrameSize,
                maximumMessageSize: configuration.maximumMessageSize
            )
        )
        started = loop.now
        lastPing = started
    }

    // MARK: The opening handshake

    /// Sends the handshake and waits for the server's answer.
    ///
    /// - Returns: The subprotocol the server chose, if any, and the extension it accepted.
    /// - Throws: ``SluiceError`` of the handshake stage, or `CancellationError`; the connection is closed then.
    func open() async throws -> WebSocketHandshake.Agreement {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                loop.execute {
                    self.lock.withLock { _ in
                        // Cancelled before the loop got here: the socket is closed already.
                        guard !self.isClosed else {
                            continuation.resume(throwing: CancellationError())
                            return
                        }
                        self.handshakeWaiter = continuation
                        self.interest = .readable
                        self.loop.register(self.stream.socket.descriptor, self, interest: .readable)
                        self.output.append(contentsOf: self.handshake.bytes)
                        self.flushLocked()
                    }
                }
            }
        } onCancel: {
            loop.execute { self.lock.withLock { _ in self.fail(CancellationError()) } }
        }
    }

    private func finishHandshake(_ head: ParsedHead) throws {
        let agreement: WebSocketHandshake.Agreement
        let response = HTTPResponse(
            status: HTTPStatus(code: head.status),
            headers: HTTPHeaders(head.fields.map { HTTPHeaders.Field(name: Header($0.name), value: $0.value) }),
            url: request.url
        )
        do {
            agreement = try handshake.verify(head)
            if let deflate = agreement.deflate {
                try startCompression(deflate)
            }
        } catch {
            // The head goes with the error, so that a caller sees a 401 or a 403 and its fields.
            throw error.adding(request: request, response: response)
        }
        answer = response
        phase = .open
        lastPing = loop.now
        handshakeWaiter?.resume(returning: agreement)
        handshakeWaiter = nil
    }

    /// Sets up `permessage-deflate` as the server accepted it: the parser decompresses, and messages sent are
    /// compressed.
    private func startCompression(_ deflate: PerMessageDeflate) throws(SluiceError) {
        guard case .success(let zlib) = ZLib.shared else {
            throw SluiceError(.handshake, message: "permessage-deflate was agreed, but zlib is not loaded")
        }
        let inflater = try MessageDeflateCodec(
            zlib: zlib,
            compresses: false,
            windowBits: 15,
            resetsEachMessage: deflate.serverNoContextTakeover
        )
        deflater = try MessageDeflateCodec(
            zlib: zlib,
            compresses: true,
            windowBits: max(9, deflate.clientMaxWindowBits),
            resetsEachMessage: deflate.clientNoContextTakeover
        )
        let ratio = configuration.maximumDecompressionRatio
        frameParser = WebSocketFrameParser(
            limits: .init(
                maximumFrameSize: configuration.maximumFrameSize,
                maximumMessageSize: configuration.maximumMessageSize
            ),
            inflate: { (payload, limit) throws(PerMessageDeflate.Refusal) in
                try inflater.decompress(payload, limit: limit, maximumRatio: ratio)
            }
        )
    }

    // MARK: Readiness

    func handle(readable: Bool, writable: Bool) {
        lock.withLock { _ in
            guard !isClosed else { return }
            if writable {
                flushLocked()
            }
            if readable && !paused {
                receive()
            }
        }
    }

    func tick(now: ContinuousClock.Instant) {
        lock.withLock { _ in
            guard !isClosed else { return }
            // Messages sent further apart than a tick are not a run: each goes out from its sender's task.
            if !flushScheduled {
                wroteSinceMessage = false
            }
            switch phase {
            case .handshaking:
                if now - started >= configuration.handshakeTimeout {
                    fail(
                        SluiceError(
                            .timedOut,
                            stage: .handshake,
                            message:
                                "the server did not answer the WebSocket handshake within \(configuration.handshakeTimeout)",
                            request: request,
                            underlyingError: URLError(.timedOut)
                        )
                    )
                }
            case .open:
                if let closeDeadline, now >= closeDeadline {
                    if let receivedClose {
                        finish(.closed(code: receivedClose.code, reason: receivedClose.reason))
                    } else {
                        fail(
                            SluiceError(
                                .timedOut,
                                stage: .close,
                                message:
                                    "the server did not answer the closing frame within \(configuration.closeTimeout)",
                                request: request
                            )
                        )
                    }
                    return
                }
                guard let interval = configuration.pingInterval, !sentClose else { return }
                if paused {
                    // A pong cannot be read while the reader is behind: the wait counts only while reading.
                    pingSent = pingSent.map { _ in now }
                    lastPing = now
                    return
                }
                if let pingSent {
                    if now - pingSent >= configuration.pingTimeout {
                        fail(
                            SluiceError(
                                .timedOut,
                                stage: .frame,
                                message:
                                    "the server did not answer a keep-alive ping within \(configuration.pingTimeout)",
                                request: request
                            )
                        )
                    }
                } else if now - lastPing >= interval {
                    pingCount += 1
                    pingSent = now
                    lastPing = now
                    enqueue(.ping, withUnsafeBytes(of: pingCount.bigEndian) { Array($0) })
                    flushLocked()
                }
            case .closed:
                break
            }
        }
    }

    // MARK: Receiving

    private func receive() {
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
    private func take(_ bytes: UnsafeRawBufferPointer) throws {
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

    private func take(_ event: WebSocketFrameParser.Event) throws {
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

    private func deliver(_ message: WebSocket.Message, bytes: Int) {
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

    private func endOfStream() {
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

    private func takeIncoming() -> WebSocket.Message {
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
    private func readerOutcome() -> Result<WebSocket.Message?, any Error>? {
        if let receivedClose {
            return Self.outcome(code: receivedClose.code, reason: receivedClose.reason, request: request)
        }
        switch ending {
        case .closed(let code, let reason): return Self.outcome(code: code, reason: reason, request: request)
        case .failed(let error): return .failure(error)
        case nil: return nil
        }
    }

    private static func outcome(
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

    private func wakeReader() {
        guard let reader, incomingStart == incoming.count, let outcome = readerOutcome() else { return }
        self.reader = nil
        reader.resume(with: outcome)
    }

    // MARK: Sending

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

    private func sendRefusal() -> SluiceError? {
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
    private func enqueue(_ opcode: WebSocketOpcode, _ payload: some ContiguousBytes) {
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
    private func flushLocked() {
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
    private func releaseSent() {
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
    private func writersDrained(by count: Int) {
        for index in writers.indices {
            writers[index].bytes -= count
        }
    }

    private func resumeWriters() {
        let sent = outputOffset
        let limit = configuration.sendBuffer
        while let first = writers.first, first.bytes - sent <= limit {
            writers.removeFirst()
            first.continuation.resume()
        }
    }

    // MARK: Closing

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

    private func sendCloseLocked(code: UInt16?, reason: String) {
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
    private func cancelLocked() {
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
    private func failProtocol(_ error: any Error) {
        if phase == .open && !sentClose && !isClosed {
            sendCloseLocked(code: frameParser.closeCode, reason: "")
        }
        let described = (error as? SluiceError)?.adding(request: request, response: nil) ?? error
        fail(described)
    }

    private func fail(_ error: any Error) {
        finish(.failed(error))
    }

    /// Ends the connection: tells whoever waits, and closes the socket.
    private func finish(_ end: Ending) {
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

    // MARK: The socket

    private func setInterest(_ new: Interest) {
        guard !isClosed, new != interest else { return }
        loop.changeInterest(of: stream.socket.descriptor, from: interest, to: new)
        interest = new
    }

    private func lost(_ what: String) -> SluiceError {
        let url = request.url?.absoluteString ?? "?"
        return SluiceError(
            phase == .handshaking ? .handshake : .close,
            message: "the connection to \(url) \(what)",
            request: request,
            underlyingError: URLError(.networkConnectionLost)
        )
    }
}

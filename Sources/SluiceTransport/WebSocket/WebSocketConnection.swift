import Foundation

/// A WebSocket's byte stream on its event loop: the opening handshake, then frames both ways.
///
/// It takes the stream of a connection made for it alone (never pooled), once the TCP connection, any proxy tunnel
/// and TLS are up, and drives the handshake and the frame codec over it. The loop reads; senders write from their own
/// task as far as the socket takes it and leave the rest to the loop, as ``HTTP1Connection`` does. Its state is guarded by
/// a lock both take; the socket is registered, deregistered and closed on the loop's thread. `@unchecked Sendable`
/// for that reason.
final class WebSocketConnection: ReadinessHandler, @unchecked Sendable {
    enum Phase {
        case handshaking
        case open
        case closed
    }

    /// How the connection ended, once it has.
    enum Ending {
        /// Both closing frames went, or the server's came: its code and reason.
        case closed(code: UInt16?, reason: String)
        /// It failed.
        case failed(any Error)
    }

    let loop: EventLoop
    let stream: ByteStream
    let request: URLRequest
    let configuration: WebSocket.Configuration
    let handshake: WebSocketHandshake
    let descriptors: Gauge

    /// Guards everything below; its value is not used (see ``HTTP1Connection``'s lock).
    let lock = Locked(0)
    var phase = Phase.handshaking
    var isClosed = false
    var interest: Interest = []
    var responseParser: ResponseParser
    var frameParser: WebSocketFrameParser
    var handshakeWaiter: CheckedContinuation<WebSocketHandshake.Agreement, any Error>?
    /// The server's 101 answer, once the handshake has succeeded.
    var answer: HTTPResponse?
    let started: ContinuousClock.Instant

    var output: [UInt8] = []
    var outputOffset = 0
    /// Whether a sender wrote to the socket itself since the last message came in, the last tick and the last run the
    /// loop wrote: a sender that writes again before any of those is sending a run of messages, which the loop then
    /// writes together (see ``send(_:_:)``).
    var wroteSinceMessage = false
    /// Whether the loop is to write the messages gathered since.
    var flushScheduled = false
    var writers: [(bytes: Int, continuation: CheckedContinuation<Void, any Error>)] = []

    /// The messages not yet read, from `incomingStart` on; a message read is dropped at once, and the slots before
    /// `incomingStart` are removed once they are half the array, so that a reader a little behind holds no more than
    /// the read-ahead.
    var incoming: [WebSocket.Message?] = []
    var incomingStart = 0
    var incomingBytes = 0
    var paused = false
    var reader: CheckedContinuation<WebSocket.Message?, any Error>?

    var sentClose = false
    var receivedClose: (code: UInt16?, reason: String)?
    var closeDeadline: ContinuousClock.Instant?
    var ending: Ending?
    var closeWaiters: [CheckedContinuation<Void, Never>] = []

    var lastPing: ContinuousClock.Instant
    var pingSent: ContinuousClock.Instant?
    var pingCount: UInt64 = 0
    var random = SystemRandomNumberGenerator()
    /// Compresses the client's messages, under `permessage-deflate`.
    var deflater: MessageDeflateCodec?

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

    func finishHandshake(_ head: ParsedHead) throws {
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
    func startCompression(_ deflate: PerMessageDeflate) throws(SluiceError) {
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

    // MARK: The socket

    func setInterest(_ new: Interest) {
        guard !isClosed, new != interest else { return }
        loop.changeInterest(of: stream.socket.descriptor, from: interest, to: new)
        interest = new
    }

    func lost(_ what: String) -> SluiceError {
        let url = request.url?.absoluteString ?? "?"
        return SluiceError(
            phase == .handshaking ? .handshake : .close,
            message: "the connection to \(url) \(what)",
            request: request,
            underlyingError: URLError(.networkConnectionLost)
        )
    }
}

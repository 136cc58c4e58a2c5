import Foundation

/// One HTTP/1.1 connection: a byte stream (a non-blocking socket on an event loop, plain or with TLS over it),
/// carrying one exchange at a time (no pipelining), kept alive between them by its pool.
///
/// The task that takes the connection from the pool writes its request itself, then the loop waits for the
/// response and reads it: one thread handing over to another per request instead of two. Its state is guarded by a
/// lock that both take (uncontended but for the moment of the hand-over); the socket is registered, deregistered
/// and closed on the loop's thread. `@unchecked Sendable` for that reason.
final class Connection: ReadinessHandler, @unchecked Sendable {
    /// The loop the socket is registered on.
    let loop: EventLoop
    /// Where it goes.
    let origin: Origin
    /// The bytes exchanged with the server, plain or TLS.
    private let stream: ByteStream
    /// The socket under the stream, for the loop and the connection attempt.
    private var socket: Socket { stream.socket }
    private let pool: ConnectionPool
    private let limits: HeadLimits

    /// How many responses it has carried; one that has carried any is kept alive, and may have been closed by
    /// the server while idle.
    private(set) var requestsServed = 0
    /// The pool's eviction timer, while one is set; touched on the loop's thread only.
    var evictionTimer: UInt64?

    /// Guards everything below.
    ///
    /// Its value is not used: a lock of no value (`Void`) is taken by the thread sanitizer
    /// for an unguarded access to the storage it shares with the mutex.
    private let lock = Locked(0)
    /// When it last became idle, for the pool's idle eviction.
    private var idleSince: ContinuousClock.Instant?
    private var isClosed = false

    private var interest: Interest = []
    /// Whether the socket is registered with the loop.
    private var registered = false
    private var connecting: CheckedContinuation<Void, any Error>?
    /// Whether the TCP connection is up: a TLS stream then shakes hands before the connection is ready.
    private var tcpConnected = false
    /// The handshake that opens a tunnel through a proxy once the TCP connection is up, until it is open.
    private var proxyHandshake: ProxyHandshake?
    /// The handshake's bytes not yet taken by the socket, from ``proxyOutputOffset`` on.
    private var proxyOutput: [UInt8] = []
    private var proxyOutputOffset = 0
    private var connectTimer: UInt64?
    private var exchange: Exchange?
    private var parser = ResponseParser(
        limits: HeadLimits(statusLineLength: 0, headerCount: 0, headBytes: 0),
        isHeadRequest: false
    )
    private var output: [UInt8] = []
    private var outputOffset = 0
    /// The head's bytes at the start of `output` not yet sent, so that body bytes sent can be counted.
    private var headBytesUnsent = 0
    /// The request's side of the codec: the head and the body, framed.
    private var encoder = RequestEncoder(framing: .length(0))
    private var bodyStream: InputStream?
    private var requestSent = false

    /// The bytes of a streamed body read ahead of its reader before the socket stops being read.
    private let readAhead: Int

    /// Opens a socket and starts connecting it; ``waitUntilConnected(timeout:)`` finishes, with the proxy's handshake
    /// when it goes through a tunnel, then the TLS handshake when the origin uses TLS.
    ///
    /// - Parameters:
    ///   - address: The address to connect to.
    ///   - origin: Where it goes, as the pool names it.
    ///   - tls: The TLS settings, for an origin that uses TLS.
    ///   - proxyHandshake: The handshake that opens a tunnel through the origin's proxy, if it needs one.
    ///   - loop: The loop the socket is registered on.
    ///   - pool: The pool it goes back to.
    ///   - limits: The limits of a response's head.
    ///   - readAhead: The bytes of a streamed body read ahead of its reader.
    /// - Throws: ``SocketError`` when the attempt failed at once, ``SluiceError`` when TLS could not be set up.
    init(
        to address: SocketAddress,
        origin: Origin,
        tls: TLSContext?,
        proxyHandshake: ProxyHandshake? = nil,
        loop: EventLoop,
        pool: ConnectionPool,
        limits: HeadLimits,
        readAhead: Int
    ) throws {
        self.loop = loop
        self.origin = origin
        self.pool = pool
        self.limits = limits
        self.readAhead = readAhead
        self.proxyHandshake = proxyHandshake
        let socket = try Socket.stream(family: address.family)
        do {
            _ = try socket.connect(to: address)
            if origin.usesTLS, case .tcp(let host, let port) = origin.address {
                guard let tls else {
                    throw SluiceError(.transport, message: "no TLS settings for \(origin)")
                }
                stream = ByteStream(
                    socket: socket,
                    tls: try TLSStream(context: tls, socket: socket, host: host, port: port)
                )
            } else {
                stream = ByteStream(socket: socket, tls: nil)
            }
        } catch {
            socket.closeDescriptor()
            throw error
        }
        pool.openDescriptors.add(1)
    }

    // MARK: Connecting

    /// Waits until the connection attempt finishes.
    ///
    /// - Parameter timeout: How long to wait at most; `nil` for no limit.
    /// - Throws: ``SluiceError`` when it failed or timed out, `CancellationError` when the task was cancelled; the
    ///   socket is closed then.
    func waitUntilConnected(timeout: Duration?) async throws {
        let cancelled = Locked(false)
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                loop.execute {
                    self.lock.withLock { _ in
                        self.registered = true
                        self.interest = .writable
                        self.loop.register(self.socket.descriptor, self, interest: .writable)
                        guard !cancelled.withLock({ $0 }) else {
                            self.closeLocked()
                            continuation.resume(throwing: CancellationError())
                            return
                        }
                        self.connecting = continuation
                        if let timeout {
                            self.connectTimer = self.loop.schedule(at: self.loop.now + timeout) {
                                self.lock.withLock { _ in
                                    self.connectTimer = nil
                                    let origin = self.origin.description
                                    self.finishConnecting(
                                        !self.tcpConnected
                                            ? URLError.connectTimeout(origin, timeout)
                                            : self.proxyHandshake != nil
                                                ? URLError.proxyHandshakeTimeout(origin, timeout)
                                                : URLError.handshakeTimeout(origin, timeout)
                                    )
                                }
                            }
                        }
                    }
                }
            }
        } onCancel: {
            cancelled.withLock { $0 = true }
            loop.execute { self.lock.withLock { _ in self.finishConnecting(CancellationError()) } }
        }
    }

    /// Ends the connection attempt; call on the loop, with the lock held.
    private func finishConnecting(_ error: (any Error)?) {
        guard let continuation = connecting else { return }
        connecting = nil
        if let connectTimer {
            loop.cancelTimer(connectTimer)
            self.connectTimer = nil
        }
        if let error {
            closeLocked()
            continuation.resume(throwing: error)
        } else {
            setInterest([])
            continuation.resume()
        }
    }

    /// Takes the TLS handshake as far as the socket allows, then waits for what it needs; call on the loop, with
    /// the lock held, while connecting.
    private func shakeHands() {
        guard let tls = stream.tls else { return }
        switch tls.handshake() {
        case .done: finishConnecting(nil)
        case .wantsReadable: setInterest(.readable)
        case .wantsWritable: setInterest(.writable)
        case .failed(let error): finishConnecting(error)
        }
    }

    /// Takes the proxy's handshake as far as the socket allows, then the TLS handshake once the tunnel is open;
    /// call on the loop, with the lock held, while connecting.
    ///
    /// The proxy's replies are read into the loop's buffer and handed to the handshake, which bounds them and reads
    /// nothing past them: the bytes after belong to the origin.
    private func openTunnel() {
        while var handshake = proxyHandshake {
            while proxyOutputOffset < proxyOutput.count {
                let result = proxyOutput.withUnsafeBytes { bytes in
                    socket.sendSome(UnsafeRawBufferPointer(rebasing: bytes[proxyOutputOffset...]))
                }
                switch result {
                case .transferred(let count):
                    proxyOutputOffset += count
                case .wouldBlock:
                    setInterest(.writable)
                    return
                case .endOfStream:
                    finishConnecting(handshake.closedEarly())
                    return
                case .failed(let code):
                    finishConnecting(Self.lostError("sending to \(origin) failed: \(SocketError("send", errno: code))"))
                    return
                }
            }
            proxyOutput = []
            proxyOutputOffset = 0
            if handshake.isDone {
                proxyHandshake = nil
                if stream.tls != nil {
                    shakeHands()
                } else {
                    finishConnecting(nil)
                }
                return
            }
            let buffer = loop.receiveBuffer
            switch socket.receive(into: buffer) {
            case .transferred(let count):
                do {
                    try handshake.receive(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
                } catch {
                    finishConnecting(error)
                    return
                }
                proxyOutput = handshake.takeOutput()
                proxyHandshake = handshake
            case .wouldBlock:
                setInterest(.readable)
                return
            case .endOfStream:
                finishConnecting(handshake.closedEarly())
                return
            case .failed(let code):
                finishConnecting(Self.lostError("reading from \(origin) failed: \(SocketError("recv", errno: code))"))
                return
            }
        }
    }

    /// Whether the TCP connection was up when connecting failed or finished: a failure after it (a proxy's or a TLS
    /// handshake's) would fail on the origin's other addresses too.
    var reachedPeer: Bool {
        lock.withLock { _ in tcpConnected }
    }

    // MARK: Readiness

    func handle(readable: Bool, writable: Bool) {
        lock.withLock { _ in handleLocked(readable: readable, writable: writable) }
    }

    func tick(now: ContinuousClock.Instant) {
        lock.withLock { _ in
            guard let exchange else { return }
            if exchange.responseHead == nil, let limit = limits.headTime, let started = exchange.responseStarted,
                now - started >= limit
            {
                failConnection(URLError.headTimeout(limit))
                return
            }
            guard let timeout = exchange.idleTimeout, !exchange.paused, now - exchange.lastProgress >= timeout else {
                return
            }
            failConnection(URLError.idleTimeout(timeout))
        }
    }

    /// When the connection became idle, if it is, for the pool's eviction.
    var idleSinceNow: ContinuousClock.Instant? {
        lock.withLock { _ in isClosed ? nil : idleSince }
    }

    private func handleLocked(readable: Bool, writable: Bool) {
        guard !isClosed else { return }
        if connecting != nil {
            if !tcpConnected {
                guard writable else { return }
                let code = socket.pendingError()
                guard code == 0 else {
                    finishConnecting(Self.connectError(origin, SocketError("connect", errno: code)))
                    return
                }
                tcpConnected = true
                proxyOutput = proxyHandshake?.takeOutput() ?? []
            }
            if proxyHandshake != nil {
                openTunnel()
            } else if stream.tls != nil {
                shakeHands()
            } else {
                finishConnecting(nil)
            }
            return
        }
        guard let exchange else {
            // Idle: the server closed the connection, or sent what nobody asked for. One a request has just taken
            // from the pool is left to it: its own read will tell.
            if readable {
                setInterest([])
                if pool.removeIdle(self) {
                    closeLocked()
                }
            }
            return
        }
        if writable && !requestSent {
            flush(exchange)
        }
        if readable && !exchange.paused && self.exchange === exchange {
            receive(exchange)
        }
    }

    // MARK: Sending

    /// Starts an exchange on this connection, just taken from the pool: writes the request from the calling thread
    /// as far as the socket takes it, then leaves the rest, and the response, to the loop.
    func start(_ exchange: Exchange) {
        lock.withLock { _ in startLocked(exchange) }
    }

    private func startLocked(_ exchange: Exchange) {
        guard !exchange.cancelled.withLock({ $0 }) else {
            exchange.fail(CancellationError())
            idleSince = loop.now
            pool.release(self, reusable: !isClosed, idleSince: loop.now)
            return
        }
        guard !isClosed else {
            exchange.fail(
                StaleConnection(error: Self.lostError("the server closed the kept-alive connection to \(origin)"))
            )
            return
        }
        self.exchange = exchange
        idleSince = nil
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

    /// Sends as much of the request as the socket takes, reading more of a stream body as it goes.
    private func flush(_ exchange: Exchange) {
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

    /// Whether the connection may carry another request, as far as the sending side knows.
    private var keepAlive = true

    /// Reads the next piece of a stream body into `output`, framed; `false` when the exchange failed.
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

    // MARK: Receiving

    private func receive(_ exchange: Exchange) {
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
                            error: Self.lostError("the server closed the kept-alive connection to \(origin)")
                        )
                    )
                    return
                }
                if let tls = stream.tls, tls.endedWithoutCloseNotify, parser.hasStarted {
                    // A TLS stream ends with close_notify: without it, an attacker may have cut the response short.
                    failConnection(
                        Self.lostError(
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
                let error = Self.lostError(
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
    private func receiveBufferedInputLater(_ exchange: Exchange) {
        guard stream.hasBufferedInput else { return }
        loop.execute { [weak self] in
            guard let self else { return }
            self.lock.withLock { _ in
                guard !self.isClosed, self.exchange === exchange, !exchange.paused else { return }
                self.receive(exchange)
            }
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

    /// Hands what the parser read to whoever waits.
    private func take(_ event: ResponseParser.Event, _ exchange: Exchange) throws {
        switch event {
        case .head(let head):
            exchange.responseHead = head
            let codings = exchange.decoding?.codings(in: head.fields)
            switch exchange.delivery {
            case .buffered(_, let limit):
                if let length = head.contentLength {
                    guard length <= Int64(limit) else {
                        throw HTTPBody.tooLarge(size: "\(length) bytes", limit: limit)
                    }
                    exchange.body.reserveCapacity(Int(length))
                }
                if let codings, var decoding = exchange.decoding {
                    decoding.maximumSize = limit
                    exchange.decoder = try ContentDecoder(codings: codings, limits: decoding)
                }
            case .streamed(let continuation):
                let (encoded, writer) = HTTPBody.makeStream(expectedLength: head.contentLength)
                // A body with a Content-Encoding is decoded as it is read, on the reader's task.
                var body = encoded
                if let codings, let decoding = exchange.decoding {
                    body = DecodedBody(encoded: encoded, codings: codings, limits: decoding).body
                }
                exchange.writer = writer
                exchange.delivery = nil
                let loop = self.loop
                writer.onDemand(highWater: readAhead, lowWater: readAhead / 4) { [weak self] in
                    loop.execute { [weak self] in self?.resumeReading(exchange) }
                }
                writer.onTermination { [weak self] _ in
                    loop.execute { [weak self] in self?.abandon(exchange) }
                }
                let head = response(exchange, head: head)
                continuation.resume(
                    returning: HTTPResponse.Streamed(
                        status: head.status,
                        headers: head.headers,
                        url: head.url,
                        body: body
                    )
                )
            case nil:
                break
            }
        case .body(let bytes):
            if case .buffered = exchange.delivery, let decoder = exchange.decoder {
                decoder.feed(Data(bytes))
                while let chunk = try decoder.next() {
                    exchange.body.append(chunk)
                }
            } else if case .buffered(_, let limit) = exchange.delivery {
                guard exchange.body.count + bytes.count <= limit else {
                    throw HTTPBody.tooLarge(size: "more than \(limit) bytes", limit: limit)
                }
                exchange.body.append(contentsOf: bytes)
            } else if let writer = exchange.writer {
                if writer.write(Data(bytes)) > readAhead {
                    exchange.paused = true
                    setInterest(requestSent ? [] : .writable)
                }
            }
        case .end:
            try exchange.decoder?.finish()
        }
    }

    private func response(_ exchange: Exchange, head: ParsedHead) -> HTTPResponse {
        HTTPResponse(
            status: HTTPStatus(code: head.status),
            headers: HTTPHeaders(head.fields.map { HTTPHeaders.Field(name: Header($0.name), value: $0.value) }),
            body: exchange.body,
            url: exchange.request.url
        )
    }

    private func complete(_ exchange: Exchange, extraBytes: Int) {
        guard extraBytes == 0 else {
            let length = exchange.responseHead?.contentLength.map { " of \($0) bytes" } ?? ""
            failConnection(
                SluiceError(
                    .transport,
                    message:
                        "the server sent \(extraBytes) bytes after the end of the response\(length) from \(origin), which no request asked for",
                    underlyingError: URLError(.badServerResponse)
                )
            )
            return
        }
        // Bytes already inside TLS past the response (a record read ahead with its last one) were sent for no request,
        // as bytes arriving on an idle connection are: the socket's readiness would never report them, and the next
        // request would read them as its answer.
        let reusable =
            keepAlive && requestSent && (exchange.responseHead?.keepAlive ?? false) && !stream.hasBufferedInput
        self.exchange = nil
        requestsServed += 1
        bodyStream?.close()
        bodyStream = nil
        let delivery = exchange.delivery
        exchange.delivery = nil
        let writer = exchange.writer
        exchange.writer = nil
        keepAlive = true
        if reusable {
            idleSince = loop.now
        } else {
            closeLocked()
        }
        pool.release(self, reusable: reusable, idleSince: loop.now)
        loop.pollForTheNextResponse(after: (exchange.responseStarted ?? loop.now) - exchange.started)
        if case .buffered(let continuation, _) = delivery, let head = exchange.responseHead {
            continuation.resume(returning: response(exchange, head: head))
        }
        writer?.finish()
    }

    // MARK: Back-pressure, cancellation and timeouts

    private func resumeReading(_ exchange: Exchange) {
        lock.withLock { _ in resumeReadingLocked(exchange) }
    }

    private func resumeReadingLocked(_ exchange: Exchange) {
        guard self.exchange === exchange, exchange.paused else { return }
        exchange.paused = false
        exchange.lastProgress = loop.now
        setInterest(requestSent ? .readable : [.readable, .writable])
        receiveBufferedInputLater(exchange)
    }

    private func abandon(_ exchange: Exchange) {
        lock.withLock { _ in
            guard self.exchange === exchange else { return }
            exchange.writer = nil
            failConnection(CancellationError())
        }
    }

    /// Ends the exchange with an error, then closes the connection.
    func cancel(_ exchange: Exchange) {
        lock.withLock { _ in
            guard self.exchange === exchange else { return }
            failConnection(CancellationError())
        }
    }

    /// Fails the exchange under way and closes the connection, which does not go back to the pool.
    private func failConnection(_ error: any Error) {
        guard let exchange else { return }
        self.exchange = nil
        bodyStream?.close()
        bodyStream = nil
        closeLocked()
        pool.release(self, reusable: false, idleSince: loop.now)
        exchange.fail(error)
    }

    // MARK: The socket

    private func setInterest(_ new: Interest) {
        guard !isClosed, new != interest else { return }
        loop.changeInterest(of: socket.descriptor, from: interest, to: new)
        interest = new
    }

    /// Closes the connection, once: at once for whoever uses it, and on the loop for the socket, which is
    /// deregistered before its descriptor is closed (so that no other connection can be given the number meanwhile).
    func close() {
        lock.withLock { _ in closeLocked() }
    }

    private func closeLocked() {
        guard !isClosed else { return }
        isClosed = true
        let (loop, stream, interest, descriptors) = (self.loop, self.stream, self.interest, pool.openDescriptors)
        let registered = self.registered
        loop.execute {
            if registered {
                loop.deregister(stream.socket.descriptor, interest: interest)
            }
            stream.close()
            descriptors.add(-1)
            // The pool's eviction timer holds the connection, and with it the TLS objects, until it fires: a closed
            // connection is let go at once.
            if let timer = self.evictionTimer {
                loop.cancelTimer(timer)
                self.evictionTimer = nil
            }
        }
    }

    /// Gives the connected byte stream to a new owner (a WebSocket, which speaks its own protocol over it), on the
    /// loop: the connection lets go of the socket, open and no longer registered, and counts as closed.
    ///
    /// - Returns: The stream, or `nil` when the connection had been closed meanwhile.
    func handOverStream() async -> ByteStream? {
        await withCheckedContinuation { continuation in
            loop.execute {
                self.lock.withLock { _ in
                    guard !self.isClosed else {
                        continuation.resume(returning: nil)
                        return
                    }
                    self.isClosed = true
                    if self.registered {
                        self.loop.deregister(self.socket.descriptor, interest: self.interest)
                    }
                    continuation.resume(returning: self.stream)
                }
            }
        }
    }

    /// Whether an idle connection is still good to send on: nothing, not even its end, waits to be read, on the socket
    /// or inside TLS.
    var looksReusable: Bool {
        lock.withLock { _ in !isClosed && socket.pendingInput() == .nothing && !stream.hasBufferedInput }
    }

    // MARK: Errors

    private static func connectError(_ origin: Origin, _ error: SocketError) -> SluiceError {
        SluiceError(
            .transport,
            message: "could not connect to \(origin): \(error)",
            underlyingError: URLError(.cannotConnectToHost)
        )
    }

    static func lostError(_ message: String) -> SluiceError {
        SluiceError(.transport, message: message, underlyingError: URLError(.networkConnectionLost))
    }

    private static func responseError(_ error: any Error, origin: Origin) -> any Error {
        switch error {
        case let protocolError as ResponseProtocolError where protocolError.message.hasPrefix("the server closed"):
            return lostError("\(protocolError.message) (\(origin))")
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

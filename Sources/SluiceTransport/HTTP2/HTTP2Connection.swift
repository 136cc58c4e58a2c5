import Foundation

/// One HTTP/2 connection: a ready byte stream (TLS that chose `h2` by ALPN, or plain TCP by prior knowledge) carrying
/// many exchanges at once, each on a stream of its own, over an ``HTTP2Session``.
///
/// Its pool leases its capacity: the streams the server lets this client open at once (its
/// `SETTINGS_MAX_CONCURRENT_STREAMS`), no more than the configuration's limit. A `GOAWAY` drains it: it takes no new
/// exchange, the streams the server processed finish, and those it did not fail with ``UnprocessedStream``, which
/// the performer sends again on another connection.
///
/// Its roles are cut along its files: this one holds its state, its readiness and its lifecycle; `+Streams` starts,
/// feeds and ends the exchanges. Every call into the session is made under the lock, on the loop or on the task that
/// starts an exchange. `@unchecked Sendable` for that reason.
final class HTTP2Connection: PooledConnection, @unchecked Sendable {
    /// One exchange on a stream of the connection.
    final class Stream {
        /// The stream's identifier.
        let identifier: Int32
        /// The exchange it carries.
        let exchange: Exchange
        /// The request body, for its source: data from an offset, or a stream.
        var bodyData: Data?
        var bodyOffset = 0
        var bodyStream: InputStream?
        /// Bytes of a body stream's chunk that did not fit the frame being filled.
        var leftover: [UInt8] = []
        /// The body bytes received and handed to a streamed body's reader but not yet given back to the server's
        /// window, while the reader is behind.
        var unconsumed = 0

        init(identifier: Int32, exchange: Exchange) {
            self.identifier = identifier
            self.exchange = exchange
        }
    }

    /// The loop the socket is registered on.
    let loop: EventLoop
    /// Where it goes.
    let origin: Origin
    /// The bytes exchanged with the server, plain or TLS.
    let stream: ByteStream
    /// The socket under the stream, for the loop.
    var socket: Socket { stream.socket }
    let pool: ConnectionPool
    let protocolVersion = "2"
    /// The address the socket is connected to.
    let peer: SocketAddress?
    let number = PooledConnections.nextNumber()
    /// The pool's leases on it; read and changed under the pool's lock only.
    var leases = 0
    /// The pool's eviction timer, while one is set; touched on the loop's thread only.
    var evictionTimer: UInt64?

    /// The most streams at once by this client's configuration.
    let maximumStreams: Int
    /// The streams the pool may lease now: the server's limit, within ``maximumStreams``; a lock of its own, which
    /// the pool reads under its own lock.
    private let currentCapacity: Locked<Int>
    var capacity: Int { currentCapacity.withLock { $0 } }

    /// Guards everything below; its value is not used (see ``HTTP1Connection``'s lock).
    let lock = Locked(0)
    let session: HTTP2Session
    /// The exchanges under way, by stream.
    var streams: [Int32: Stream] = [:]
    /// The bytes for the socket not yet sent.
    var output: [UInt8] = []
    var outputOffset = 0
    var interest: Interest = []
    var isClosed = false
    /// Whether it takes no new exchange: a `GOAWAY` came or went.
    var isDraining = false
    /// How many responses it has carried to their end.
    var requestsServed = 0
    /// When it last became idle, for the pool's idle eviction.
    var becameIdle: ContinuousClock.Instant?
    /// The bytes of a streamed body read ahead of its reader before its window stops opening.
    let readAhead: Int
    /// Why the connection failed, once it has: a late exchange fails with it too.
    var failure: SluiceError?
    /// When PINGs check that the server still answers.
    let liveness: Liveness
    /// When the server's last bytes came.
    var lastReceived: ContinuousClock.Instant
    /// When the PING now unanswered went out, if one is.
    var pingSent: ContinuousClock.Instant?
    /// The exchanges leased on the connection that wait for a PING's answer before their requests go out.
    var held: [Exchange] = []

    /// Takes a ready stream whose socket is registered on its loop, with no interest, and starts the session: the
    /// preface and this client's settings are written as soon as the socket takes them.
    ///
    /// - Parameters:
    ///   - stream: The ready stream.
    ///   - loop: The loop the socket is registered on.
    ///   - origin: Where it goes, as the pool names it.
    ///   - pool: The pool it goes back to.
    ///   - session: The session, made for the connection.
    ///   - maximumStreams: The most streams at once by this client's configuration.
    ///   - readAhead: The bytes of a streamed body read ahead of its reader.
    ///   - liveness: When PINGs check that the server still answers.
    ///   - peer: The address the socket is connected to.
    init(
        stream: ByteStream,
        loop: EventLoop,
        origin: Origin,
        pool: ConnectionPool,
        session: HTTP2Session,
        maximumStreams: Int,
        readAhead: Int,
        liveness: Liveness,
        peer: SocketAddress?
    ) {
        self.stream = stream
        self.loop = loop
        self.origin = origin
        self.pool = pool
        self.session = session
        self.maximumStreams = max(1, maximumStreams)
        // RFC 9113 section 6.5.2 recommends assuming at least 100 until the server's settings say.
        currentCapacity = Locked(min(self.maximumStreams, session.maximumConcurrentStreams))
        self.readAhead = readAhead
        self.liveness = liveness
        self.peer = peer
        becameIdle = loop.now
        lastReceived = loop.now
        lock.withLock { _ in
            setInterest(.readable)
            flush()
        }
    }

    // MARK: Readiness

    func handle(readable: Bool, writable: Bool) {
        lock.withLock { _ in
            guard !isClosed else { return }
            if readable {
                receive()
            }
            if !isClosed {
                flush()
            }
        }
    }

    func tick(now: ContinuousClock.Instant) {
        lock.withLock { _ in
            guard !isClosed else { return }
            for stream in Array(streams.values) {
                let exchange = stream.exchange
                guard let timeout = exchange.idleTimeout, !exchange.paused, now - exchange.lastProgress >= timeout
                else { continue }
                let error: any Error =
                    exchange.awaitingBody ? AsyncBodyStream.Channel.stalled(timeout) : URLError.idleTimeout(timeout)
                reset(stream, because: error)
            }
            checkLiveness(now: now)
            if !isClosed {
                flush()
            }
        }
    }

    /// When the connection became idle, if it is, for the pool's eviction.
    var idleSince: ContinuousClock.Instant? {
        lock.withLock { _ in isClosed || !streams.isEmpty || !held.isEmpty ? nil : becameIdle }
    }

    /// Whether it takes new exchanges: open, and no `GOAWAY` came or went.
    var isReusable: Bool {
        lock.withLock { _ in !isClosed && !isDraining }
    }

    // MARK: Reading

    /// Reads what the stream has, for a bounded number of reads, into the session, and acts on what it meant.
    private func receive() {
        let buffer = loop.receiveBuffer
        for _ in 0..<16 {
            guard !isClosed else { return }
            switch stream.receive(into: buffer) {
            case .transferred(let count):
                lastReceived = loop.now
                let events: [HTTP2Session.Event]
                do {
                    events = try session.receive(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
                } catch {
                    // What the bytes meant up to the broken frame still counts: a response that ended is delivered.
                    handle(session.takeEvents())
                    failConnection(error)
                    return
                }
                handle(events)
            case .wouldBlock:
                return
            case .endOfStream:
                let cut = stream.tls.map { $0.endedWithoutCloseNotify } ?? false
                failConnection(
                    SluiceError.connectionLost(
                        "the server closed the HTTP/2 connection to \(origin)\(cut ? " without close_notify" : "")"
                    )
                )
                return
            case .failed(let code):
                failConnection(
                    SluiceError.connectionLost(
                        "the HTTP/2 connection to \(origin) failed: \(stream.failureDescription(call: "recv", code: code))"
                    )
                )
                return
            }
        }
        // TLS records read ahead wait inside the stream, which the socket's readiness would not report.
        if stream.hasBufferedInput {
            loop.execute { [weak self] in
                guard let self else { return }
                self.lock.withLock { _ in
                    guard !self.isClosed else { return }
                    self.receive()
                    self.flush()
                }
            }
        }
    }

    // MARK: Writing

    /// Sends what the session has to write, as far as the socket takes it, and waits for writability for the rest.
    func flush() {
        guard !isClosed else { return }
        while true {
            if outputOffset == output.count {
                output.removeAll(keepingCapacity: true)
                outputOffset = 0
                do {
                    output = try session.output()
                } catch {
                    failConnection(error)
                    return
                }
                if output.isEmpty { break }
            }
            let result = output.withUnsafeBytes { bytes in
                stream.sendSome(UnsafeRawBufferPointer(rebasing: bytes[outputOffset...]))
            }
            switch result {
            case .transferred(let count):
                outputOffset += count
            case .wouldBlock:
                setInterest(interest.union(.writable))
                return
            case .endOfStream, .failed:
                failConnection(SluiceError.connectionLost("the HTTP/2 connection to \(origin) stopped taking bytes"))
                return
            }
        }
        switch stream.flush() {
        case .wouldBlock:
            setInterest(interest.union(.writable))
            return
        case .failed:
            failConnection(SluiceError.connectionLost("the HTTP/2 connection to \(origin) stopped taking bytes"))
            return
        default:
            break
        }
        setInterest(.readable)
    }

    // MARK: Lifecycle

    /// Changes the capacity the pool leases, to the server's limit within the configuration's; the pool offers what
    /// grew to its waiters.
    func updateCapacity(serverLimit: Int) {
        let new = max(1, min(maximumStreams, serverLimit))
        let old = currentCapacity.withLock { capacity in
            defer { capacity = new }
            return capacity
        }
        if new != old {
            pool.capacityChanged(self)
        }
    }

    /// Fails every exchange under way and closes the connection: the ones that got no answer yet fail with what
    /// ``failureForUnanswered(_:)`` makes of the error.
    func failConnection(_ error: any Error) {
        guard !isClosed else { return }
        let reason =
            error as? SluiceError
            ?? SluiceError(.transport, message: "the HTTP/2 connection to \(origin) failed: \(error)")
        failure = reason
        let failing = Array(streams.values)
        streams.removeAll()
        let waiting = held
        closeLocked()
        failHeld(reason)
        for stream in failing {
            endStream(stream)
            pool.release(self, reusable: false, idleSince: loop.now)
            stream.exchange.fail(failureForUnanswered(stream, reason))
        }
        if failing.isEmpty && waiting.isEmpty {
            _ = pool.removeIdle(self, because: .closedByServer)
        }
    }

    /// What an exchange the connection failed under fails with: a request that got no byte of its answer, on a
    /// connection that had carried responses before, may be sent again if it may be sent twice (a kept-alive
    /// connection the server closed); the others fail with the connection's error.
    private func failureForUnanswered(_ stream: Stream, _ error: SluiceError) -> any Error {
        guard stream.exchange.responseHead == nil, stream.exchange.responseStarted == nil, requestsServed > 0 else {
            return error
        }
        return StaleConnection(error: error)
    }

    /// Takes no new exchange, and closes once the streams under way have ended: a `GOAWAY` goes out at once.
    func retire() {
        lock.withLock { _ in
            guard !isClosed else { return }
            isDraining = true
            session.goAway()
            failHeld(SluiceError.connectionLost("the HTTP/2 connection to \(origin) was going away"))
            if streams.isEmpty {
                if let goAway = try? session.output() {
                    _ = goAway.withUnsafeBytes { stream.sendSome($0) }
                    _ = stream.flush()
                }
                closeLocked()
            } else {
                flush()
            }
        }
    }

    /// Closes the connection, once: a `GOAWAY` if the socket takes it, then the socket, on the loop.
    func close() {
        lock.withLock { _ in
            guard !isClosed else { return }
            if !streams.isEmpty || !held.isEmpty {
                failConnection(SluiceError.connectionLost("the HTTP/2 connection to \(origin) was closed"))
                return
            }
            session.goAway()
            if let goAway = try? session.output() {
                _ = goAway.withUnsafeBytes { stream.sendSome($0) }
                _ = stream.flush()
            }
            closeLocked()
        }
    }

    func closeLocked() {
        guard !isClosed else { return }
        isClosed = true
        closeSocketOnLoop(stream, interest: interest, descriptors: pool.openDescriptors)
    }

    func setInterest(_ new: Interest) {
        guard !isClosed, new != interest else { return }
        loop.changeInterest(of: socket.descriptor, from: interest, to: new)
        interest = new
    }
}

/// A request the server never processed, which RFC 9113 section 8.7 lets go again on another connection, whatever
/// its method.
///
/// Its stream was above the last one a `GOAWAY` named, or refused with `REFUSED_STREAM`, or it reached a connection
/// going away before it was sent.
struct UnprocessedStream: Error {
    /// The error to report if the request is not sent again.
    var error: SluiceError
}

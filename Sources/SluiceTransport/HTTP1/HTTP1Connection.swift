import Foundation

/// One HTTP/1.1 connection: a ready byte stream (a non-blocking socket on an event loop, plain, through a tunnel or
/// with TLS over it, as ``Connector`` made it), carrying one exchange at a time (no pipelining), kept alive between
/// them by its pool.
///
/// Its roles are cut along its files: this one holds its state, its readiness and its lifecycle (pacing, release to
/// the pool, failure, closing); `+Sending` drives the request out (head, body, upload progress); `+Receiving` reads the
/// response into the parser and hands what it reads to the exchange, which assembles the response
/// (`Exchange+Response`).
///
/// The task that takes the connection from the pool writes its request itself, then the loop waits for the
/// response and reads it: one thread handing over to another per request instead of two. Its state is guarded by a
/// lock that both take (uncontended but for the moment of the hand-over); the socket is deregistered and closed on the
/// loop's thread. `@unchecked Sendable` for that reason.
final class HTTP1Connection: PooledConnection, ReadinessHandler, @unchecked Sendable {
    /// The loop the socket is registered on.
    let loop: EventLoop
    /// Where it goes.
    let origin: Origin
    /// The bytes exchanged with the server, plain or TLS.
    let stream: ByteStream
    /// The socket under the stream, for the loop.
    var socket: Socket { stream.socket }
    let pool: ConnectionPool
    let limits: HeadLimits

    /// One exchange at a time.
    let capacity = 1
    let protocolVersion = "1.1"
    /// The address the socket is connected to.
    let peer: SocketAddress?
    let number = PooledConnections.nextNumber()
    /// The pool's leases on it: 1 while it carries an exchange; read and changed under the pool's lock only.
    var leases = 0
    /// How many responses it has carried; one that has carried any is kept alive, and may have been closed by
    /// the server while idle.
    var requestsServed = 0
    /// The pool's eviction timer, while one is set; touched on the loop's thread only.
    var evictionTimer: UInt64?

    /// Guards everything below.
    ///
    /// Its value is not used: a lock of no value (`Void`) is taken by the thread sanitizer
    /// for an unguarded access to the storage it shares with the mutex.
    let lock = Locked(0)
    /// When it last became idle, for the pool's idle eviction.
    var becameIdle: ContinuousClock.Instant?
    var isClosed = false

    /// What the socket waits for; registered by ``Connector`` with nothing, until an exchange starts.
    var interest: Interest = []
    var exchange: Exchange?
    var parser = ResponseParser(
        limits: HeadLimits(statusLineLength: 0, headerCount: 0, headBytes: 0),
        isHeadRequest: false
    )
    var output: [UInt8] = []
    var outputOffset = 0
    /// The head's bytes at the start of `output` not yet sent, so that body bytes sent can be counted.
    var headBytesUnsent = 0
    /// The request's side of the codec: the head and the body, framed.
    var encoder = RequestEncoder(framing: .length(0))
    var bodyStream: InputStream?
    var requestSent = false
    /// Whether the connection may carry another request, as far as the sending side knows.
    var keepAlive = true

    /// The bytes of a streamed body read ahead of its reader before the socket stops being read.
    let readAhead: Int

    /// Takes a ready stream whose socket is registered on its loop, with no interest, for this connection.
    ///
    /// - Parameters:
    ///   - stream: The ready stream.
    ///   - loop: The loop the socket is registered on.
    ///   - origin: Where it goes, as the pool names it.
    ///   - pool: The pool it goes back to.
    ///   - limits: The limits of a response's head.
    ///   - readAhead: The bytes of a streamed body read ahead of its reader.
    ///   - peer: The address the socket is connected to.
    init(
        stream: ByteStream,
        loop: EventLoop,
        origin: Origin,
        pool: ConnectionPool,
        limits: HeadLimits,
        readAhead: Int,
        peer: SocketAddress? = nil
    ) {
        self.peer = peer
        self.stream = stream
        self.loop = loop
        self.origin = origin
        self.pool = pool
        self.limits = limits
        self.readAhead = readAhead
    }

    // MARK: Readiness

    func handle(readable: Bool, writable: Bool) {
        lock.withLock { _ in
            guard !isClosed else { return }
            guard let exchange else {
                // Idle: the server closed the connection, or sent what nobody asked for. One a request has just
                // taken from the pool is left to it: its own read will tell.
                if readable {
                    setInterest([])
                    if pool.removeIdle(self, because: .closedByServer) {
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
            failConnection(
                exchange.awaitingBody ? AsyncBodyStream.Channel.stalled(timeout) : URLError.idleTimeout(timeout)
            )
        }
    }

    /// When the connection became idle, if it is, for the pool's eviction.
    var idleSince: ContinuousClock.Instant? {
        lock.withLock { _ in isClosed ? nil : becameIdle }
    }

    /// Whether an idle connection is still good to send on: nothing, not even its end, waits to be read, on the socket
    /// or inside TLS.
    var isReusable: Bool {
        lock.withLock { _ in !isClosed && socket.pendingInput() == .nothing && !stream.hasBufferedInput }
    }

    // MARK: Lifecycle

    /// Ends the exchange whose response has been read: the connection goes back to the pool, kept alive or closed,
    /// the loop polls briefly for the next request when this one was quick, and the waiting task gets its response.
    func complete(_ exchange: Exchange, extraBytes: Int) {
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
            becameIdle = loop.now
        } else {
            closeLocked()
        }
        pool.release(self, reusable: reusable, idleSince: loop.now)
        loop.pollForTheNextResponse(after: (exchange.responseStarted ?? loop.now) - exchange.started)
        if case .buffered(let continuation) = delivery, let head = exchange.responseHead {
            continuation.resume(returning: exchange.response(head: head))
        }
        writer?.finish()
        exchange.releaseHead()
    }

    func resumeReading(_ exchange: Exchange) {
        lock.withLock { _ in
            guard self.exchange === exchange, exchange.paused else { return }
            exchange.paused = false
            exchange.lastProgress = loop.now
            setInterest(requestSent ? .readable : [.readable, .writable])
            receiveBufferedInputLater(exchange)
        }
    }

    func abandon(_ exchange: Exchange) {
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
    func failConnection(_ error: any Error) {
        guard let exchange else { return }
        self.exchange = nil
        bodyStream?.close()
        bodyStream = nil
        closeLocked()
        pool.release(self, reusable: false, idleSince: loop.now)
        exchange.fail(error)
    }

    // MARK: The socket

    func setInterest(_ new: Interest) {
        guard !isClosed, new != interest else { return }
        loop.changeInterest(of: socket.descriptor, from: interest, to: new)
        interest = new
    }

    /// Closes the connection, once: at once for whoever uses it, and on the loop for the socket, which is
    /// deregistered before its descriptor is closed (so that no other connection can be given the number meanwhile).
    func close() {
        lock.withLock { _ in closeLocked() }
    }

    func closeLocked() {
        guard !isClosed else { return }
        isClosed = true
        closeSocketOnLoop(stream, interest: interest, descriptors: pool.openDescriptors)
    }
}

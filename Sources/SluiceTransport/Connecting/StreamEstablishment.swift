import Foundation

/// One attempt to make a byte stream ready on one address: the TCP connection, then the tunnel through the origin's
/// proxy when it needs one, then the TLS handshake when it uses TLS, each a layer of ``ByteStream`` over the one below.
///
/// The tunnel's handshake is spoken through the plain stream over the socket, the layer TLS then goes over, so that
/// whoever takes the ready stream (an HTTP/1.1 connection, a WebSocket, a multiplexed connection chosen by ALPN) gets
/// it whole and never sees how it was made. The attempt is the socket's readiness handler on its loop until the stream
/// is ready, then hands the socket over. Its state is guarded by a lock, taken on the loop and by a cancelling task;
/// the socket is registered, handed over and closed on the loop's thread. `@unchecked Sendable` for that reason.
///
/// One attempt of a race on the origin's addresses (``ConnectionRace``) claims the race when its TCP connection comes
/// up, before any handshake, and goes on alone; the others end with ``ConnectionRace/Abandoned`` and close their
/// sockets, however far they got.
final class StreamEstablishment: ReadinessHandler, @unchecked Sendable {
    /// The loop the socket is registered on.
    let loop: EventLoop
    private let origin: Origin
    /// The stream once ready: the plain one, or TLS over it.
    private let stream: ByteStream
    /// The socket's own bytes, below TLS: the tunnel's handshake goes through it.
    private let plain: ByteStream
    private var socket: Socket { stream.socket }
    /// The sockets open, counted from this one's making until its descriptor is closed, here or by its new owner.
    private let descriptors: Gauge

    /// Guards everything below; its value is not used (see ``HTTP1Connection``'s lock).
    private let lock = Locked(0)
    private var interest: Interest = []
    private var registered = false
    private var isClosed = false
    /// Whether another attempt of its race won: the attempt ends, however far it got, and its socket is closed.
    private var abandoned = false
    /// The race it is one attempt of, which it claims when its TCP connection comes up; `nil` when it is alone.
    private let race: ConnectionRace?
    private var waiting: CheckedContinuation<Void, any Error>?
    /// Whether the TCP connection is up.
    private var tcpConnected = false
    /// When the TCP connection came up and any proxy's tunnel opened: where a TLS handshake begins.
    private var connected: ContinuousClock.Instant?
    /// The address it connects to.
    let address: SocketAddress
    /// The handshake that opens a tunnel through a proxy once the TCP connection is up, until it is open.
    private var proxyHandshake: ProxyHandshake?
    /// The handshake's bytes not yet taken by the stream, from ``proxyOutputOffset`` on.
    private var proxyOutput: [UInt8] = []
    private var proxyOutputOffset = 0
    private var timer: UInt64?
    /// Makes the socket's next handler from the ready stream, on the loop; `nil` to take the socket off the loop.
    private var handOver: ((ByteStream) -> any ReadinessHandler)?

    /// Opens a socket and starts connecting it; ``establish(timeout:handingTo:)`` or ``establish(timeout:)``
    /// finishes.
    ///
    /// - Parameters:
    ///   - address: The address to connect to: the origin's, or its proxy's.
    ///   - origin: Where the stream goes, for messages and the TLS layer.
    ///   - tls: The TLS settings, for an origin that uses TLS.
    ///   - proxyHandshake: The handshake that opens a tunnel through the origin's proxy, if it needs one.
    ///   - loop: The loop the socket is registered on.
    ///   - descriptors: The count of open sockets, which this one joins.
    ///   - offersHTTP2: Whether TLS offers `h2` by ALPN before HTTP/1.1.
    ///   - race: The race it enters, with the attempts on the origin's other addresses; `nil` when it is alone.
    /// - Throws: ``SocketError`` when the attempt failed at once, ``SluiceError`` when TLS could not be set up.
    init(
        to address: SocketAddress,
        origin: Origin,
        tls: TLSContext?,
        proxyHandshake: ProxyHandshake?,
        loop: EventLoop,
        descriptors: Gauge,
        offersHTTP2: Bool = false,
        race: ConnectionRace? = nil
    ) throws {
        self.loop = loop
        self.race = race
        self.origin = origin
        self.address = address
        self.proxyHandshake = proxyHandshake
        self.descriptors = descriptors
        let socket = try Socket.stream(family: address.family)
        do {
            _ = try socket.connect(to: address)
            plain = ByteStream(socket: socket, tls: nil)
            if origin.usesTLS, case .tcp(let host, let port) = origin.address {
                guard let tls else {
                    throw SluiceError(.transport, message: "no TLS settings for \(origin)")
                }
                stream = ByteStream(
                    socket: socket,
                    tls: try TLSStream(
                        context: tls,
                        socket: socket,
                        host: host,
                        port: port,
                        offersHTTP2: offersHTTP2
                    )
                )
            } else {
                stream = plain
            }
        } catch {
            socket.closeDescriptor()
            throw error
        }
        descriptors.add(1)
        race?.enter(self)
    }

    /// Waits until the stream is ready, then hands its socket, still registered, to the handler made for it.
    ///
    /// - Parameters:
    ///   - timeout: How long to wait at most, counted from `start`; `nil` for no limit.
    ///   - start: When the connection began: the start of its race, which the timeout bounds as a whole.
    ///   - make: Makes the handler from the ready stream, on the loop's thread, before this returns.
    /// - Returns: The handler made.
    /// - Throws: ``SluiceError`` when the attempt failed or timed out, `CancellationError` when the task was
    ///   cancelled, ``ConnectionRace/Abandoned`` when another attempt of its race won; the socket is closed then.
    func establish(
        timeout: Duration?,
        from start: ContinuousClock.Instant,
        handingTo make: @escaping @Sendable (ByteStream) -> any PooledConnection
    ) async throws -> any PooledConnection {
        let made = Locked<(any PooledConnection)?>(nil)
        handOver = { stream in
            let handler = make(stream)
            made.withLock { $0 = handler }
            return handler
        }
        try await waitUntilReady(timeout: timeout, from: start)
        guard let handler = made.withLock({ $0 }) else { throw CancellationError() }
        return handler
    }

    /// Waits until the stream is ready, then takes its socket off the loop, for an owner that registers it itself.
    ///
    /// - Parameters:
    ///   - timeout: How long to wait at most, counted from `start`; `nil` for no limit.
    ///   - start: When the connection began: the start of its race, which the timeout bounds as a whole.
    /// - Returns: The ready stream, still counted in the open sockets until its new owner closes it.
    /// - Throws: What ``establish(timeout:from:handingTo:)`` throws.
    func establish(timeout: Duration?, from start: ContinuousClock.Instant) async throws -> ByteStream {
        try await waitUntilReady(timeout: timeout, from: start)
        return stream
    }

    /// Whether the TCP connection was up when the attempt failed or finished: a failure after it (a proxy's or a TLS
    /// handshake's) would fail on the origin's other addresses too.
    var reachedPeer: Bool {
        lock.withLock { _ in tcpConnected }
    }

    /// When the TCP connection came up, and the proxy's tunnel opened where there is one; `nil` before.
    var connectedAt: ContinuousClock.Instant? {
        lock.withLock { _ in connected }
    }

    /// Ends the attempt, on its loop, because another attempt of its race won; an attempt not yet waiting ends as it
    /// starts to.
    func abandon() {
        lock.withLock { _ in abandoned = true }
        loop.execute { self.lock.withLock { _ in self.finish(ConnectionRace.Abandoned()) } }
    }

    private func waitUntilReady(timeout: Duration?, from start: ContinuousClock.Instant) async throws {
        let cancelled = Locked(false)
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                loop.execute {
                    self.lock.withLock { _ in
                        self.registered = true
                        self.interest = .writable
                        self.loop.register(self.socket.descriptor, self, interest: .writable)
                        guard !cancelled.withLock({ $0 }), !self.abandoned else {
                            self.closeLocked()
                            continuation.resume(
                                throwing: self.abandoned ? ConnectionRace.Abandoned() : CancellationError()
                            )
                            return
                        }
                        self.waiting = continuation
                        if let timeout {
                            self.timer = self.loop.schedule(at: start + timeout) {
                                self.lock.withLock { _ in
                                    self.timer = nil
                                    let origin = self.origin.description
                                    self.finish(
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
            loop.execute { self.lock.withLock { _ in self.finish(CancellationError()) } }
        }
    }

    // MARK: Readiness

    func handle(readable: Bool, writable: Bool) {
        lock.withLock { _ in
            guard !isClosed, waiting != nil else { return }
            if !tcpConnected {
                guard writable else { return }
                let code = socket.pendingError()
                guard code == 0 else {
                    finish(
                        SluiceError(
                            .transport,
                            message: "could not connect to \(origin): \(SocketError("connect", errno: code))",
                            underlyingError: URLError(.cannotConnectToHost)
                        )
                    )
                    return
                }
                guard race?.claim(self) ?? true else {
                    finish(ConnectionRace.Abandoned())
                    return
                }
                tcpConnected = true
                proxyOutput = proxyHandshake?.takeOutput() ?? []
            }
            if proxyHandshake != nil {
                openTunnel()
            } else {
                shakeHands()
            }
        }
    }

    func tick(now: ContinuousClock.Instant) {}

    /// Takes the proxy's handshake as far as the plain stream allows, then the TLS handshake once the tunnel is open;
    /// call with the lock held.
    ///
    /// The proxy's replies are read into the loop's buffer and handed to the handshake, which bounds them and reads
    /// nothing past them: the bytes after belong to the origin.
    private func openTunnel() {
        while var handshake = proxyHandshake {
            while proxyOutputOffset < proxyOutput.count {
                let result = proxyOutput.withUnsafeBytes { bytes in
                    plain.sendSome(UnsafeRawBufferPointer(rebasing: bytes[proxyOutputOffset...]))
                }
                switch result {
                case .transferred(let count):
                    proxyOutputOffset += count
                case .wouldBlock:
                    setInterest(.writable)
                    return
                case .endOfStream:
                    finish(handshake.closedEarly())
                    return
                case .failed(let code):
                    finish(
                        SluiceError.connectionLost("sending to \(origin) failed: \(SocketError("send", errno: code))")
                    )
                    return
                }
            }
            proxyOutput = []
            proxyOutputOffset = 0
            if handshake.isDone {
                proxyHandshake = nil
                shakeHands()
                return
            }
            let buffer = loop.receiveBuffer
            switch plain.receive(into: buffer) {
            case .transferred(let count):
                do {
                    try handshake.receive(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
                } catch {
                    finish(error)
                    return
                }
                proxyOutput = handshake.takeOutput()
                proxyHandshake = handshake
            case .wouldBlock:
                setInterest(.readable)
                return
            case .endOfStream:
                finish(handshake.closedEarly())
                return
            case .failed(let code):
                finish(SluiceError.connectionLost("reading from \(origin) failed: \(SocketError("recv", errno: code))"))
                return
            }
        }
    }

    /// Takes the TLS handshake as far as the socket allows, then waits for what it needs.
    ///
    /// Without TLS the stream is ready at once. Call with the lock held.
    private func shakeHands() {
        if connected == nil {
            connected = .now
        }
        guard let tls = stream.tls else {
            finish(nil)
            return
        }
        switch tls.handshake() {
        case .done: finish(nil)
        case .wantsReadable: setInterest(.readable)
        case .wantsWritable: setInterest(.writable)
        case .failed(let error): finish(error)
        }
    }

    /// Ends the attempt: a ready stream goes to its new owner, a failed one is closed.
    ///
    /// Call on the loop, with the lock held.
    private func finish(_ error: (any Error)?) {
        guard let continuation = waiting else { return }
        waiting = nil
        if let timer {
            loop.cancelTimer(timer)
            self.timer = nil
        }
        if let error {
            closeLocked()
            continuation.resume(throwing: error)
            return
        }
        setInterest([])
        isClosed = true
        if let handOver {
            loop.replaceHandler(of: socket.descriptor, with: handOver(stream))
        } else {
            loop.deregister(socket.descriptor, interest: interest)
        }
        continuation.resume()
    }

    private func setInterest(_ new: Interest) {
        guard !isClosed, new != interest else { return }
        loop.changeInterest(of: socket.descriptor, from: interest, to: new)
        interest = new
    }

    /// Closes the socket of a failed attempt, on the loop, once it has left it.
    private func closeLocked() {
        guard !isClosed else { return }
        isClosed = true
        let (loop, stream, interest, descriptors, registered) = (
            self.loop, self.stream, self.interest, self.descriptors, self.registered
        )
        loop.execute {
            if registered {
                loop.deregister(stream.socket.descriptor, interest: interest)
            }
            stream.close()
            descriptors.add(-1)
        }
    }
}

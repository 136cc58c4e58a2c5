import Foundation

/// Opens byte streams to origins, ready for a protocol to speak over: the addresses resolved and tried in turn, the
/// tunnel through the origin's proxy and TLS layered on as it needs them (``StreamEstablishment``).
///
/// The one "connect" role of the transport: a connection is made from a ready stream and never sees how it was made,
/// so that HTTP/1.1, a WebSocket, and a protocol chosen by ALPN later all take their stream from here.
final class Connector: Sendable {
    /// What the connector needs to open streams.
    struct Settings: Sendable {
        /// How long making a stream ready may take on one address; `nil` for no limit.
        var connectTimeout: Duration?
        /// The bounds of a `CONNECT` reply's head.
        var limits: HeadLimits
        /// How TLS streams are secured.
        var tls = TLSConfiguration()
        /// The OpenSSL that secures them; `nil` where none could be loaded, or on Apple platforms.
        var tlsLibrary: OpenSSL?
    }

    private let settings: Settings
    /// The TLS context, made for the first TLS stream (it reads the trust store), or why it could not be.
    private let tlsContext = Locked<Result<TLSContext, SluiceError>?>(nil)
    /// The sockets its streams have open, from the moment one is made until its descriptor is closed on its loop:
    /// a test counts them after thousands of connections to see none leak.
    let openDescriptors = Gauge()

    /// Creates a connector.
    init(settings: Settings) {
        self.settings = settings
    }

    /// The `SSL` objects its TLS streams hold, while it has a TLS context; `nil` before its first TLS stream.
    var liveSSLObjects: Gauge? {
        tlsContext.withLock { stored in
            guard case .success(let context) = stored else { return nil }
            return context.liveSSLObjects
        }
    }

    /// The sessions in OpenSSL's own store of its TLS context, which holds none; `nil` before its first TLS stream.
    var sessionsStoredByOpenSSL: Int? {
        tlsContext.withLock { stored in
            guard case .success(let context) = stored else { return nil }
            return context.sessionsStoredByOpenSSL
        }
    }

    /// Opens a ready stream to an origin and hands its socket, registered on its loop, to the handler made for it.
    ///
    /// - Parameters:
    ///   - origin: Where to connect.
    ///   - timings: Where to note the DNS and connect phases, when an instrumentation listens.
    ///   - offersHTTP2: Whether TLS offers `h2` by ALPN before HTTP/1.1; the handler is made for what the server chose
    ///     (``TLSStream/negotiatedProtocol``).
    ///   - make: Makes the handler (a connection) from the ready stream, its loop and the address it is connected to,
    ///     on the loop's thread.
    /// - Returns: The handler made.
    /// - Throws: ``SluiceError`` when no address gave a ready stream, `CancellationError` when the task is cancelled.
    func connect(
        _ origin: Origin,
        timings: ConnectionTimings? = nil,
        offersHTTP2: Bool = false,
        handingTo make: @escaping @Sendable (ByteStream, EventLoop, SocketAddress) -> any PooledConnection
    ) async throws -> any PooledConnection {
        try await eachAddress(of: origin, timings: timings, offersHTTP2: offersHTTP2) { attempt in
            let (loop, address) = (attempt.loop, attempt.address)
            let start = timings.map { _ in ContinuousClock.now }
            let handler = try await attempt.establish(timeout: settings.connectTimeout) { make($0, loop, address) }
            if let timings, let start {
                let ready = ContinuousClock.now
                timings.noteEstablished(
                    start: start,
                    connected: attempt.connectedAt ?? ready,
                    ready: ready,
                    usesTLS: origin.usesTLS
                )
            }
            return handler
        }
    }

    /// Opens a ready stream to an origin, off the loop, for an owner that registers it itself (a WebSocket).
    ///
    /// - Returns: The stream and its loop; its socket stays counted in ``openDescriptors`` until its owner closes it.
    /// - Throws: What ``connect(_:handingTo:)`` throws.
    func connect(_ origin: Origin) async throws -> (stream: ByteStream, loop: EventLoop) {
        try await eachAddress(of: origin) { attempt in
            (try await attempt.establish(timeout: settings.connectTimeout), attempt.loop)
        }
    }

    /// Tries the origin's addresses (its proxy's, through one) in turn, until one gives a ready stream.
    private func eachAddress<Value>(
        of origin: Origin,
        timings: ConnectionTimings? = nil,
        offersHTTP2: Bool = false,
        _ establish: (StreamEstablishment) async throws -> Value
    ) async throws -> Value {
        let addresses: [SocketAddress]
        switch origin.address {
        case .unix(let path):
            guard path.utf8.count <= SocketAddress.maximumUnixPathLength else {
                throw SluiceError(
                    .transport,
                    message:
                        "the Unix socket path \(path) is longer than the \(SocketAddress.maximumUnixPathLength) bytes the system takes"
                )
            }
            addresses = [.unix(path)]
        case .tcp(let host, let port):
            // Through a proxy, the connection goes to the proxy.
            let (name, number) = (origin.proxy?.host ?? host, origin.proxy?.port ?? port)
            // An address written as such is no lookup: only a name's resolution is a DNS phase.
            let start = timings.map { _ in ContinuousClock.now }
            addresses = try await Self.resolve(host: name, port: number)
            if let timings, let start, SocketAddress.numeric(host: name, port: number) == nil {
                timings.noteDNS((start, .now))
            }
        }
        let tls = origin.usesTLS ? try makeTLSContext() : nil
        let handshake = try await proxyHandshake(origin)
        var lastError: (any Error)?
        for address in addresses {
            try Task.checkCancellation()
            var made: StreamEstablishment?
            do {
                let attempt = try StreamEstablishment(
                    to: address,
                    origin: origin,
                    tls: tls,
                    proxyHandshake: handshake,
                    loop: EventLoop.currentOrNext(),
                    descriptors: openDescriptors,
                    offersHTTP2: offersHTTP2
                )
                made = attempt
                return try await establish(attempt)
            } catch let error as SocketError {
                lastError = SluiceError(
                    .transport,
                    message: "could not connect to \(origin): \(error)",
                    underlyingError: URLError(.cannotConnectToHost)
                )
            } catch let error as SluiceError
                where (error.underlyingError as? URLError)?.code == .cannotConnectToHost && made?.reachedPeer != true
            {
                // The next address may answer; a failure after connecting (a proxy's refusal, TLS) would fail there
                // too.
                lastError = error
            }
        }
        throw lastError ?? SluiceError(.transport, message: "\(origin) has no address")
    }

    /// The TLS context, made the first time it is needed.
    ///
    /// - Throws: ``SluiceError`` when OpenSSL is not loaded or the configuration could not be put in place; every
    ///   TLS stream of the connector then fails with it.
    private func makeTLSContext() throws(SluiceError) -> TLSContext {
        let result = tlsContext.withLock { stored -> Result<TLSContext, SluiceError> in
            if let stored {
                return stored
            }
            let made: Result<TLSContext, SluiceError>
            switch settings.tlsLibrary.map(Result.success) ?? OpenSSL.shared {
            case .failure(let unavailable):
                made = .failure(SluiceError(.transport, message: "\(unavailable)"))
            case .success(let openSSL):
                do {
                    made = .success(try TLSContext(openSSL: openSSL, configuration: settings.tls))
                } catch {
                    made = .failure(
                        SluiceError(
                            .transport,
                            message: "the TLS configuration could not be put in place: \(error)",
                            underlyingError: URLError(.secureConnectionFailed)
                        )
                    )
                }
            }
            stored = made
            return made
        }
        return try result.get()
    }

    /// The addresses of a host, or the error that names it.
    private static func resolve(host: String, port: Int) async throws -> [SocketAddress] {
        do {
            return try await SocketAddress.resolve(host: host, port: port)
        } catch {
            throw SluiceError(.transport, message: "\(error)", underlyingError: URLError(.cannotFindHost))
        }
    }

    /// The handshake that opens a tunnel to an origin through its proxy, or `nil` when it goes directly or to an
    /// HTTP proxy in absolute form.
    ///
    /// Through `socks5://` the origin's host is resolved here, and the proxy given its first address; through
    /// `socks5h://` and `CONNECT` the proxy is given the name.
    private func proxyHandshake(_ origin: Origin) async throws -> ProxyHandshake? {
        guard let proxy = origin.proxy, !origin.sendsAbsoluteForm, case .tcp(let host, let port) = origin.address
        else { return nil }
        let target: ProxyHandshake.Target
        if proxy.kind == .socks5 {
            let resolved = try await Self.resolve(host: host, port: port)
            guard let first = resolved.first else {
                throw SluiceError(
                    .transport,
                    message: "\(host) has no address",
                    underlyingError: URLError(.cannotFindHost)
                )
            }
            target = .address(first)
        } else {
            target = .name(host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host, port: port)
        }
        return try ProxyHandshake(proxy: proxy, target: target, limits: settings.limits)
    }
}

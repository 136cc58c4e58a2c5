import Foundation

/// Opens byte streams to origins, ready for a protocol to speak over: the addresses resolved (or taken from its
/// ``DNSCache``) and raced after RFC 8305 (``HappyEyeballs``, ``ConnectionRace``), the tunnel through the origin's
/// proxy and TLS layered on the winner as it needs them (``StreamEstablishment``).
///
/// The one "connect" role of the transport: a connection is made from a ready stream and never sees how it was made,
/// so that HTTP/1.1, a WebSocket, and a protocol chosen by ALPN later all take their stream from here.
final class Connector: Sendable {
    /// What the connector needs to open streams.
    struct Settings: Sendable {
        /// How long making a stream ready may take, from the first attempt of its race to the end of its handshakes,
        /// all of the origin's addresses together; `nil` for no limit.
        var connectTimeout: Duration?
        /// The bounds of a `CONNECT` reply's head.
        var limits: HeadLimits
        /// How TLS streams are secured.
        var tls = TLSConfiguration()
        /// The OpenSSL that secures them; `nil` where none could be loaded, or on Apple platforms.
        var tlsLibrary: OpenSSL?
        /// How long an attempt runs alone before the next address is tried beside it; held within
        /// ``HappyEyeballs/attemptDelayBounds``.
        var attemptDelay = HappyEyeballs.defaultAttemptDelay
        /// How long resolved addresses are kept, and for how many hosts.
        var dnsCache = DNSCache.Settings(lifetime: .seconds(30), maximumHosts: 256)
        /// What the attempt delay and the answers' lifetime are measured on: a test's clock moves when it says.
        var clock: any Clock<Duration> = ContinuousClock()
        /// What resolves a host name: `getaddrinfo`, or a test's table.
        var lookUp: DNSCache.LookUp = { try await SocketAddress.resolve(host: $0, port: $1) }
    }

    private let settings: Settings
    /// The TLS context, made for the first TLS stream (it reads the trust store), or why it could not be.
    private let tlsContext = Locked<Result<TLSContext, SluiceError>?>(nil)
    /// The sockets its streams have open, from the moment one is made until its descriptor is closed on its loop:
    /// a test counts them after thousands of connections to see none leak.
    let openDescriptors = Gauge()
    /// The addresses it resolved, its own.
    let dnsCache: DNSCache

    /// Creates a connector.
    init(settings: Settings) {
        self.settings = settings
        dnsCache = DNSCache(settings: settings.dnsCache, clock: settings.clock, lookUp: settings.lookUp)
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
        let timeout = settings.connectTimeout
        return try await eachAddress(of: origin, timings: timings, offersHTTP2: offersHTTP2) { attempt, start in
            let (loop, address) = (attempt.loop, attempt.address)
            let handler = try await attempt.establish(timeout: timeout, from: start) { make($0, loop, address) }
            if let timings {
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
    /// - Returns: The stream, its loop and the address it is connected to; its socket stays counted in
    ///   ``openDescriptors`` until its owner closes it.
    /// - Throws: What ``connect(_:timings:offersHTTP2:handingTo:)`` throws.
    func connect(_ origin: Origin) async throws -> (stream: ByteStream, loop: EventLoop, address: SocketAddress) {
        let timeout = settings.connectTimeout
        return try await eachAddress(of: origin) { attempt, start in
            (try await attempt.establish(timeout: timeout, from: start), attempt.loop, attempt.address)
        }
    }

    /// Races the origin's addresses (its proxy's, through one) until one gives a ready stream; when every cached
    /// address failed, looks the host up once more and races the new addresses, if they are others, in what is left of
    /// the connect timeout.
    private func eachAddress<Value: Sendable>(
        of origin: Origin,
        timings: ConnectionTimings? = nil,
        offersHTTP2: Bool = false,
        _ establish: @escaping @Sendable (StreamEstablishment, ContinuousClock.Instant) async throws -> Value
    ) async throws -> Value {
        let answer: DNSCache.Answer
        // Through a proxy, the connection goes to the proxy.
        var name = ""
        var number = 0
        switch origin.address {
        case .unix(let path):
            guard path.utf8.count <= SocketAddress.maximumUnixPathLength else {
                throw SluiceError(
                    .transport,
                    message:
                        "the Unix socket path \(path) is longer than the \(SocketAddress.maximumUnixPathLength) bytes the system takes"
                )
            }
            answer = DNSCache.Answer(addresses: [.unix(path)], source: .literal)
        case .tcp(let host, let port):
            (name, number) = (origin.proxy?.host ?? host, origin.proxy?.port ?? port)
            answer = try await resolve(host: name, port: number, timings: timings)
        }
        let tls = origin.usesTLS ? try makeTLSContext() : nil
        let handshake = try await proxyHandshake(origin)
        let descriptors = openDescriptors
        let start = ContinuousClock.now
        let race = { (addresses: [SocketAddress]) async throws -> Value in
            try await ConnectionRace.run(
                addresses: HappyEyeballs.ordered(addresses),
                delay: HappyEyeballs.clamped(self.settings.attemptDelay),
                clock: self.settings.clock
            ) { address, race in
                var made: StreamEstablishment?
                do {
                    let attempt = try StreamEstablishment(
                        to: address,
                        origin: origin,
                        tls: tls,
                        proxyHandshake: handshake,
                        loop: EventLoop.currentOrNext(),
                        descriptors: descriptors,
                        offersHTTP2: offersHTTP2,
                        race: race
                    )
                    made = attempt
                    return try await establish(attempt, start)
                } catch let error as SocketError {
                    throw ConnectionRace.Unreachable(
                        error: SluiceError(
                            .transport,
                            message: "could not connect to \(origin): \(error)",
                            underlyingError: URLError(.cannotConnectToHost)
                        )
                    )
                } catch let error as SluiceError
                    where (error.underlyingError as? URLError)?.code == .cannotConnectToHost
                    && made?.reachedPeer != true
                {
                    // The next address may answer; a failure after connecting (a proxy's refusal, TLS) would fail
                    // there too.
                    throw ConnectionRace.Unreachable(error: error)
                }
            }
        }
        // A race every address lost drops the answer, which may be stale (the host moved): the next connection looks
        // the host up again.
        let raceDropping = { (addresses: [SocketAddress]) async throws -> Value in
            do {
                return try await race(addresses)
            } catch let error where error is ConnectionRace.Unreachable || (error as? URLError)?.code == .timedOut {
                self.dnsCache.evict(host: name, port: number)
                throw error
            }
        }
        do {
            return try await raceDropping(answer.addresses)
        } catch let failure as ConnectionRace.Unreachable {
            // An answer kept from an earlier connection is looked up again for this one too, once.
            guard answer.source == .cache else { throw failure.error }
            let fresh = try await resolve(host: name, port: number, timings: timings)
            guard fresh.addresses.map(\.description) != answer.addresses.map(\.description) else { throw failure.error }
            do {
                return try await raceDropping(fresh.addresses)
            } catch let failure as ConnectionRace.Unreachable {
                throw failure.error
            }
        }
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

    /// The addresses of a host, from the cache or a lookup (noted as the DNS phase), or the error that names it.
    private func resolve(host: String, port: Int, timings: ConnectionTimings? = nil) async throws -> DNSCache.Answer {
        let start = ContinuousClock.now
        let answer: DNSCache.Answer
        do {
            answer = try await dnsCache.resolve(host: host, port: port)
        } catch {
            throw SluiceError(.transport, message: "\(error)", underlyingError: URLError(.cannotFindHost))
        }
        // An address written as such, or an answer kept, is no lookup: only a name's resolution is a DNS phase.
        if let timings, answer.source == .lookup {
            timings.noteDNS((start, .now))
        }
        guard !answer.addresses.isEmpty else {
            throw SluiceError(.transport, message: "\(host) has no address", underlyingError: URLError(.cannotFindHost))
        }
        return answer
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
            // Never empty: resolving throws for a host without an address.
            target = .address(try await resolve(host: host, port: port).addresses[0])
        } else {
            target = .name(host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host, port: port)
        }
        return try ProxyHandshake(proxy: proxy, target: target, limits: settings.limits)
    }
}

import Foundation

/// Kept-alive connections per origin, at most a number open to each, handed to one request at a time.
///
/// A request takes an idle connection when there is one that has not been closed under it, opens one when fewer
/// than the limit are open, and otherwise waits, first come first served, for one to be released. Idle connections
/// are closed after the idle timeout, and at once when the server closes them or sends what nobody asked for.
final class ConnectionPool: Sendable {
    /// What the pool needs to open connections.
    struct Settings: Sendable {
        var maximumConnectionsPerOrigin: Int
        var connectTimeout: Duration?
        var idleTimeout: Duration
        var limits: HeadLimits
        var readAhead: Int
        /// How `https://` connections are secured.
        var tls = TLSConfiguration()
        /// The OpenSSL that secures them; `nil` where none could be loaded, or on Apple platforms.
        var tlsLibrary: OpenSSL?
    }

    private struct Waiter {
        var identifier: UInt64
        var continuation: CheckedContinuation<Connection?, any Error>
    }

    /// What a request does next for a connection.
    private enum Step {
        /// Takes this idle connection.
        case reuse(Connection)
        /// Closes this idle connection and opens a new one in its slot.
        case replace(Connection)
        /// Opens a new connection in a free slot.
        case open
        /// Waits for a connection to be released.
        case wait
    }

    private struct OriginState {
        var idle: [Connection] = []
        var open = 0
        var waiters: [Waiter] = []

        /// Takes an idle connection or a free slot, or says to wait.
        ///
        /// - Parameters:
        ///   - fresh: Whether a new connection is wanted rather than an idle one.
        ///   - limit: The most connections open to the origin at once.
        /// - Returns: The step, with the connection taken, or the slot counted as open.
        mutating func nextStep(fresh: Bool, limit: Int) -> Step {
            if let connection = takeIdle() {
                return fresh ? .replace(connection) : .reuse(connection)
            }
            guard open < limit else { return .wait }
            open += 1
            return .open
        }

        /// Takes the idle connection used last, or, for a task on one of the loops, the last of that loop's.
        ///
        /// The answer then comes back on the thread the task runs on. The calling thread is looked at only when there
        /// is a choice.
        mutating func takeIdle() -> Connection? {
            if idle.count > 1, let loop = EventLoop.current, let index = idle.lastIndex(where: { $0.loop === loop }) {
                return idle.remove(at: index)
            }
            return idle.popLast()
        }
    }

    private struct State {
        var origins: [Origin: OriginState] = [:]
        var nextWaiter: UInt64 = 0
    }

    private let settings: Settings
    private let state = Locked(State())
    /// The TLS context, made for the first `https://` connection (it reads the trust store), or why it could not be.
    private let tlsContext = Locked<Result<TLSContext, SluiceError>?>(nil)
    /// The sockets its connections have open, from the moment one is made until its descriptor is closed on its loop:
    /// a test counts them after thousands of connections to see none leak.
    let openDescriptors = Gauge()

    /// The `SSL` objects its TLS connections hold, while it has a TLS context; `nil` before its first `https://`
    /// connection.
    var liveSSLObjects: Gauge? {
        tlsContext.withLock { stored in
            guard case .success(let context) = stored else { return nil }
            return context.liveSSLObjects
        }
    }

    /// The sessions in OpenSSL's own store of its TLS context, which holds none; `nil` before its first `https://`
    /// connection.
    var sessionsStoredByOpenSSL: Int? {
        tlsContext.withLock { stored in
            guard case .success(let context) = stored else { return nil }
            return context.sessionsStoredByOpenSSL
        }
    }

    /// The connections open, idle or carrying a request, across origins: the origins' `open` counts added up,
    /// changed with them under the pool's lock.
    let openConnections = Gauge()

    /// The connections carrying a request (or connecting for one), across origins: those open and not idle, changed
    /// with the origins' counts under the pool's lock.
    let busyConnections = Gauge()

    /// Creates an empty pool.
    init(settings: Settings) {
        self.settings = settings
    }

    /// The idle connections, for tests.
    var idleConnections: Int {
        state.withLock { $0.origins.values.reduce(0) { $0 + $1.idle.count } }
    }

    /// A connection to an origin for one exchange: an idle one, a new one, or the next one released.
    ///
    /// - Parameters:
    ///   - origin: Where to connect.
    ///   - fresh: Whether to open a new connection rather than take an idle one.
    /// - Returns: A connection that carries nothing else until it is released.
    /// - Throws: ``SluiceError`` when a new connection fails, `CancellationError` when the task is cancelled.
    func acquire(_ origin: Origin, fresh: Bool) async throws -> Connection {
        while true {
            let limit = settings.maximumConnectionsPerOrigin
            let step = state.withLock { state -> Step in
                // Changed in place: a copy of the origin's state would copy its idle list too as one is taken from it.
                let step = state.origins[origin, default: OriginState()].nextStep(fresh: fresh, limit: limit)
                switch step {
                case .reuse, .replace:
                    busyConnections.add(1)
                case .open:
                    openConnections.add(1)
                    busyConnections.add(1)
                case .wait:
                    break
                }
                return step
            }
            switch step {
            case .replace(let connection):
                // Closed once the pool's lock is released, since a connection takes its own lock first and the pool's
                // second; its slot goes to the new connection.
                connection.close()
                fallthrough
            case .open:
                do {
                    return try await open(origin)
                } catch {
                    freeSlot(origin)
                    throw error
                }
            case .reuse(let connection):
                if connection.looksReusable {
                    return connection
                }
                connection.close()
                freeSlot(origin)
            case .wait:
                if let connection = try await waitForRelease(origin) {
                    return connection
                }
            }
        }
    }

    /// A new connection of its own to an origin, outside the pool's counts and never pooled.
    ///
    /// For a WebSocket, which keeps it. Its socket stays counted in ``openDescriptors`` until its new owner closes it.
    ///
    /// - Throws: What opening a connection for ``acquire(_:fresh:)`` throws.
    func openDedicated(_ origin: Origin) async throws -> Connection {
        try await open(origin)
    }

    /// Takes back a connection after an exchange: an idle one for the next request, or a closed one whose slot is
    /// free again.
    ///
    /// The connection calls it, holding its lock.
    ///
    /// - Parameters:
    ///   - connection: The connection.
    ///   - reusable: Whether it may carry another request; it has closed itself when not.
    ///   - idleSince: The time now, from which an idle connection's idle time counts.
    func release(_ connection: Connection, reusable: Bool, idleSince: ContinuousClock.Instant) {
        let origin = connection.origin
        if reusable {
            let waiter = state.withLock { state -> Waiter? in
                if let waiter = state.origins[origin]?.waiters.first {
                    state.origins[origin]?.waiters.removeFirst()
                    return waiter
                }
                state.origins[origin, default: OriginState()].idle.append(connection)
                busyConnections.add(-1)
                return nil
            }
            if let waiter {
                waiter.continuation.resume(returning: connection)
            } else {
                let loop = connection.loop
                if loop.isCurrent {
                    armEviction(connection, idleSince: idleSince)
                } else {
                    loop.execute { self.armEviction(connection, idleSince: idleSince) }
                }
            }
        } else {
            freeSlot(origin)
        }
    }

    /// Takes an idle connection out of the pool, to close it, and frees its slot; `false` when it is not idle (a
    /// request has just taken it, and its own read will tell what happened).
    func removeIdle(_ connection: Connection) -> Bool {
        let removed = state.withLock { state -> Bool in
            guard let index = state.origins[connection.origin]?.idle.firstIndex(where: { $0 === connection }) else {
                return false
            }
            state.origins[connection.origin]?.idle.remove(at: index)
            return true
        }
        if removed {
            freeSlot(connection.origin, wasIdle: true)
        }
        return removed
    }

    /// Closes every idle connection.
    func closeIdleConnections() {
        let idle = state.withLock { state -> [Connection] in
            var all: [Connection] = []
            for origin in Array(state.origins.keys) {
                guard var entry = state.origins[origin] else { continue }
                all += entry.idle
                entry.open -= entry.idle.count
                openConnections.add(-entry.idle.count)
                entry.idle = []
                state.origins[origin] = entry
            }
            return all
        }
        for connection in idle {
            connection.close()
        }
    }

    /// The TLS context, made the first time it is needed.
    ///
    /// - Throws: ``SluiceError`` when OpenSSL is not loaded or the configuration could not be put in place; every
    ///   `https://` request of the pool then fails with it.
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

    private func open(_ origin: Origin) async throws -> Connection {
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
            addresses = try await Self.resolve(host: origin.proxy?.host ?? host, port: origin.proxy?.port ?? port)
        }
        let tls = origin.usesTLS ? try makeTLSContext() : nil
        let handshake = try await proxyHandshake(origin)
        var lastError: (any Error)?
        for address in addresses {
            try Task.checkCancellation()
            var made: Connection?
            do {
                let connection = try Connection(
                    to: address,
                    origin: origin,
                    tls: tls,
                    proxyHandshake: handshake,
                    loop: EventLoop.currentOrNext(),
                    pool: self,
                    limits: settings.limits,
                    readAhead: settings.readAhead
                )
                made = connection
                try await connection.waitUntilConnected(timeout: settings.connectTimeout)
                return connection
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

    private func waitForRelease(_ origin: Origin) async throws -> Connection? {
        let identifier = state.withLock { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let queued = state.withLock { state -> Bool in
                    guard !Task.isCancelled else { return false }
                    state.origins[origin, default: OriginState()].waiters.append(
                        Waiter(identifier: identifier, continuation: continuation)
                    )
                    return true
                }
                if !queued {
                    continuation.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                guard let index = state.origins[origin]?.waiters.firstIndex(where: { $0.identifier == identifier })
                else { return nil }
                return state.origins[origin]?.waiters.remove(at: index)
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Counts a connection as closed and lets the first waiter open one in its place.
    ///
    /// - Parameters:
    ///   - origin: The connection's origin.
    ///   - wasIdle: Whether the connection was idle, taken out of the pool to be closed, rather than carrying a
    ///     request.
    private func freeSlot(_ origin: Origin, wasIdle: Bool = false) {
        let waiter = state.withLock { state -> Waiter? in
            state.origins[origin]?.open -= 1
            openConnections.add(-1)
            if !wasIdle {
                busyConnections.add(-1)
            }
            guard let waiter = state.origins[origin]?.waiters.first else { return nil }
            state.origins[origin]?.waiters.removeFirst()
            return waiter
        }
        waiter?.continuation.resume(returning: nil)
    }

    /// Closes the connection once it has been idle for the idle timeout.
    ///
    /// One timer a connection, moved on as it is used again. Call on the connection's loop.
    private func armEviction(_ connection: Connection, idleSince: ContinuousClock.Instant) {
        guard connection.evictionTimer == nil else { return }
        connection.evictionTimer = connection.loop.schedule(at: idleSince + settings.idleTimeout) { [weak self] in
            connection.evictionTimer = nil
            guard let self, let idleSince = connection.idleSinceNow else { return }
            if connection.loop.now - idleSince >= self.settings.idleTimeout {
                if self.removeIdle(connection) {
                    connection.close()
                }
            } else {
                self.armEviction(connection, idleSince: idleSince)
            }
        }
    }
}

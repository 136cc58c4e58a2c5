import Foundation

/// Open connections per origin, whatever protocol they speak, at most a number open to each, their capacity leased one
/// exchange at a time.
///
/// A request takes a lease on a connection with capacity to spare (an idle HTTP/1.1 connection, which carries one
/// exchange at a time; a multiplexed one carrying fewer than it may) that has not been closed under it, opens a
/// connection when fewer than the limit are open, and otherwise waits, first come first served, for a lease to be
/// given back. Idle connections are closed after the idle timeout, and at once when the server closes them or sends
/// what nobody asked for. Connections reach the pool as ``PooledConnection``s, made from the ready streams of its
/// ``Connector``.
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
        /// How connections speak HTTP/2; `nil` for HTTP/1.1 alone.
        var http2: HTTP2Policy?
        /// How a host's addresses are raced and kept.
        var addresses = SocketRequestPerformer.AddressSettings()
    }

    /// Opens a connection to an origin in a slot just counted.
    typealias Opener = @Sendable (Origin) async throws -> any PooledConnection

    let settings: Settings
    let state = Locked(State())
    /// Where the pool reports what it does on its own, when its performer was given an instrumentation.
    let events: (any PoolEventSink)?
    /// Opens its connections, when not HTTP/1.1 over a stream from ``connector``: a test's connections of another
    /// capacity.
    let opener: Opener?
    /// What opens the streams its connections speak over.
    let connector: Connector

    /// The sockets its connections have open, from the moment one is made until its descriptor is closed on its loop.
    var openDescriptors: Gauge { connector.openDescriptors }

    /// The `SSL` objects its TLS connections hold, while it has a TLS context; `nil` before its first `https://`
    /// connection.
    var liveSSLObjects: Gauge? { connector.liveSSLObjects }

    /// The sessions in OpenSSL's own store of its TLS context, which holds none; `nil` before its first `https://`
    /// connection.
    var sessionsStoredByOpenSSL: Int? { connector.sessionsStoredByOpenSSL }

    /// The connections open, idle or carrying a request, across origins: the origins' `open` counts added up,
    /// changed with them under the pool's lock.
    let openConnections = Gauge()

    /// The leases taken (one per HTTP/1.1 connection carrying a request, or connecting for one), across origins,
    /// changed with the origins' counts under the pool's lock.
    let activeLeases = Gauge()

    /// Creates an empty pool.
    ///
    /// - Parameters:
    ///   - settings: The limits and what connections need.
    ///   - opener: What opens its connections; `nil` for HTTP/1.1 over a stream from ``connector``.
    ///   - events: Where to report what the pool does on its own; `nil` to report nothing.
    init(settings: Settings, opener: Opener? = nil, events: (any PoolEventSink)? = nil) {
        self.settings = settings
        self.opener = opener
        self.events = events
        connector = Connector(
            settings: Connector.Settings(
                connectTimeout: settings.connectTimeout,
                limits: settings.limits,
                tls: settings.tls,
                tlsLibrary: settings.tlsLibrary,
                attemptDelay: settings.addresses.connectionAttemptDelay,
                dnsCache: DNSCache.Settings(
                    lifetime: settings.addresses.cacheLifetime,
                    maximumHosts: settings.addresses.maximumCachedHosts
                )
            )
        )
    }

    /// The idle connections, for tests.
    var idleConnections: Int {
        state.withLock { $0.origins.values.reduce(0) { $0 + $1.available.count { $0.leases == 0 } } }
    }

    /// A lease on a connection to an origin for one exchange: on one open, on a new one, or the next one given back.
    ///
    /// - Parameters:
    ///   - origin: Where to connect.
    ///   - fresh: Whether to open a new connection rather than lease one open.
    ///   - timings: Where to note the wait in the queue and a new connection's phases, when an instrumentation listens.
    /// - Returns: A connection with a lease for one exchange, until it is given back.
    /// - Throws: ``SluiceError`` when a new connection fails, `CancellationError` when the task is cancelled.
    func acquire(
        _ origin: Origin,
        fresh: Bool,
        timings: ConnectionTimings? = nil
    ) async throws -> any PooledConnection {
        while true {
            let limit = settings.maximumConnectionsPerOrigin
            let http2 = settings.http2
            let step = changing(origin) { state -> Step in
                if state.origins[origin]?.mode == nil {
                    state.origins[origin, default: OriginState()].mode = http2?.mode(for: origin) ?? .never
                }
                // Changed in place: a copy of the origin's state would copy its list too as one is taken from it.
                let step = state.origins[origin, default: OriginState()].lease(fresh: fresh, limit: limit)
                switch step {
                case .reuse, .replace:
                    activeLeases.add(1)
                case .open:
                    openConnections.add(1)
                    activeLeases.add(1)
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
                    return try await open(origin, timings: timings)
                } catch {
                    freeSlot(origin, opening: true)
                    throw error
                }
            case .reuse(let connection):
                if connection.isReusable {
                    return connection
                }
                // A multiplexed connection finishes the exchanges it carries; only this lease is given back.
                connection.retire()
                forget(connection)
            case .wait:
                let queued = timings.map { _ in ContinuousClock.now }
                let released = try await waitForRelease(origin)
                if let timings, let queued {
                    timings.noteQueued((queued, .now))
                }
                if let released {
                    return released
                }
            }
        }
    }

    /// Gives back a lease after an exchange: to the first waiter, or to the connection's spare capacity, which, idle,
    /// waits for the next request until its idle timeout; a closed connection frees its slot.
    ///
    /// The connection calls it, holding its lock.
    ///
    /// - Parameters:
    ///   - connection: The connection.
    ///   - reusable: Whether it may carry another exchange; it has closed itself when not.
    ///   - idleSince: The time now, from which an idle connection's idle time counts.
    func release(_ connection: any PooledConnection, reusable: Bool, idleSince: ContinuousClock.Instant) {
        let origin = connection.origin
        guard reusable else {
            forget(connection)
            return
        }
        enum Next {
            case waiter(Waiter)
            case idle
            case busy
        }
        let next = changing(origin) { state -> Next in
            if let waiter = state.origins[origin]?.waiters.first {
                state.origins[origin]?.waiters.removeFirst()
                return .waiter(waiter)
            }
            let wasFull = connection.leases >= connection.capacity
            connection.leases -= 1
            if wasFull && connection.leases < connection.capacity {
                state.origins[origin, default: OriginState()].available.append(connection)
            }
            activeLeases.add(-1)
            return connection.leases == 0 ? .idle : .busy
        }
        switch next {
        case .waiter(let waiter):
            waiter.continuation.resume(returning: connection)
        case .idle:
            // One timer a connection, moved on as it is used again: most releases find it set.
            let loop = connection.loop
            if !loop.isCurrent {
                loop.execute { self.armEviction(connection, idleSince: idleSince) }
            } else if connection.evictionTimer == nil {
                armEviction(connection, idleSince: idleSince)
            }
        case .busy:
            break
        }
    }

    /// Takes an idle connection out of the pool, to close it, and frees its slot; `false` when it is not idle (a
    /// request has just taken it, and its own read will tell what happened).
    ///
    /// - Parameters:
    ///   - connection: The connection.
    ///   - reason: Why it is closed, for the pool's events: ``PoolEvent/Kind/evicted`` or
    ///     ``PoolEvent/Kind/closedByServer``.
    /// - Returns: Whether it was idle, and is now out of the pool.
    func removeIdle(_ connection: any PooledConnection, because reason: PoolEvent.Kind) -> Bool {
        let origin = connection.origin
        let (removed, waiter) = changing(origin, reason, connection) { state -> (Bool, Waiter?) in
            guard connection.leases == 0,
                let index = state.origins[origin]?.available.firstIndex(where: { $0 === connection })
            else { return (false, nil) }
            state.origins[origin]?.available.remove(at: index)
            return (true, freeSlot(origin, leases: 0, in: &state))
        }
        waiter?.continuation.resume(returning: nil)
        return removed
    }

    /// Takes a connection going away out of the pool's offer, to lease no more of it.
    ///
    /// Frees its slot when it carries no exchange, and returns `true` then, for the connection to close. The
    /// connection calls it, holding its lock.
    func withdraw(_ connection: any PooledConnection) -> Bool {
        let origin = connection.origin
        let (idle, waiter) = changing(origin, .closed, connection) { state -> (Bool, Waiter?) in
            if let index = state.origins[origin]?.available.firstIndex(where: { $0 === connection }) {
                state.origins[origin]?.available.remove(at: index)
            }
            guard connection.leases == 0 else { return (false, nil) }
            return (true, freeSlot(origin, leases: 0, in: &state))
        }
        waiter?.continuation.resume(returning: nil)
        return idle
    }

    /// Offers a multiplexed connection's new capacity: what grew to the waiters first, then to the next requests.
    ///
    /// A connection whose capacity shrank under its leases is offered no more until they fall below it. The
    /// connection calls it, holding its lock, when it is not going away.
    func capacityChanged(_ connection: any PooledConnection) {
        let origin = connection.origin
        let served = changing(origin) { state -> [Waiter] in
            // A connection still being opened is offered by `open` once it is.
            guard connection.leases > 0, var entry = state.origins[origin] else { return [] }
            var served: [Waiter] = []
            while connection.leases < connection.capacity, let waiter = entry.waiters.first {
                entry.waiters.removeFirst()
                connection.leases += 1
                activeLeases.add(1)
                served.append(waiter)
            }
            let index = entry.available.firstIndex { $0 === connection }
            if connection.leases < connection.capacity {
                if index == nil {
                    entry.available.append(connection)
                }
            } else if let index {
                entry.available.remove(at: index)
            }
            state.origins[origin] = entry
            return served
        }
        for waiter in served {
            waiter.continuation.resume(returning: connection)
        }
    }

    /// Closes every idle connection.
    func closeIdleConnections() {
        let idle = state.withLock { state -> [Origin: [any PooledConnection]] in
            var all: [Origin: [any PooledConnection]] = [:]
            for origin in Array(state.origins.keys) {
                guard var entry = state.origins[origin] else { continue }
                let closing = entry.available.filter { $0.leases == 0 }
                guard !closing.isEmpty else { continue }
                all[origin] = closing
                entry.open -= closing.count
                openConnections.add(-closing.count)
                entry.available.removeAll { $0.leases == 0 }
                state.origins[origin] = entry
            }
            return all
        }
        for (origin, connections) in idle {
            for connection in connections {
                connection.close()
            }
            if let events {
                var event = PoolEvent(.closedIdle, origin: origin)
                event.idleChange = -connections.count
                event.count = connections.count
                events.poolEvent(event)
            }
        }
    }

    private func waitForRelease(_ origin: Origin) async throws -> (any PooledConnection)? {
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

    /// Counts off a lease on a closed connection, whose slot is freed with the last.
    private func forget(_ connection: any PooledConnection) {
        let origin = connection.origin
        let waiter = changing(origin, .closed, connection) { state -> Waiter? in
            connection.leases -= 1
            if let index = state.origins[origin]?.available.firstIndex(where: { $0 === connection }) {
                state.origins[origin]?.available.remove(at: index)
            }
            activeLeases.add(-1)
            return connection.leases <= 0 ? freeSlot(origin, leases: 0, in: &state) : nil
        }
        waiter?.continuation.resume(returning: nil)
    }

    /// Counts a connection that never opened as closed and lets the first waiter open one in its place.
    ///
    /// - Parameters:
    ///   - origin: The connection's origin.
    ///   - opening: Whether it was counted as being opened, which it no longer is.
    private func freeSlot(_ origin: Origin, opening: Bool = true) {
        let waiter = changing(origin) { state in
            if opening {
                state.origins[origin]?.opening -= 1
            }
            return freeSlot(origin, leases: 1, in: &state)
        }
        waiter?.continuation.resume(returning: nil)
    }

    /// Counts a connection as closed, under the pool's lock, and takes the first waiter, to be resumed with `nil` once
    /// the lock is released so that it opens one in its place.
    ///
    /// - Parameters:
    ///   - origin: The connection's origin.
    ///   - leases: The leases counted off with the slot: one for a connection that never opened, none for one that
    ///     was idle or has given its leases back.
    ///   - state: The pool's state, locked.
    /// - Returns: The waiter to resume, if any.
    private func freeSlot(_ origin: Origin, leases: Int, in state: inout State) -> Waiter? {
        state.origins[origin]?.open -= 1
        openConnections.add(-1)
        activeLeases.add(-leases)
        guard let waiter = state.origins[origin]?.waiters.first else { return nil }
        state.origins[origin]?.waiters.removeFirst()
        return waiter
    }

    /// Closes the connection once it has been idle for the idle timeout; call on the connection's loop.
    private func armEviction(_ connection: any PooledConnection, idleSince: ContinuousClock.Instant) {
        guard connection.evictionTimer == nil else { return }
        connection.evictionTimer = connection.loop.schedule(at: idleSince + settings.idleTimeout) { [weak self] in
            connection.evictionTimer = nil
            guard let self, let idleSince = connection.idleSince else { return }
            if connection.loop.now - idleSince >= self.settings.idleTimeout {
                if self.removeIdle(connection, because: .evicted) {
                    connection.close()
                }
            } else {
                self.armEviction(connection, idleSince: idleSince)
            }
        }
    }
}

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

    /// How the pool's connections speak HTTP/2: offered by ALPN over TLS, spoken at once to the cleartext origins
    /// named for prior knowledge, never to those kept on HTTP/1.1.
    struct HTTP2Policy: Sendable {
        /// The loaded nghttp2.
        var library: NGHTTP2
        /// What each session lets in.
        var limits: HTTP2Session.Limits
        /// The most streams at once on one connection, whatever the server allows.
        var maximumStreams: Int
        /// Whether `https://` connections offer `h2` by ALPN.
        var offersOverTLS: Bool
        /// The cleartext origins spoken to in HTTP/2 at once, as `host:port`.
        var priorKnowledge: Set<String>
        /// The origins kept on HTTP/1.1, as `host:port`.
        var http1Only: Set<String>
        /// When PINGs check that a server still answers.
        var liveness: HTTP2Connection.Liveness

        /// How a connection to an origin may come to speak HTTP/2.
        enum Mode {
            /// Never: HTTP/1.1.
            case never
            /// If the server chooses `h2` by ALPN.
            case negotiated
            /// At once, by prior knowledge.
            case priorKnowledge
        }

        /// How a connection to an origin may come to speak HTTP/2: never through an HTTP proxy in absolute form, nor
        /// over a Unix socket.
        func mode(for origin: Origin) -> Mode {
            guard case .tcp(let host, let port) = origin.address, !origin.sendsAbsoluteForm else { return .never }
            let authority = SocketAddress.authority(host: host, port: port).lowercased()
            if http1Only.contains(authority) {
                return .never
            }
            if origin.usesTLS {
                return offersOverTLS ? .negotiated : .never
            }
            return origin.proxy == nil && priorKnowledge.contains(authority) ? .priorKnowledge : .never
        }
    }

    private struct Waiter {
        var identifier: UInt64
        var continuation: CheckedContinuation<(any PooledConnection)?, any Error>
        /// Whether it is woken to take a lease or a slot itself, rather than given a lease.
        var reopens = false
    }

    /// What a request does next for a lease.
    private enum Step {
        /// Takes a lease on this connection.
        case reuse(any PooledConnection)
        /// Closes this idle connection and opens a new one in its slot.
        case replace(any PooledConnection)
        /// Opens a new connection in a free slot.
        case open
        /// Waits for a lease to be given back.
        case wait
    }

    private struct OriginState {
        /// The open connections with capacity to spare, the one given back last at the end: every idle one, and a
        /// multiplexed one carrying fewer exchanges than it may.
        var available: [any PooledConnection] = []
        var open = 0
        var waiters: [Waiter] = []
        /// The connections being opened.
        var opening = 0
        /// How connections to the origin may speak HTTP/2, once looked up.
        var mode: HTTP2Policy.Mode?
        /// Whether the origin's last connection opened speaks HTTP/2; `nil` before the first has opened.
        var multiplexes: Bool?

        /// Takes a lease or a free slot, or says to wait.
        ///
        /// A lease is taken on the connection given back last, or, for a task on one of the loops, the last of that
        /// loop's: the answer then comes back on the thread the task runs on. The calling thread is looked at only
        /// when there is a choice. A fresh connection is wanted after a stale one: an idle connection is closed in its
        /// favour, a busy multiplexed one left to its exchanges.
        ///
        /// - Parameters:
        /// While a connection that may come to speak HTTP/2 is being opened, and none has told yet, more requests
        /// wait for it rather than open connections of their own: it may carry them all.
        ///
        /// - Parameters:
        ///   - fresh: Whether a new connection is wanted rather than a lease on one open.
        ///   - limit: The most connections open to the origin at once.
        /// - Returns: The step, with the lease taken, or the slot counted as open.
        mutating func lease(fresh: Bool, limit: Int) -> Step {
            var index = available.indices.last
            if available.count > 1, let loop = EventLoop.current,
                let own = available.lastIndex(where: { $0.loop === loop && (!fresh || $0.leases == 0) })
            {
                index = own
            } else if fresh {
                index = available.lastIndex { $0.leases == 0 }
            }
            if let index {
                let connection = available[index]
                if fresh {
                    available.remove(at: index)
                    opening += 1
                    return .replace(connection)
                }
                connection.leases += 1
                if connection.leases >= connection.capacity {
                    available.remove(at: index)
                }
                return .reuse(connection)
            }
            guard open < limit else { return .wait }
            if opening > 0, multiplexes != false, let mode, mode != .never {
                return .wait
            }
            open += 1
            opening += 1
            return .open
        }
    }

    private struct State {
        var origins: [Origin: OriginState] = [:]
        var nextWaiter: UInt64 = 0
    }

    /// Opens a connection to an origin in a slot just counted.
    typealias Opener = @Sendable (Origin) async throws -> any PooledConnection

    private let settings: Settings
    private let state = Locked(State())
    /// Where the pool reports what it does on its own, when its performer was given an instrumentation.
    private let events: (any PoolEventSink)?
    /// Opens its connections, when not HTTP/1.1 over a stream from ``connector``: a test's connections of another
    /// capacity.
    private let opener: Opener?
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

    /// A new connection in a slot just counted, its lease the caller's and its spare capacity offered to the waiters.
    private func open(_ origin: Origin, timings: ConnectionTimings?) async throws -> any PooledConnection {
        let (limits, readAhead) = (settings.limits, settings.readAhead)
        let connection: any PooledConnection
        if let opener {
            connection = try await opener(origin)
        } else {
            let http2 = settings.http2
            let mode = http2?.mode(for: origin) ?? .never
            // Made before the stream, since a connection is made from a ready stream without failing: unused when
            // the server chooses HTTP/1.1.
            let session = try http2.flatMap { policy throws(SluiceError) in
                mode == .never ? nil : try HTTP2Session(library: policy.library, limits: policy.limits)
            }
            let maximumStreams = http2?.maximumStreams ?? 1
            let liveness = http2?.liveness ?? HTTP2Connection.Liveness(pingAfterSilence: nil, pingTimeout: .zero)
            connection = try await connector.connect(origin, timings: timings, offersHTTP2: mode == .negotiated) {
                stream,
                loop,
                peer in
                if let session,
                    mode == .priorKnowledge || stream.tls?.negotiatedProtocol == "h2"
                {
                    return HTTP2Connection(
                        stream: stream,
                        loop: loop,
                        origin: origin,
                        pool: self,
                        session: session,
                        maximumStreams: maximumStreams,
                        readAhead: readAhead,
                        liveness: liveness,
                        peer: peer
                    )
                }
                return HTTP1Connection(
                    stream: stream,
                    loop: loop,
                    origin: origin,
                    pool: self,
                    limits: limits,
                    readAhead: readAhead,
                    peer: peer
                )
            }
        }
        let waiters = changing(origin, .opened, connection) { state -> [Waiter] in
            connection.leases = 1
            let multiplexes = connection is HTTP2Connection
            state.origins[origin]?.opening -= 1
            state.origins[origin]?.multiplexes = multiplexes
            var served: [Waiter] = []
            while connection.leases < connection.capacity, let waiter = state.origins[origin]?.waiters.first {
                state.origins[origin]?.waiters.removeFirst()
                connection.leases += 1
                activeLeases.add(1)
                served.append(waiter)
            }
            if connection.leases < connection.capacity {
                state.origins[origin, default: OriginState()].available.append(connection)
            }
            // The requests that waited to see whether it would multiplex, when it does not, each open their own as
            // slots allow.
            if !multiplexes, let entry = state.origins[origin] {
                let free = max(0, settings.maximumConnectionsPerOrigin - entry.open)
                let woken = min(free, entry.waiters.count)
                state.origins[origin]?.waiters.removeFirst(woken)
                return served
                    + entry.waiters.prefix(woken).map { waiter in
                        var waiter = waiter
                        waiter.reopens = true
                        return waiter
                    }
            }
            return served
        }
        for waiter in waiters {
            waiter.continuation.resume(returning: waiter.reopens ? nil : connection)
        }
        return connection
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

    /// Runs `body` under the pool's lock, and reports how it changed the origin's counts when the pool reports events.
    ///
    /// The counts of active and idle connections are reported once the lock is released: as an event of `kind`, or,
    /// for ``PoolEvent/Kind/counts``, only when they changed. A ``PoolEvent/Kind/closed`` that freed no slot (a lease
    /// counted off a connection that carries others) reports only the counts.
    ///
    /// - Parameters:
    ///   - origin: The origin `body` changes.
    ///   - kind: What `body` does.
    ///   - connection: The connection it is about, if any.
    ///   - body: The change.
    /// - Returns: What `body` returns.
    private func changing<Result>(
        _ origin: Origin,
        _ kind: PoolEvent.Kind = .counts,
        _ connection: (any PooledConnection)? = nil,
        _ body: (inout State) -> Result
    ) -> Result {
        guard let events else { return state.withLock(body) }
        let (result, before, after) = state.withLock { state in
            let before = ConnectionPool.counts(of: origin, in: state)
            let result = body(&state)
            return (result, before, ConnectionPool.counts(of: origin, in: state))
        }
        let freed = after.active + after.idle < before.active + before.idle
        let kind = kind == .closed && !freed ? .counts : kind
        guard kind != .counts || before != after else { return result }
        var event = PoolEvent(kind, origin: origin, connection: connection)
        event.activeChange = after.active - before.active
        event.idleChange = after.idle - before.idle
        events.poolEvent(event)
        return result
    }

    /// The connections to an origin that carry an exchange or connect for one, and those idle.
    private static func counts(of origin: Origin, in state: State) -> Counts {
        guard let entry = state.origins[origin] else { return Counts(active: 0, idle: 0) }
        let idle = entry.available.count { $0.leases == 0 }
        return Counts(active: entry.open - idle, idle: idle)
    }

    /// An origin's counts of connections, for the pool's events.
    private struct Counts: Equatable {
        var active: Int
        var idle: Int
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

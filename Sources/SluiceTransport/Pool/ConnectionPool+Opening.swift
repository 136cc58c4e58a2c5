import Foundation

extension ConnectionPool {
    /// A new connection in a slot just counted, its lease the caller's and its spare capacity offered to the waiters.
    func open(_ origin: Origin, timings: ConnectionTimings?) async throws -> any PooledConnection {
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
}

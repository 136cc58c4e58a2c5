import Foundation

extension ConnectionPool {
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
    func changing<Result>(
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
}

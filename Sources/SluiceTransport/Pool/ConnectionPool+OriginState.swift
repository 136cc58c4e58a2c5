import Foundation

extension ConnectionPool {
    struct Waiter {
        var identifier: UInt64
        var continuation: CheckedContinuation<(any PooledConnection)?, any Error>
        /// Whether it is woken to take a lease or a slot itself, rather than given a lease.
        var reopens = false
    }

    /// What a request does next for a lease.
    enum Step {
        /// Takes a lease on this connection.
        case reuse(any PooledConnection)
        /// Closes this idle connection and opens a new one in its slot.
        case replace(any PooledConnection)
        /// Opens a new connection in a free slot.
        case open
        /// Waits for a lease to be given back.
        case wait
    }

    struct OriginState {
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

    struct State {
        var origins: [Origin: OriginState] = [:]
        var nextWaiter: UInt64 = 0
    }
}

import Foundation
import Testing

@testable import SluiceTransport

/// The pool leases a connection's capacity, whatever protocol it speaks: one exchange at a time for HTTP/1.1, up to
/// its capacity for a multiplexed one.
@Suite struct ConnectionPoolLeaseTests {
    /// A connection that speaks no protocol: the pool's view of one, and nothing else.
    final class StubConnection: PooledConnection, @unchecked Sendable {
        let origin: Origin
        let loop = EventLoop.next()
        let capacity: Int
        var leases = 0
        var evictionTimer: UInt64?
        let closed = Locked(false)

        init(origin: Origin, capacity: Int) {
            self.origin = origin
            self.capacity = capacity
        }

        var isReusable: Bool { !closed.withLock { $0 } }
        var idleSince: ContinuousClock.Instant? { nil }
        let number: UInt64 = 0
        let protocolVersion = "1.1"
        let peer: SocketAddress? = nil
        func start(_ exchange: Exchange) {}
        func cancel(_ exchange: Exchange) {}
        func close() { closed.withLock { $0 = true } }
        func handle(readable: Bool, writable: Bool) {}
        func tick(now: ContinuousClock.Instant) {}
    }

    /// A pool whose connections are stubs of one capacity, and the stubs it opened.
    static func pool(
        capacity: Int,
        limit: Int
    ) -> (ConnectionPool, Locked<[StubConnection]>) {
        let opened = Locked<[StubConnection]>([])
        let pool = ConnectionPool(
            settings: ConnectionPool.Settings(
                maximumConnectionsPerOrigin: limit,
                connectTimeout: nil,
                idleTimeout: .seconds(60),
                limits: HeadLimits(statusLineLength: 8 << 10, headerCount: 100, headBytes: 64 << 10),
                readAhead: 1 << 10
            ),
            opener: { origin in
                let connection = StubConnection(origin: origin, capacity: capacity)
                opened.withLock { $0.append(connection) }
                return connection
            }
        )
        return (pool, opened)
    }

    static func origin() throws -> Origin {
        let url = try #require(URL(string: "http://127.0.0.1:9/"))
        return try #require(Origin(url, unixSocketPath: nil))
    }

    @Test func aMultiplexedConnectionCarriesUpToItsCapacityBeforeAnotherOpens() async throws {
        let (pool, opened) = Self.pool(capacity: 3, limit: 2)
        let origin = try Self.origin()
        var leased: [any PooledConnection] = []
        for _ in 0..<4 {
            leased.append(try await pool.acquire(origin, fresh: false))
        }
        let connections = opened.withLock { $0 }
        try #require(connections.count == 2)
        #expect(leased[0...2].allSatisfy { $0 === connections[0] })
        #expect(leased[3] === connections[1])
        #expect(pool.activeLeases.value == 4)
        #expect(pool.openConnections.value == 2)
        #expect(pool.idleConnections == 0)
    }

    @Test func aLeaseGivenBackGoesToTheNextRequestOnTheSameConnection() async throws {
        let (pool, opened) = Self.pool(capacity: 2, limit: 1)
        let origin = try Self.origin()
        let first = try await pool.acquire(origin, fresh: false)
        let second = try await pool.acquire(origin, fresh: false)
        #expect(first === second)
        let third = Task { try await pool.acquire(origin, fresh: false) }
        pool.release(first, reusable: true, idleSince: .now)
        let answered = try await third.value
        #expect(answered === first)
        #expect(opened.withLock { $0.count } == 1)
        #expect(first.leases == 2)
        pool.release(second, reusable: true, idleSince: .now)
        pool.release(answered, reusable: true, idleSince: .now)
        #expect(pool.idleConnections == 1)
        #expect(pool.activeLeases.value == 0)
    }

    @Test func aClosedMultiplexedConnectionFreesItsSlotWithItsLastLease() async throws {
        let (pool, _) = Self.pool(capacity: 2, limit: 1)
        let origin = try Self.origin()
        let first = try await pool.acquire(origin, fresh: false)
        let second = try await pool.acquire(origin, fresh: false)
        first.close()
        pool.release(first, reusable: false, idleSince: .now)
        #expect(pool.openConnections.value == 1)
        pool.release(second, reusable: false, idleSince: .now)
        #expect(pool.openConnections.value == 0)
        #expect(pool.activeLeases.value == 0)
    }

    @Test func anHTTP1ConnectionCarriesOneExchangeAtATime() async throws {
        let (pool, opened) = Self.pool(capacity: 1, limit: 2)
        let origin = try Self.origin()
        let first = try await pool.acquire(origin, fresh: false)
        let second = try await pool.acquire(origin, fresh: false)
        #expect(first !== second)
        #expect(opened.withLock { $0.count } == 2)
        pool.release(first, reusable: true, idleSince: .now)
        #expect(pool.idleConnections == 1)
        let third = try await pool.acquire(origin, fresh: false)
        #expect(third === first)
        #expect(pool.idleConnections == 0)
    }
}

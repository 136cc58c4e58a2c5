import ClientFixtures
import Foundation
import SluiceTesting
import Testing

@testable import SluiceTransport

/// Each connector keeps the addresses it resolved for a while, shares the lookups under way, and looks a host up again
/// when every address it kept failed.
@Suite(.timeLimit(.minutes(2)))
struct DNSCacheTests {
    /// A table of hosts for the cache to look up, which counts the lookups and can hold them until the test says.
    final class Table: Sendable {
        let answers: Locked<[String: [SocketAddress]]>
        let lookups = Gauge()
        /// While closed, lookups wait for it.
        let gate = Locked<(isOpen: Bool, waiting: [CheckedContinuation<Void, Never>])>((true, []))

        init(_ answers: [String: [SocketAddress]]) {
            self.answers = Locked(answers)
        }

        func lookUp(host: String, port: Int) async throws -> [SocketAddress] {
            lookups.add(1)
            await withCheckedContinuation { continuation in
                let isOpen = gate.withLock { gate in
                    if !gate.isOpen { gate.waiting.append(continuation) }
                    return gate.isOpen
                }
                if isOpen { continuation.resume() }
            }
            guard let addresses = answers.withLock({ $0[host] }) else {
                throw ResolutionError(host: host, message: "Name or service not known")
            }
            return addresses
        }

        func close() {
            gate.withLock { $0.isOpen = false }
        }

        func open() {
            let waiting = gate.withLock { gate in
                gate.isOpen = true
                defer { gate.waiting = [] }
                return gate.waiting
            }
            for continuation in waiting { continuation.resume() }
        }
    }

    static func address(_ host: String, _ port: Int = 80) throws -> SocketAddress {
        try #require(SocketAddress.numeric(host: host, port: port))
    }

    static func cache(
        _ table: Table,
        lifetime: Duration = .seconds(30),
        maximumHosts: Int = 256,
        clock: TestClock = TestClock()
    ) -> DNSCache {
        DNSCache(
            settings: DNSCache.Settings(lifetime: lifetime, maximumHosts: maximumHosts),
            clock: clock,
            lookUp: { try await table.lookUp(host: $0, port: $1) }
        )
    }

    @Test func concurrentLookupsOfOneHostShareOneCall() async throws {
        let table = Table(["api.test": [try Self.address("192.0.2.1")]])
        // Nothing is kept: the sharing alone makes the one call.
        let cache = Self.cache(table, lifetime: .zero)
        table.close()

        let callers = (0..<8).map { _ in Task { try await cache.resolve(host: "API.test", port: 80) } }
        try await cache.waitingCallers.wait(for: "every caller to wait for the lookup") { $0 == 8 }
        table.open()
        for caller in callers {
            let answer = try await caller.value
            #expect(answer.addresses.map(\.description) == ["192.0.2.1:80"])
            #expect(answer.source == .lookup)
        }

        #expect(table.lookups.value == 1)
        _ = try await cache.resolve(host: "api.test", port: 80)
        #expect(table.lookups.value == 2)
    }

    @Test func anAnswerIsKeptForItsLifetimeOnTheClock() async throws {
        let table = Table(["api.test": [try Self.address("192.0.2.1")]])
        let clock = TestClock()
        let cache = Self.cache(table, lifetime: .seconds(30), clock: clock)

        #expect(try await cache.resolve(host: "api.test", port: 80).source == .lookup)
        clock.advance(by: .seconds(29))
        #expect(try await cache.resolve(host: "api.test", port: 80).source == .cache)
        // Another port is another entry.
        #expect(try await cache.resolve(host: "api.test", port: 443).source == .lookup)
        #expect(table.lookups.value == 2)
        clock.advance(by: .seconds(1))
        #expect(try await cache.resolve(host: "api.test", port: 80).source == .lookup)
        #expect(table.lookups.value == 3)
    }

    @Test func anEvictedOrFailedAnswerIsLookedUpAgain() async throws {
        let table = Table(["api.test": [try Self.address("192.0.2.1")]])
        let cache = Self.cache(table)

        _ = try await cache.resolve(host: "api.test", port: 80)
        cache.evict(host: "api.test", port: 80)
        _ = try await cache.resolve(host: "api.test", port: 80)
        #expect(table.lookups.value == 2)

        let error = await #expect(throws: ResolutionError.self) { try await cache.resolve(host: "gone.test", port: 80) }
        #expect(error?.description == "could not resolve gone.test: Name or service not known")
        _ = await #expect(throws: ResolutionError.self) { try await cache.resolve(host: "gone.test", port: 80) }
        #expect(table.lookups.value == 4)
    }

    @Test func anAddressIsItsOwnAnswer() async throws {
        let cache = Self.cache(Table([:]))
        let answer = try await cache.resolve(host: "[::1]", port: 8080)
        #expect(answer.addresses.map(\.description) == ["[::1]:8080"])
        #expect(answer.source == .literal)
    }

    @Test func theCacheKeepsAtMostItsNumberOfHosts() async throws {
        let table = Table(
            ["a.test": [try Self.address("192.0.2.1")], "b.test": [try Self.address("192.0.2.2")]]
        )
        let clock = TestClock()
        let cache = Self.cache(table, maximumHosts: 1, clock: clock)

        _ = try await cache.resolve(host: "a.test", port: 80)
        clock.advance(by: .seconds(1))
        _ = try await cache.resolve(host: "b.test", port: 80)
        #expect(try await cache.resolve(host: "b.test", port: 80).source == .cache)
        // The answer that expired first made room.
        #expect(try await cache.resolve(host: "a.test", port: 80).source == .lookup)
        #expect(table.lookups.value == 3)
    }

    @Test func whenEveryCachedAddressFailsTheHostIsLookedUpOnceMore() async throws {
        let first = try Listener(on: "127.0.0.1")
        let moved = try Listener(on: "127.0.0.1")
        defer { moved.close() }
        let table = Table(["api.test": [first.address], "down.test": [try Listener.refusing(on: "127.0.0.1")]])
        let connector = ConnectorRaceTests.connector(clock: TestClock()) { try await table.lookUp(host: $0, port: $1) }
        let origin = try ConnectorRaceTests.origin("http://api.test/")

        let (stream, _, _) = try await connector.connect(origin)
        ConnectorRaceTests.close(stream, of: connector)
        #expect(table.lookups.value == 1)
        // The host moves: its kept address now refuses, so it is looked up again, once.
        first.close()
        table.answers.withLock { $0["api.test"] = [moved.address] }
        let (again, _, address) = try await connector.connect(origin)
        #expect(address.description == moved.address.description)
        #expect(table.lookups.value == 2)
        ConnectorRaceTests.close(again, of: connector)

        // A fresh answer that fails is not looked up again at once, and is not kept for the next connection.
        let down = try ConnectorRaceTests.origin("http://down.test/")
        _ = await #expect(throws: SluiceError.self) { try await connector.connect(down) }
        #expect(table.lookups.value == 3)
        _ = await #expect(throws: SluiceError.self) { try await connector.connect(down) }
        #expect(table.lookups.value == 4)
        try await connector.openDescriptors.wait(for: "every socket to close") { $0 == 0 }
    }
}

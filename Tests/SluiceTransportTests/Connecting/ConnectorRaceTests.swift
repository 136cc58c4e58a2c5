import ClientFixtures
import Foundation
import SluiceTesting
import Testing

@testable import SluiceTransport

/// The connector races a host's addresses (RFC 8305): the next one starts after the attempt delay, on the connector's
/// clock, or at once when an attempt fails; the first TCP connection wins and the other attempts' sockets are closed.
///
/// An address that gets no answer is a loopback listener whose queue is full, whose kernel drops further SYNs; the
/// host's name resolves through a table the test gives the connector. The clock is a ``TestClock``, so that the delay
/// passes when the test moves it, never by waiting.
@Suite(.timeLimit(.minutes(2)))
struct ConnectorRaceTests {
    /// A connector whose lookups answer `addresses` for every host, and whose delay is measured on `clock`.
    static func connector(
        clock: TestClock,
        connectTimeout: Duration = .seconds(30),
        addresses: [SocketAddress]
    ) -> Connector {
        connector(clock: clock, connectTimeout: connectTimeout) { _, _ in addresses }
    }

    /// A connector whose lookups go to `lookUp`, and whose delay is measured on `clock`.
    static func connector(
        clock: TestClock,
        connectTimeout: Duration = .seconds(30),
        lookUp: @escaping DNSCache.LookUp
    ) -> Connector {
        Connector(
            settings: Connector.Settings(
                connectTimeout: connectTimeout,
                limits: HeadLimits(statusLineLength: 8 << 10, headerCount: 100, headBytes: 64 << 10),
                clock: clock,
                lookUp: lookUp
            )
        )
    }

    static func origin(_ text: String = "http://dual.test/") throws -> Origin {
        let url = try #require(URL(string: text))
        return try #require(Origin(url, unixSocketPath: nil))
    }

    /// An attempt on one address, in a race or alone, without TLS or a proxy.
    static func attempt(
        to address: SocketAddress,
        origin: Origin,
        descriptors: Gauge,
        race: ConnectionRace? = nil
    ) throws -> StreamEstablishment {
        try StreamEstablishment(
            to: address,
            origin: origin,
            tls: nil,
            proxyHandshake: nil,
            loop: EventLoop.next(),
            descriptors: descriptors,
            race: race
        )
    }

    /// Closes a stream the connector handed over, as its owner would.
    static func close(_ stream: ByteStream, of connector: Connector) {
        stream.close()
        connector.openDescriptors.add(-1)
    }

    @Test func theNextAddressStartsAfterTheAttemptDelayWhileTheFirstIsUnanswered() async throws {
        let origin = try Self.origin()
        let unanswered = try UnansweredAddress(on: "::1")
        defer { withExtendedLifetime(unanswered) {} }
        try await Self.expectTheSecondAddressWinsAfterTheDelay(beside: unanswered.address, origin: origin)
    }

    /// Races an address that gets no answer and a live one after it: the race waits for the delay on its clock, not
    /// for the first attempt's connect timeout, then the live address wins and the other attempt's socket is closed.
    static func expectTheSecondAddressWinsAfterTheDelay(beside unanswered: SocketAddress, origin: Origin) async throws {
        let live = try Listener(on: "127.0.0.1")
        defer { live.close() }
        let clock = TestClock()
        let connector = Self.connector(clock: clock, addresses: [unanswered, live.address])

        let connecting = Task { try await connector.connect(origin) }
        await clock.waitForSleepers()
        try await connector.openDescriptors.wait(for: "the first attempt's socket") { $0 == 1 }
        #expect(clock.sleepers == [clock.now.advanced(by: .milliseconds(250))])
        clock.advance(by: .milliseconds(250))
        let (stream, _, address) = try await connecting.value

        #expect(address.description == live.address.description)
        try await connector.openDescriptors.wait(for: "the losing attempt's socket to close") { $0 == 1 }
        Self.close(stream, of: connector)
        try await connector.openDescriptors.wait(for: "every socket to close") { $0 == 0 }
    }

    @Test func aRefusedAttemptStartsTheNextAddressAtOnce() async throws {
        let origin = try Self.origin()
        let refusing = try Listener.refusing(on: "::1")
        let live = try Listener(on: "127.0.0.1")
        defer { live.close() }
        let clock = TestClock()
        let connector = Self.connector(clock: clock, addresses: [refusing, live.address])

        // The clock never moves: only the refusal can start the second attempt.
        let (stream, _, address) = try await connector.connect(origin)

        #expect(address.description == live.address.description)
        Self.close(stream, of: connector)
        try await connector.openDescriptors.wait(for: "every socket to close") { $0 == 0 }
    }

    @Test func theFirstAddressWinsWhenItAnswersFirst() async throws {
        let origin = try Self.origin()
        let first = try Listener(on: "::1")
        defer { first.close() }
        let second = try Listener(on: "127.0.0.1")
        defer { second.close() }
        let clock = TestClock()
        let connector = Self.connector(clock: clock, addresses: [first.address, second.address])

        let (stream, _, address) = try await connector.connect(origin)

        #expect(address.description == first.address.description)
        // The delay's sleeper was cancelled with the race: no second attempt is left to start.
        #expect(clock.sleepers.isEmpty)
        Self.close(stream, of: connector)
        try await connector.openDescriptors.wait(for: "every socket to close") { $0 == 0 }
    }

    @Test func whenEveryAddressIsRefusedTheErrorNamesTheOrigin() async throws {
        let origin = try Self.origin()
        let refusing = [try Listener.refusing(on: "::1"), try Listener.refusing(on: "127.0.0.1")]
        let connector = Self.connector(clock: TestClock(), addresses: refusing)

        let error = await #expect(throws: SluiceError.self) { try await connector.connect(origin) }

        #expect(error?.message == "could not connect to dual.test:80: connect: Connection refused (errno 111)")
        #expect((error?.underlyingError as? URLError)?.code == .cannotConnectToHost)
        try await connector.openDescriptors.wait(for: "every socket to close") { $0 == 0 }
    }

    /// An attempt, held weakly, to see that nothing holds it once its race is over.
    final class WeakAttempt: Sendable {
        weak let attempt: StreamEstablishment?

        init(_ attempt: StreamEstablishment) {
            self.attempt = attempt
        }
    }

    @Test func noAttemptOutlivesItsRace() async throws {
        let origin = try Self.origin()
        let first = try Listener(on: "::1")
        defer { first.close() }
        let descriptors = Gauge()
        let attempts = Locked<[WeakAttempt]>([])

        let stream = try await ConnectionRace.run(
            addresses: [first.address],
            delay: HappyEyeballs.defaultAttemptDelay,
            clock: TestClock()
        ) { address, race in
            let attempt = try Self.attempt(to: address, origin: origin, descriptors: descriptors, race: race)
            attempts.withLock { $0.append(WeakAttempt(attempt)) }
            return try await attempt.establish(timeout: nil, from: .now)
        }
        stream.close()
        descriptors.add(-1)

        // The winner and its race held each other once: the winner's stream, its TLS object with it, was never freed.
        #expect(attempts.withLock { $0.count } == 1)
        #expect(attempts.withLock { $0.allSatisfy { $0.attempt == nil } })
    }

    @Test func theConnectTimeoutEndsARaceNoAddressAnswers() async throws {
        let origin = try Self.origin()
        let unanswered = [try UnansweredAddress(on: "::1"), try UnansweredAddress(on: "127.0.0.1")]
        defer { withExtendedLifetime(unanswered) {} }
        let connector = Self.connector(
            clock: TestClock(),
            connectTimeout: .milliseconds(200),
            addresses: unanswered.map(\.address)
        )

        let error = await #expect(throws: URLError.self) { try await connector.connect(origin) }

        #expect(error?.code == .timedOut)
        #expect(error?.localizedDescription == "connecting to dual.test:80 took longer than the limit of 200.00ms")
        try await connector.openDescriptors.wait(for: "every socket to close") { $0 == 0 }
    }

    /// Every attempt of a race counts the connect timeout from the race's start: one started when the limit has
    /// passed times out at once, not a whole limit later.
    @Test func anAttemptHasWhatIsLeftOfItsRacesTimeout() async throws {
        let origin = try Self.origin()
        let unanswered = try UnansweredAddress(on: "127.0.0.1")
        defer { withExtendedLifetime(unanswered) {} }
        let descriptors = Gauge()
        let attempt = try Self.attempt(to: unanswered.address, origin: origin, descriptors: descriptors)

        // Ten minutes into a race whose limit is ten minutes: an attempt that had a limit of its own would outlast the
        // suite's time limit.
        let error = await #expect(throws: URLError.self) {
            try await attempt.establish(timeout: .seconds(600), from: .now - .seconds(600))
        }

        #expect(error?.localizedDescription == "connecting to dual.test:80 took longer than the limit of 600.00s")
        try await descriptors.wait(for: "the attempt's socket to close") { $0 == 0 }
    }

    @Test func cancellingTheTaskClosesEveryAttempt() async throws {
        let origin = try Self.origin()
        let unanswered = [try UnansweredAddress(on: "::1"), try UnansweredAddress(on: "127.0.0.1")]
        defer { withExtendedLifetime(unanswered) {} }
        let clock = TestClock()
        let connector = Self.connector(clock: clock, addresses: unanswered.map(\.address))
        let connecting = Task { try await connector.connect(origin) }
        await clock.waitForSleepers()
        clock.advance(by: .milliseconds(250))
        try await connector.openDescriptors.wait(for: "both attempts' sockets") { $0 == 2 }

        connecting.cancel()

        await #expect(throws: CancellationError.self) { try await connecting.value }
        try await connector.openDescriptors.wait(for: "both attempts' sockets to close") { $0 == 0 }
    }

    /// A host whose IPv6 address is dropped on a real network path falls back to its IPv4 address.
    ///
    /// The IPv6 address is routed into a network namespace that drops its packets; the IPv4 address answers. Making
    /// the namespace takes root (CI runs as root); elsewhere the test is skipped, unless `SLUICE_REQUIRE_PEERS=1`, when
    /// it fails.
    @Test(
        .enabled(if: DroppingNamespace.isPossible || DroppingNamespace.isRequired, "no network namespace can be made")
    )
    func anIPv6AddressWhosePacketsAreDroppedFallsBackToIPv4() async throws {
        let origin = try Self.origin()
        let namespace = try DroppingNamespace.make().get()
        defer { namespace.delete() }
        let dropped = try #require(SocketAddress.numeric(host: DroppingNamespace.droppedHost, port: 80))
        try await Self.expectTheSecondAddressWinsAfterTheDelay(beside: dropped, origin: origin)
    }
}

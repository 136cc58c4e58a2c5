import ClientFixtures
import Foundation
import SluiceCore
import SluiceTesting
import SluiceTransport
import Testing

/// A WebSocket that connects again when its connection drops, over scripted servers.
@Suite struct ReconnectingWebSocketTests {
    typealias Handshakes = WebSocketDecoratorTests.Handshakes
    typealias ChatRoom = WebSocketDecoratorTests.ChatRoom

    /// Waits of zero, three attempts in a row.
    let immediate = RetryingPerformer.Policy(maximumAttempts: 3, deadline: nil, randomFraction: { 0 })
    let dropped = SluiceError(.close, message: "the connection ended without a closing frame")

    @Test func connectsAgainAfterADropAndRunsOnConnectOnEachConnection() async throws {
        let server = MockClient.WebSocketScript([.awaitMessage, .text("price 1"), .failure(dropped)])
        let client = APIClient(requestPerformer: Handshakes([.open(server), .open(server), .open(server)]))
        let socket = try await client.webSocket(ChatRoom(id: 1), reconnecting: immediate) { socket in
            try await socket.send(.text("subscribe"))
        }
        var messages = socket.messages.makeAsyncIterator()
        for _ in 0..<3 {
            #expect(try await messages.next() == .text("price 1"))
        }
        #expect(server.handshakes == 3)
        #expect(server.sentMessages == Array(repeating: .text("subscribe"), count: 3))
        await socket.close()
        #expect(try await messages.next() == nil)
    }

    @Test func givesUpAfterTheAttemptsInARowWithNoMessage() async throws {
        let server = MockClient.WebSocketScript([.failure(dropped)])
        let base = Handshakes(Array(repeating: .open(server), count: 5))
        let socket = try await APIClient(requestPerformer: base).webSocket(ChatRoom(id: 1), reconnecting: immediate)
        let error = await #expect(throws: SluiceError.self) { _ = try await socket.receive() }
        #expect(error?.message == "the connection ended without a closing frame")
        #expect(server.handshakes == 3, "the first connection and two more: three attempts in a row")
    }

    @Test func retriesARefusedOrFailedHandshakeThenResumes() async throws {
        let first = MockClient.WebSocketScript([.text("one"), .failure(dropped)])
        let second = MockClient.WebSocketScript([.text("two"), .close(.normalClosure)])
        let base = Handshakes([.open(first), .refuse(.serviceUnavailable), .fail(.cannotConnectToHost), .open(second)])
        let policy = RetryingPerformer.Policy(maximumAttempts: 4, randomFraction: { 0 })
        let socket = try await APIClient(requestPerformer: base).webSocket(ChatRoom(id: 1), reconnecting: policy)
        var messages = socket.messages.makeAsyncIterator()
        #expect(try await messages.next() == .text("one"))
        #expect(try await messages.next() == .text("two"))
        #expect(try await messages.next() == nil, "a normal closure ends the messages")
        #expect(base.requests.count == 4)
    }

    @Test func aRefusalThatIsNotRetryableEndsTheMessages() async throws {
        let first = MockClient.WebSocketScript([.failure(dropped)])
        let base = Handshakes([.open(first), .refuse(.forbidden)])
        let socket = try await APIClient(requestPerformer: base).webSocket(ChatRoom(id: 1), reconnecting: immediate)
        let error = await #expect(throws: SluiceError.self) { _ = try await socket.receive() }
        #expect(error?.status == .forbidden)
        #expect(base.requests.count == 2)
    }

    @Test func goingAwayConnectsAgainAndANormalClosureEnds() async throws {
        let restarting = MockClient.WebSocketScript([.text("before"), .close(.goingAway)])
        let finished = MockClient.WebSocketScript([.text("after"), .close(.normalClosure)])
        let base = Handshakes([.open(restarting), .open(finished)])
        let socket = try await APIClient(requestPerformer: base).webSocket(ChatRoom(id: 1), reconnecting: immediate)
        var messages = socket.messages.makeAsyncIterator()
        #expect(try await messages.next() == .text("before"))
        #expect(try await messages.next() == .text("after"))
        #expect(try await messages.next() == nil)
        #expect(socket.closeStatus?.code == .normalClosure)
        #expect(base.requests.count == 2)
    }

    @Test(arguments: [1002, 1003, 1008, 4000])
    func aCloseCodeNoNewConnectionMendsIsThrown(code: Int) async throws {
        let server = MockClient.WebSocketScript([.close(WebSocket.CloseCode(rawValue: UInt16(code)), reason: "no")])
        let base = Handshakes([.open(server), .open(server)])
        let socket = try await APIClient(requestPerformer: base).webSocket(ChatRoom(id: 1), reconnecting: immediate)
        let error = await #expect(throws: SluiceError.self) { _ = try await socket.receive() }
        #expect(error?.code == .close)
        #expect(base.requests.count == 1)
    }

    @Test func aBrokenFrameIsThrownWithoutANewConnection() async throws {
        let broken = SluiceError(.frame, message: "invalid WebSocket frame from the server at byte 0: a masked frame")
        let server = MockClient.WebSocketScript([.failure(broken)])
        let base = Handshakes([.open(server), .open(server)])
        let socket = try await APIClient(requestPerformer: base).webSocket(ChatRoom(id: 1), reconnecting: immediate)
        let error = await #expect(throws: SluiceError.self) { _ = try await socket.receive() }
        #expect(error?.code == .frame)
        #expect(base.requests.count == 1)
    }

    @Test func waitsTheBackoffOnTheClock() async throws {
        let clock = TestClock()
        let server = MockClient.WebSocketScript([.text("tick"), .failure(dropped)])
        let base = Handshakes([.open(server), .open(server)])
        let policy = RetryingPerformer.Policy(maximumAttempts: 3, baseDelay: .seconds(2), randomFraction: { 1 })
        let socket = try await APIClient(requestPerformer: base).webSocket(
            ChatRoom(id: 1),
            reconnecting: policy,
            clock: clock
        )
        #expect(try await socket.receive() == .text("tick"))
        let reading = Task { try await socket.receive() }
        await clock.waitForSleepers()
        #expect(clock.sleepers == [clock.now.advanced(by: .seconds(2))])
        #expect(base.requests.count == 1, "no handshake before the wait is over")
        clock.advance(by: .seconds(2))
        #expect(try await reading.value == .text("tick"))
        #expect(base.requests.count == 2)
    }

    @Test func sendingBetweenConnectionsFailsClearly() async throws {
        let clock = TestClock()
        let server = MockClient.WebSocketScript([.failure(dropped)])
        let base = Handshakes([.open(server), .open(server)])
        let policy = RetryingPerformer.Policy(maximumAttempts: 3, baseDelay: .seconds(1), randomFraction: { 1 })
        let socket = try await APIClient(requestPerformer: base).webSocket(
            ChatRoom(id: 1),
            reconnecting: policy,
            clock: clock
        )
        let reading = Task { try await socket.receive() }
        await clock.waitForSleepers()
        let error = await #expect(throws: SluiceError.self) { try await socket.send(.text("lost")) }
        #expect(
            error?.message
                == "cannot send while the WebSocket is between two connections; onConnect runs on the next one"
        )
        await socket.close()
        #expect(try await reading.value == nil, "the client's close ends the wait at once")
        #expect(base.requests.count == 1, "no handshake after the client closed")
        let late = await #expect(throws: SluiceError.self) { try await socket.send(.text("late")) }
        #expect(late?.message == "cannot send on a WebSocket that is closed")
    }

    @Test func theBackoffKeepsGrowingForAServerThatGreetsThenDrops() async throws {
        let clock = TestClock()
        let server = MockClient.WebSocketScript([.text("hi"), .failure(dropped)])
        let base = Handshakes(Array(repeating: .open(server), count: 4))
        let policy = RetryingPerformer.Policy(
            maximumAttempts: 3,
            baseDelay: .seconds(1),
            maximumDelay: .seconds(60),
            randomFraction: { 1 }
        )
        let socket = try await APIClient(requestPerformer: base).webSocket(
            ChatRoom(id: 1),
            reconnecting: policy,
            clock: clock
        )
        #expect(try await socket.receive() == .text("hi"))
        for wait in [1, 2, 4] {
            let reading = Task { try await socket.receive() }
            await clock.waitForSleepers()
            #expect(clock.sleepers == [clock.now.advanced(by: .seconds(wait))])
            clock.advance(by: .seconds(wait))
            #expect(try await reading.value == .text("hi"))
        }
        #expect(server.handshakes == 4)
        await socket.close()
    }

    @Test func aServerThatKeepsGoingAwayEndsWithAnError() async throws {
        let server = MockClient.WebSocketScript([.close(.goingAway)])
        let base = Handshakes(Array(repeating: .open(server), count: 5))
        let socket = try await APIClient(requestPerformer: base).webSocket(ChatRoom(id: 1), reconnecting: immediate)
        let error = await #expect(throws: SluiceError.self) { _ = try await socket.receive() }
        #expect(error?.code == .close)
        #expect(error?.message == "the server closed the WebSocket with 1001 (going away)")
        #expect(base.requests.count == 3)
    }

    @Test func aConnectionThatClosesDuringOnConnectIsTriedAgain() async throws {
        let dropping = MockClient.WebSocketScript([.failure(dropped)])
        let steady = MockClient.WebSocketScript([.awaitMessage, .text("subscribed")])
        let base = Handshakes([.open(dropping), .open(steady), .open(steady)])
        let connections = Locked(0)
        let socket = try await APIClient(requestPerformer: base).webSocket(
            ChatRoom(id: 1),
            reconnecting: RetryingPerformer.Policy(maximumAttempts: 4, randomFraction: { 0 })
        ) { socket in
            let connection = connections.withLock { count -> Int in
                count += 1
                return count
            }
            if connection == 2 {
                // What sending on a connection the server closed right after its 101 (a 1012 restart) throws.
                throw SluiceError(.close, message: "cannot send on a WebSocket that is closing or closed")
            }
            try await socket.send(.text("subscribe"))
        }
        #expect(try await socket.receive() == .text("subscribed"))
        #expect(base.requests.count == 3)
        #expect(steady.sentMessages == [.text("subscribe")])
        await socket.close()
    }

    @Test func cancellingTheReaderDuringTheBackoffEndsWithoutANewConnection() async throws {
        let clock = TestClock()
        let server = MockClient.WebSocketScript([.failure(dropped)])
        let base = Handshakes([.open(server), .open(server)])
        let policy = RetryingPerformer.Policy(maximumAttempts: 3, baseDelay: .seconds(1), randomFraction: { 1 })
        let socket = try await APIClient(requestPerformer: base).webSocket(
            ChatRoom(id: 1),
            reconnecting: policy,
            clock: clock
        )
        let reading = Task { try await socket.receive() }
        await clock.waitForSleepers()
        reading.cancel()
        await #expect(throws: CancellationError.self) { _ = try await reading.value }
        #expect(base.requests.count == 1)
    }

    @Test func aFailingOnConnectFailsTheFirstHandshake() async throws {
        struct Refused: Error {}
        let server = MockClient.WebSocketScript.echo()
        let base = Handshakes([.open(server)])
        let error = await #expect(throws: SluiceError.self) {
            _ = try await APIClient(requestPerformer: base).webSocket(ChatRoom(id: 1), reconnecting: immediate) { _ in
                throw Refused()
            }
        }
        #expect(error?.message.hasPrefix("the WebSocket's onConnect failed: ") == true)
        #expect(server.clientClose?.code == .goingAway)
    }

    @Test func cancellingTheReaderEndsWithoutANewConnection() async throws {
        let server = MockClient.WebSocketScript([])
        let base = Handshakes([.open(server), .open(server)])
        let socket = try await APIClient(requestPerformer: base).webSocket(ChatRoom(id: 1), reconnecting: immediate)
        let reading = Task { try await socket.receive() }
        reading.cancel()
        await #expect(throws: CancellationError.self) { _ = try await reading.value }
        #expect(base.requests.count == 1)
    }
}

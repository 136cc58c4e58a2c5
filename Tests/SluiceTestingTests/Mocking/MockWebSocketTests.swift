import ClientFixtures
import Foundation
import SluiceCore
import SluiceTesting
import Testing

struct ChatRoom: Request, Equatable {
    typealias ResponseObject = Void
    var id: Int

    func build() throws -> URLRequest {
        URLRequest(url: try testURL("wss://chat.example.com/rooms/\(id)"))
    }
}

/// The code under test: a model that joins a room through any client and keeps what it hears.
private final class RoomModel: Sendable {
    let client: any Client
    private let heard = Locked<[String]>([])

    init(client: any Client) {
        self.client = client
    }

    var messages: [String] { heard.withLock { $0 } }

    /// Joins, says hello, and listens until the server closes.
    func join(_ room: Int) async throws {
        let socket = try await client.webSocket(ChatRoom(id: room), protocols: ["chat.v2"])
        try await socket.send(.text("hello"))
        for try await message in socket.messages {
            if case .text(let text) = message {
                heard.withLock { $0.append(text) }
            }
        }
    }
}

/// MockClient's and StubPerformer's scripted WebSockets.
@Suite struct MockWebSocketTests {
    @Test func aModelJoinsAScriptedRoom() async throws {
        let server = MockClient.WebSocketScript(
            [.text("welcome"), .awaitMessage, .text("bye"), .close(.normalClosure, reason: "done")],
            subprotocols: ["chat.v2"]
        )
        let mock = MockClient()
        mock.stub(ChatRoom.self, .webSocket(server))
        let model = RoomModel(client: mock)
        try await model.join(7)
        #expect(model.messages == ["welcome", "bye"])
        #expect(server.sentMessages == [.text("hello")])
        #expect(server.handshakes == 1)
        try mock.verify()
    }

    @Test func awaitMessageHoldsTheScriptUntilTheClientSends() async throws {
        let server = MockClient.WebSocketScript([.awaitMessage, .text("after")])
        let socket = try await StubPerformer(webSocket: server).webSocket(URLRequest(url: try testURL("ws://h/x")))
        let reading = Task { try await socket.receive() }
        try await socket.send(.binary(Data([1, 2])))
        #expect(try await reading.value == .text("after"))
        #expect(server.sentMessages == [.binary(Data([1, 2]))])
    }

    @Test func anEchoServerAnswersEachMessageAndTakesTheClientsClose() async throws {
        let server = MockClient.WebSocketScript.echo(subprotocols: ["a", "b"])
        let mock = MockClient()
        mock.stub(matching: ChatRoom(id: 1), .webSocket(server))
        let socket = try await mock.webSocket(ChatRoom(id: 1), protocols: ["b"])
        #expect(socket.subprotocol == "b")
        #expect(socket.response?.headers[Header("Sec-WebSocket-Protocol")] == "b")
        for message in [WebSocket.Message.text("one"), .binary(Data("two".utf8))] {
            try await socket.send(message)
            #expect(try await socket.receive() == message)
        }
        await socket.close(code: WebSocket.CloseCode(rawValue: 4000), reason: "finished")
        #expect(try await socket.receive() == nil)
        #expect(server.clientClose?.code.rawValue == 4000)
        #expect(server.clientClose?.reason == "finished")
        #expect(socket.closeStatus?.code?.rawValue == 4000)
        let closed = await #expect(throws: SluiceError.self) { try await socket.send(.text("late")) }
        #expect(closed?.code == .close)
        #expect(closed?.message == "cannot send on a WebSocket that is closed")
    }

    @Test func aServerCloseWithAnAbnormalCodeFailsTheReader() async throws {
        let server = MockClient.WebSocketScript([.text("last"), .close(.internalServerError, reason: "overloaded")])
        let socket = try await StubPerformer(webSocket: server).webSocket(URLRequest(url: try testURL("ws://h/x")))
        #expect(try await socket.receive() == .text("last"))
        let error = await #expect(throws: SluiceError.self) { _ = try await socket.receive() }
        #expect(error?.code == .close)
        #expect(error?.message == "the server closed the WebSocket with 1011 (internal server error): overloaded")
        #expect(socket.closeStatus?.code == .internalServerError)
        #expect(socket.closeStatus?.reason == "overloaded")
    }

    @Test func aScriptedFailureReachesTheReader() async throws {
        let dropped = SluiceError(.close, message: "the connection ended without a closing frame")
        let server = MockClient.WebSocketScript([.failure(dropped)])
        let socket = try await StubPerformer(webSocket: server).webSocket(URLRequest(url: try testURL("ws://h/x")))
        let error = await #expect(throws: SluiceError.self) { _ = try await socket.receive() }
        #expect(error?.message == "the connection ended without a closing frame")
        #expect(socket.closeStatus == nil)
    }

    @Test func pausesWaitOnTheScriptsClock() async throws {
        let clock = TestClock()
        let server = MockClient.WebSocketScript([.pause(.seconds(30)), .text("later")], clock: clock)
        let socket = try await StubPerformer(webSocket: server).webSocket(URLRequest(url: try testURL("ws://h/x")))
        let reading = Task { try await socket.receive() }
        await clock.waitForSleepers()
        clock.advance(by: .seconds(30))
        #expect(try await reading.value == .text("later"))
    }

    @Test func cancellingTheReaderClosesWithGoingAway() async throws {
        let server = MockClient.WebSocketScript([])
        let socket = try await StubPerformer(webSocket: server).webSocket(URLRequest(url: try testURL("ws://h/x")))
        let reading = Task { try await socket.receive() }
        reading.cancel()
        await #expect(throws: CancellationError.self) { _ = try await reading.value }
        #expect(server.clientClose?.code == .goingAway)
    }

    @Test func releasingTheSocketClosesWithGoingAway() async throws {
        let server = MockClient.WebSocketScript([.text("unread")])
        var socket: WebSocket? = try await StubPerformer(webSocket: server).webSocket(
            URLRequest(url: try testURL("ws://h/x"))
        )
        #expect(socket != nil)
        socket = nil
        #expect(server.clientClose?.code == .goingAway)
    }

    @Test func eachHandshakePlaysTheScriptFromItsStart() async throws {
        let server = MockClient.WebSocketScript([.text("first"), .close(.normalClosure)])
        let mock = MockClient()
        mock.stub(ChatRoom.self, .webSocket(server)).expect(calls: 2)
        for _ in 0..<2 {
            let socket = try await mock.webSocket(ChatRoom(id: 3))
            #expect(try await socket.receive() == .text("first"))
            #expect(try await socket.receive() == nil)
        }
        #expect(server.handshakes == 2)
        try mock.verify()
    }

    @Test func anHTTPStubRefusesTheHandshakeAndMiddlewareRunsOnIt() async throws {
        let store = CredentialStore(
            credential: CredentialStore.Credential(authorization: "Bearer old"),
            hosts: ["chat.example.com"],
            refresh: { _ in CredentialStore.Credential(authorization: "Bearer new") }
        )
        let mock = MockClient(middleware: { $0.authenticated(by: store) })
        mock.stub(ChatRoom.self, .http(HTTPResponse(status: .unauthorized)))
        let error = await #expect(throws: SluiceError.self) { _ = try await mock.webSocket(ChatRoom(id: 1)) }
        #expect(error?.code == .handshake)
        #expect(error?.status == .unauthorized)
        #expect(await store.refreshes == 1, "the middleware refreshed after the first 401 and tried again")
        #expect(
            error?.message
                == "the WebSocket handshake failed: the server answered 401 Unauthorized rather than 101 Switching Protocols"
        )
    }

    @Test func stubsThatAnswerNoHandshakeSaySo() async throws {
        let mock = MockClient()
        mock.stub(ChatRoom.self, .value(()))
        let error = await #expect(throws: SluiceError.self) { _ = try await mock.webSocket(ChatRoom(id: 1)) }
        #expect(error?.message == "the stub for ChatRoom answers no WebSocket handshake")

        let sockets = MockClient()
        sockets.stub(ChatRoom.self, .webSocket(.echo()))
        let performed = await #expect(throws: SluiceError.self) { _ = try await sockets.perform(ChatRoom(id: 1)) }
        #expect(
            performed?.message
                == "the stub for ChatRoom answers a WebSocket handshake; open it with webSocket(_:protocols:)"
        )
    }

    @Test func aRequestWithoutAStubListsTheStubs() async throws {
        let mock = MockClient()
        let error = await #expect(throws: SluiceError.self) { _ = try await mock.webSocket(ChatRoom(id: 1)) }
        #expect(error?.message == "MockClient has no stub for ChatRoom: ChatRoom(id: 1); no stubs are registered")
    }
}

// The snippets of the SluiceTesting catalog's landing page, verbatim, run.
import ClientFixtures
import Foundation
import SluiceCore
import SluiceTesting
import Testing

@Suite struct SluiceTestingSnippetsTests {
    @Test func theLandingPagesMockAnswersAndVerifies() async throws {
        let mock = MockClient()
        mock.stub(GetUser.self, .json(#"{"id": 42, "name": "Ada"}"#))
        let user = try await mock.perform(GetUser(id: 42))
        try mock.verify()
        #expect(user == User(id: 42, name: "Ada"))
        #expect(mock.registeredStubs.count == 1)
    }

    @Test func theLandingPagesMockWebSocketAnswersAClient() async throws {
        let server = MockClient.WebSocketScript([.text("welcome"), .awaitMessage, .close(.normalClosure)])
        let mock = MockClient()
        mock.stub(ChatRoom.self, .webSocket(server))
        let socket = try await mock.webSocket(ChatRoom(id: 7))
        try await socket.send(.text("hello"))
        #expect(try await socket.receive() == .text("welcome"))
        #expect(try await socket.receive() == nil)
        #expect(server.sentMessages == [.text("hello")])
    }

    @Test func theLandingPagesWebSocketScriptTestsAClient() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route(
            "/chat",
            response: .webSocket([.text("welcome"), .receive, .maskedFrame(text: "bad"), .awaitClose])
        )

        let performer = SocketRequestPerformer(configuration: .init(proxies: .none))
        let socket = try await performer.webSocket(URLRequest(url: server.url("/chat")))
        var messages = socket.messages.makeAsyncIterator()
        #expect(try await messages.next() == .text("welcome"))
        try await socket.send(.text("hello"))
        let error = await #expect(throws: SluiceError.self) { try await messages.next() }
        #expect(error?.code == .frame)
        #expect(server.receivedWebSocketEvents.first == .text("hello"))
    }
}

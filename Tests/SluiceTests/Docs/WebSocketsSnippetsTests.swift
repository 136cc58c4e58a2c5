// The snippets of the "WebSockets" article, verbatim. They name servers that are not on a test machine: they are
// compiled here, and the client runs against Python's websockets server in WebSocketPeerTests.
import Foundation
import Sluice
import SluiceTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

struct ChatRoom: Request {
    typealias ResponseObject = Void
    let id: Int

    func build() throws -> URLRequest {
        guard let url = URL(string: "wss://chat.example.com/rooms/\(id)") else { throw URLError(.badURL) }
        return URLRequest(url: url)
    }
}

@Suite struct WebSocketsSnippetsTests {
    /// Compiled, not run: there is no chat server here.
    func join(room: Int, tokens: CredentialStore) async throws -> WebSocket {
        let performer = APIClient.defaultPerformer().authenticated(by: tokens).retrying(.default)
        let client = APIClient(requestPerformer: performer)
        return try await client.webSocket(ChatRoom(id: room), protocols: ["chat.v2"])
    }

    /// Compiled, not run: there is no price feed here.
    func prices(_ client: some Client) async throws {
        let feed = try await client.webSocket(ChatRoom(id: 1), reconnecting: .default) { socket in
            try await socket.send(.text(#"{"subscribe": "ACME"}"#))
        }
        for try await message in feed.messages {
            print(message)
        }
    }

    /// Run: the article's test of code that takes a client, against a scripted server.
    @Test func testJoin() async throws {
        let server = MockClient.WebSocketScript([.text("welcome"), .awaitMessage, .close(.normalClosure)])
        let mock = MockClient()
        mock.stub(ChatRoom.self, .webSocket(server))

        let socket = try await mock.webSocket(ChatRoom(id: 7))
        try await socket.send(.text("hello"))
        for try await message in socket.messages {
            print(message)  // .text("welcome")
        }
        assert(server.sentMessages == [.text("hello")])
        #expect(server.sentMessages == [.text("hello")])
    }

    /// Compiled, not run: there is no chat server here.
    func chat(token: String) async throws {
        guard let url = URL(string: "wss://chat.example.com/rooms/7") else { return }
        var request = URLRequest(url: url)
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")

        let socket = try await SocketRequestPerformer().webSocket(request, protocols: ["chat.v2"])
        try await socket.send(.text("hello"))
        for try await message in socket.messages {
            switch message {
            case .text(let text): print("text:", text)
            case .binary(let data): print("binary:", data.count, "bytes")
            }
        }
        // The server closed the connection with 1000 (normal closure) or 1001 (going away).
    }

    /// Compiled, not run: there is no feed here.
    func liveFeed(_ request: URLRequest) async throws -> WebSocket {
        try await SocketRequestPerformer().webSocket(
            request,
            configuration: WebSocket.Configuration(pingInterval: .seconds(15), pingTimeout: .seconds(5))
        )
    }

    /// Compiled, not run: there is no feed here.
    func compressedFeed(_ request: URLRequest) async throws -> WebSocket {
        try await SocketRequestPerformer().webSocket(request, configuration: WebSocket.Configuration(compression: true))
    }

    /// The configuration the article's keep-alive snippet makes keeps what it was given.
    @Test func keepAliveConfiguration() {
        let configuration = WebSocket.Configuration(pingInterval: .seconds(15), pingTimeout: .seconds(5))
        #expect(configuration.pingInterval == .seconds(15))
        #expect(configuration.pingTimeout == .seconds(5))
        #expect(configuration.maximumMessageSize == 16 << 20)
    }
}

import ClientFixtures
import Foundation
import SluiceCore
import Testing

/// WebSockets opened through a client and its middleware, against Python's `websockets` server: the pipeline's
/// stages reach the real handshake.
@Suite struct WebSocketClientPeerTests {
    /// A WebSocket endpoint described as a request, on the peer's base URL.
    struct PeerPath: Request {
        typealias ResponseObject = Void
        let base: URL
        let path: String

        func build() throws -> URLRequest {
            URLRequest(url: base.appendingPathComponent(path))
        }
    }

    @Test func aCredentialFromTheMiddlewareReachesTheServer() async throws {
        guard let peer = try await WebSocketPeer.start() else { return }
        let store = CredentialStore(
            credential: CredentialStore.Credential(authorization: "Bearer from-the-store"),
            hosts: [peer.baseURL.host ?? ""],
            refresh: { _ in CredentialStore.Credential(authorization: "Bearer refreshed") }
        )
        let performer = SocketRequestPerformer(configuration: .init(proxies: .none, fallback: NoFallback()))
        let client = APIClient(requestPerformer: performer.authenticated(by: store).retrying(.default))
        let socket = try await client.webSocket(PeerPath(base: peer.baseURL, path: "authorization"))
        #expect(socket.response?.status.code == 101)
        #expect(socket.response?.headers[Header("Upgrade")]?.lowercased() == "websocket")
        #expect(try await socket.receive() == .text("Bearer from-the-store"))
        await socket.close()
        #expect(try await socket.receive() == nil)
    }

    @Test func aRefusalReachesTheClientWithItsStatus() async throws {
        guard let peer = try await WebSocketPeer.start() else { return }
        let performer = SocketRequestPerformer(configuration: .init(proxies: .none, fallback: NoFallback()))
        let client = APIClient(requestPerformer: performer)
        let error = await #expect(throws: SluiceError.self) {
            _ = try await client.webSocket(PeerPath(base: peer.baseURL, path: "forbidden"))
        }
        #expect(error?.code == .handshake)
        #expect(error?.status == .forbidden)
        #expect(error?.request?.url?.path == "/forbidden")
    }

    @Test func aHandshakeThatTimesOutIsRetriedByTheClientsPolicy() async throws {
        guard let peer = try await WebSocketPeer.start() else { return }
        let performer = SocketRequestPerformer(configuration: .init(proxies: .none, fallback: NoFallback()))
        let client = APIClient(
            requestPerformer: performer.retrying(
                RetryingPerformer.Policy(maximumAttempts: 2, deadline: nil, randomFraction: { 0 })
            )
        )
        let error = await #expect(throws: SluiceError.self) {
            _ = try await client.webSocket(
                PeerPath(base: peer.baseURL, path: "slow-handshake"),
                protocols: [],
                configuration: WebSocket.Configuration(handshakeTimeout: .milliseconds(200))
            )
        }
        #expect(error?.attempts == 2)
        #expect(
            error?.message
                == "the request failed after 2 attempts, the last with the server did not answer the WebSocket handshake within 0.2 seconds"
        )
        try await performer.openDescriptorsGauge.wait { $0 == 0 }
    }

    @Test func reconnectsAfterTheServerDropsTheConnection() async throws {
        guard let peer = try await WebSocketPeer.start() else { return }
        let performer = SocketRequestPerformer(configuration: .init(proxies: .none, fallback: NoFallback()))
        let connections = Locked(0)
        let socket = try await APIClient(requestPerformer: performer).webSocket(
            PeerPath(base: peer.baseURL, path: "drop"),
            reconnecting: RetryingPerformer.Policy(maximumAttempts: 3, deadline: nil, randomFraction: { 0 })
        ) { _ in
            connections.withLock { $0 += 1 }
        }
        var messages = socket.messages.makeAsyncIterator()
        for _ in 0..<3 {
            #expect(try await messages.next() == .text("dropping"))
        }
        #expect(connections.withLock { $0 } == 3)
        await socket.close()
        #expect(try await messages.next() == nil)
        try await performer.openDescriptorsGauge.wait { $0 == 0 }
    }

    #if os(Linux)
    /// FoundationNetworking runs `URLSessionWebSocketTask` on libcurl, which Debian builds without WebSockets: the
    /// handshake fails with a clear error rather than hanging or crashing.
    @Test func urlSessionOnLinuxFailsTheHandshakeClearly() async throws {
        guard let peer = try await WebSocketPeer.start() else { return }
        let performer = NetworkRequestPerformer()
        let error = await #expect(throws: SluiceError.self) {
            _ = try await performer.webSocket(peer.request("/echo"))
        }
        #expect(error?.code == .handshake)
        #expect(
            error?.message.hasSuffix(
                "; URLSession runs WebSockets on libcurl here, which is often built without them (`curl --version` lists ws when it has them): SocketRequestPerformer opens WebSockets itself"
            ) == true,
            "\(error?.message ?? "")"
        )
    }
    #endif
}

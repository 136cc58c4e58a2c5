import ClientFixtures
import Foundation
import SluiceCore
import Testing

/// WebSockets through squid: `ws://` and `wss://` alike through a `CONNECT` tunnel, to Python's `websockets`.
extension ProxyPeerTests {
    @Suite(.enabled(if: ProxyPeer.squid != nil || ProxyPeer.isRequired, ProxyPeer.squidMissing))
    struct SquidWebSocketTests {
        /// Both schemes go through a tunnel, as squid's access log shows, rather than `ws://` in absolute form: the
        /// handshake, with the request's headers, and the messages after it, compressed or not, pass through unread;
        /// each WebSocket has a tunnel of its own.
        @Test(arguments: WebSocketPeerTests.Channel.allCases, [false, true])
        func tunnelsWebSockets(channel: WebSocketPeerTests.Channel, compression: Bool) async throws {
            let squid = try #require(
                try await ProxyPeer.startSquid(),
                "SLUICE_REQUIRE_PEERS is set, but squid is missing"
            )
            defer { squid.removeDirectory() }
            let proxy = try Proxy(url: squid.url())
            let proxies = Proxy.Settings(http: proxy, https: proxy)
            guard let (peer, performer) = try await WebSocketPeerTests.start(.websockets, channel, proxies: proxies)
            else { return }
            var request = peer.request("/authorization")
            request.setValue("Bearer through-the-tunnel", forHTTPHeaderField: "Authorization")
            let first = try await performer.webSocket(request)
            var firstMessages = first.messages.makeAsyncIterator()
            #expect(try await firstMessages.next() == .text("Bearer through-the-tunnel"))
            await first.close()

            let socket = try await performer.webSocket(
                peer.request("/echo"),
                configuration: .init(compression: compression)
            )
            #expect(socket.compressesMessages == compression)
            var iterator = socket.messages.makeAsyncIterator()
            let (binary, text) = WebSocketPeerTests.messages(of: 256 << 10)
            for message in [WebSocket.Message.text("through squid"), binary, text] {
                try await socket.send(message)
                #expect(try await iterator.next() == message)
            }
            await socket.close()
            #expect(try await iterator.next() == nil)
            #expect(socket.closeStatus?.code == .normalClosure)
            try await performer.openDescriptorsGauge.wait { $0 == 0 }
            squid.stop()
            let log = squid.log("access.log")
            let port = try #require(peer.baseURL.port)
            let host = channel == .tcp ? "127.0.0.1" : "localhost"
            #expect(log.components(separatedBy: "CONNECT \(host):\(port) ").count == 3, "\(log)")
            #expect(!log.contains("GET "), "\(log)")
        }
    }
}

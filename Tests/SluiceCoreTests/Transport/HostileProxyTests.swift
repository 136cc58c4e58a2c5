// Proxies that answer what no proxy should: every reply byte is hostile, read within a bound, and a failure names the
// proxy and what it answered.
import Foundation
import SluiceCore
import SluiceTransport
import Testing

// URLRequest lives in FoundationNetworking on Linux; Apple platforms ship it inside Foundation.
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Raw sockets come from the C library: Darwin on Apple platforms, Glibc on Linux.
#if canImport(Darwin)
import Darwin
#else
import Glibc
#endif

/// A proxy that answers one connection with scripted bytes, whatever it is asked, on a free loopback port, with
/// blocking calls on a thread of its own.
final class ScriptedProxy: Sendable {
    /// The port it listens on.
    var port: Int { listener.port }
    private let listener: OneConnectionListener

    /// Listens, and answers the first connection once its first bytes have arrived.
    ///
    /// - Parameters:
    ///   - reply: The bytes sent once the client has spoken.
    ///   - repeating: Bytes sent after the reply, again and again, until the client goes.
    ///   - thenClose: Whether to close the connection after the reply, rather than hold it open.
    /// - Throws: ``SocketError`` when it could not listen.
    init(reply: [UInt8], repeating: [UInt8] = [], thenClose: Bool = false) throws {
        listener = try OneConnectionListener { client in
            CuttingRelay.makeBlocking(client)
            defer { client.closeDescriptor() }
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 16)
            defer { buffer.deallocate() }
            guard case .transferred = client.receive(into: buffer) else { return }
            guard Self.send(reply, to: client) else { return }
            while !repeating.isEmpty, Self.send(repeating, to: client) {}
            guard !thenClose else { return }
            // Held open until the client closes it.
            while case .transferred = client.receive(into: buffer) {}
        }
    }

    /// Stops listening.
    func stop() {
        listener.stop()
    }

    /// Sends all of the bytes; `false` when the client has gone.
    private static func send(_ bytes: [UInt8], to socket: Socket) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let result = bytes.withUnsafeBytes { socket.sendSome(UnsafeRawBufferPointer(rebasing: $0[sent...])) }
            guard case .transferred(let count) = result else { return false }
            sent += count
        }
        return true
    }
}

/// The transport against scripted proxies that misbehave.
@Suite struct HostileProxyTests {
    /// The message a request through a scripted proxy fails with.
    ///
    /// The connect timeout bounds the tunnel's handshake too, and the scripted answer is what each test checks: it is
    /// two minutes by default, so that a machine slowed by the rest of the suite still gets to the answer.
    private func failure(
        _ url: String,
        proxy kind: Proxy.Kind,
        reply: [UInt8],
        repeating: [UInt8] = [],
        thenClose: Bool = false,
        username: String? = nil,
        password: String? = nil,
        maximumHeaderBytes: Int = 64 << 10,
        connectTimeout: Duration = .seconds(120)
    ) async throws -> String? {
        let scripted = try ScriptedProxy(reply: reply, repeating: repeating, thenClose: thenClose)
        defer { scripted.stop() }
        let proxy = Proxy(kind, host: "127.0.0.1", port: scripted.port, username: username, password: password)
        let performer = SocketRequestPerformer(
            configuration: .init(
                connectTimeout: connectTimeout,
                maximumHeaderBytes: maximumHeaderBytes,
                proxies: Proxy.Settings(http: proxy, https: proxy),
                fallback: NoFallback()
            )
        )
        let request = URLRequest(url: try #require(URL(string: url)))
        let error = await #expect(throws: (any Error).self) { _ = try await performer.perform(request) }
        #expect(performer.openConnections == 0)
        // A timeout is a URLError, which the client turns into a SluiceError of its own.
        let message = (error as? SluiceError)?.message ?? (error as? URLError)?.localizedDescription
        return message?.replacingOccurrences(of: "\(scripted.port)", with: "PORT")
    }

    /// A CONNECT reply whose head never ends fails at the head limit, not at the end of memory.
    @Test func aConnectReplyThatNeverEnds() async throws {
        let message = try await failure(
            "https://origin.test/",
            proxy: .http,
            reply: Array("HTTP/1.1 200 Connection established\r\n".utf8),
            repeating: Array("X-Padding: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n".utf8),
            maximumHeaderBytes: 4096
        )
        #expect(
            message
                == "the proxy http://127.0.0.1:PORT answered CONNECT with what is not an HTTP/1.1 reply: the response head is larger than the limit of 4096 bytes"
        )
    }

    /// A CONNECT reply that stops half-way is bounded by the connect timeout.
    @Test func aConnectReplyThatStalls() async throws {
        let message = try await failure(
            "https://origin.test/",
            proxy: .http,
            reply: Array("HTTP/1.1 200 Connection established\r\n".utf8),
            connectTimeout: .milliseconds(300)
        )
        #expect(
            message
                == "opening the tunnel to origin.test:443 through the proxy http://127.0.0.1:PORT did not finish within the connect timeout of 300.00ms"
        )
    }

    /// A reply head sent at once, larger than the limit, fails the same way.
    @Test func anOversizedConnectReplyHead() async throws {
        let field = "X-Large: " + String(repeating: "b", count: 8000) + "\r\n"
        let message = try await failure(
            "https://origin.test/",
            proxy: .http,
            reply: Array(("HTTP/1.1 200 OK\r\n" + field + "\r\n").utf8),
            maximumHeaderBytes: 4096
        )
        #expect(
            message
                == "the proxy http://127.0.0.1:PORT answered CONNECT with what is not an HTTP/1.1 reply: the response head is larger than the limit of 4096 bytes"
        )
    }

    /// A CONNECT refused fails with the status; a 407 says that the proxy wants credentials.
    @Test func refusals() async throws {
        let refused = try await failure(
            "https://origin.test:8443/",
            proxy: .http,
            reply: Array("HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n".utf8)
        )
        #expect(refused == "the proxy http://127.0.0.1:PORT refused to CONNECT to origin.test:8443: 403 Forbidden")
        let unauthorized = try await failure(
            "https://origin.test/",
            proxy: .http,
            reply: Array("HTTP/1.1 407 Proxy Authentication Required\r\nContent-Length: 0\r\n\r\n".utf8)
        )
        #expect(
            unauthorized
                == "the proxy http://127.0.0.1:PORT requires authentication (407 Proxy Authentication Required): it asks for them"
        )
    }

    /// Bytes after a CONNECT's 200, before anything was sent through the tunnel, are refused.
    @Test func bytesAfterTheConnectReply() async throws {
        let message = try await failure(
            "https://origin.test/",
            proxy: .http,
            reply: Array("HTTP/1.1 200 OK\r\n\r\nHTTP/1.1 200 OK\r\n\r\n".utf8)
        )
        #expect(
            message
                == "the proxy http://127.0.0.1:PORT sent 19 bytes after its reply, before the request to origin.test:443: nothing asked for them"
        )
    }

    /// A SOCKS5 proxy that answers with another version byte is named as not speaking SOCKS5.
    @Test func aBadSOCKSVersion() async throws {
        let message = try await failure("http://origin.test/", proxy: .socks5h, reply: [4, 0])
        #expect(
            message
                == "the proxy socks5h://127.0.0.1:PORT answered with the version byte 0x04, not 0x05: it does not speak SOCKS5"
        )
    }

    /// SOCKS5 reply codes are named; a reply cut short is named as such.
    @Test func socksRefusals() async throws {
        let refused = try await failure(
            "http://origin.test:81/",
            proxy: .socks5h,
            reply: [5, 0, 5, 5, 0, 1, 0, 0, 0, 0, 0, 0]
        )
        #expect(
            refused
                == "the proxy socks5h://127.0.0.1:PORT refused to connect to origin.test:81: connection refused (reply 0x05)"
        )
        let noMethod = try await failure("http://origin.test/", proxy: .socks5h, reply: [5, 0xFF])
        #expect(
            noMethod
                == "the proxy socks5h://127.0.0.1:PORT accepts none of the authentication methods offered (no authentication)"
        )
        let badType = try await failure("http://origin.test/", proxy: .socks5h, reply: [5, 0, 5, 0, 0, 9, 0, 0])
        #expect(
            badType
                == "the proxy socks5h://127.0.0.1:PORT answered with the address type 0x09, which is none of SOCKS5's"
        )
        let cut = try await failure("http://origin.test/", proxy: .socks5h, reply: [5], thenClose: true)
        #expect(
            cut
                == "the proxy socks5h://127.0.0.1:PORT closed the connection before it opened the tunnel to origin.test:80, after 1 bytes of its reply"
        )
    }
}

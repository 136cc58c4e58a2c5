import ClientFixtures
// Sluice's own transport over HTTP/2 against servers no one here wrote: hypercorn, and a gRPC unary call to grpcio
// through a plain request (the 5-byte message frame, `te: trailers`, the `grpc-status` trailer), each over TLS with
// ALPN and over cleartext by prior knowledge.
import Foundation
import SluiceCore
import Testing

// URLRequest lives in FoundationNetworking on Linux; Apple platforms ship it inside Foundation.
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite(.enabled(if: nghttp2Loads || NginxServer.isRequired, "the system's nghttp2 could not be loaded"))
struct HTTP2ServerPeerTests {
    /// How a test reaches its server.
    enum Channel: String, CaseIterable, CustomTestStringConvertible {
        case tls = "TLS with ALPN h2"
        case priorKnowledge = "cleartext by prior knowledge"

        var testDescription: String { rawValue }
    }

    /// Starts a server over the channel and a performer that speaks HTTP/2 to it; `nil` when the peer is missing and
    /// not required.
    func start(
        _ kind: HTTP2ServerPeer.Kind,
        over channel: Channel
    ) async throws -> (HTTP2ServerPeer, SocketRequestPerformer)? {
        switch channel {
        case .tls:
            let pki = try await requirePKI()
            guard let peer = try await HTTP2ServerPeer.start(kind, identity: (pki.good.chain, pki.good.key)) else {
                return nil
            }
            return (peer, try tlsPerformer(pki))
        case .priorKnowledge:
            guard let peer = try await HTTP2ServerPeer.start(kind) else { return nil }
            var configuration = SocketRequestPerformer.Configuration(proxies: .none)
            configuration.http2.priorKnowledge = ["127.0.0.1:\(peer.port)"]
            return (peer, SocketRequestPerformer(configuration: configuration))
        }
    }

    // MARK: hypercorn

    /// hypercorn sees HTTP/2, and so does the response.
    @Test(arguments: Channel.allCases)
    func hypercornIsSpokenToInHTTP2(over channel: Channel) async throws {
        guard let (peer, performer) = try await start(.hypercorn, over: channel) else { return }
        let response = try await performer.perform(URLRequest(url: try peer.url("/version")))
        #expect(response.body == Data("2".utf8))
        #expect(response.protocolVersion == "HTTP/2")
    }

    /// A 300 KB request body reaches hypercorn whole and comes back.
    @Test(arguments: Channel.allCases)
    func aBodyGoesToHypercornWhole(over channel: Channel) async throws {
        guard let (peer, performer) = try await start(.hypercorn, over: channel) else { return }
        var request = URLRequest(url: try peer.url("/echo"))
        request.httpMethod = "POST"
        let body = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        request.httpBody = body
        let response = try await performer.perform(request)
        #expect(response.headers["x-received"] == "300000")
        #expect(response.body == body)
    }

    /// Twenty downloads at once share one connection, each body whole.
    @Test(arguments: Channel.allCases)
    func concurrentDownloadsShareOneConnection(over channel: Channel) async throws {
        guard let (peer, performer) = try await start(.hypercorn, over: channel) else { return }
        let size = 100_000
        let expected = Data((0..<size).map { UInt8($0 % 251) })
        let url = try peer.url("/big/\(size)")
        let matching = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    let response = try await performer.perform(URLRequest(url: url))
                    return response.body == expected && response.protocolVersion == "HTTP/2"
                }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(matching == 20)
        #expect(performer.idleConnections == 1)
    }

    // MARK: gRPC

    /// A gRPC message: the compressed flag, the length in four bytes, big-endian, then the message.
    static func grpcFrame(_ message: Data) -> Data {
        let length = UInt32(message.count)
        return Data([0, UInt8(length >> 24), UInt8((length >> 16) & 0xFF), UInt8((length >> 8) & 0xFF)])
            + Data([UInt8(length & 0xFF)]) + message
    }

    /// A unary call to `/sluice.Echo/Say` as gRPC sends it: a POST of one framed message with `te: trailers`.
    static func grpcCall(_ peer: HTTP2ServerPeer, message: String) throws -> URLRequest {
        var request = URLRequest(url: try peer.url("/sluice.Echo/Say"))
        request.httpMethod = "POST"
        request.setValue("application/grpc", forHTTPHeaderField: "Content-Type")
        request.setValue("trailers", forHTTPHeaderField: "TE")
        request.httpBody = grpcFrame(Data(message.utf8))
        return request
    }

    /// The call's answer is one framed message, and its status comes in the trailers, after the body.
    @Test(arguments: Channel.allCases)
    func aGRPCUnaryCallGetsItsMessageAndStatusTrailer(over channel: Channel) async throws {
        guard let (peer, performer) = try await start(.grpcio, over: channel) else { return }
        let response = try await performer.perform(try Self.grpcCall(peer, message: "hello"))
        #expect(response.status.code == 200)
        #expect(response.protocolVersion == "HTTP/2")
        #expect(response.headers["content-type"] == "application/grpc")
        #expect(response.body == Self.grpcFrame(Data("echo:hello".utf8)))
        #expect(response.trailers["grpc-status"] == "0")
        #expect(response.trailers["x-served-by"] == "grpcio")
        #expect(response.headers["grpc-status"] == nil)
    }

    /// A call that fails gets gRPC's "Trailers-Only" answer: no message, and the status in the one field section
    /// that ends the stream, which the response has as its header fields.
    @Test(arguments: Channel.allCases)
    func aFailedGRPCCallGetsItsStatusAndMessage(over channel: Channel) async throws {
        guard let (peer, performer) = try await start(.grpcio, over: channel) else { return }
        let response = try await performer.perform(try Self.grpcCall(peer, message: "fail:bob"))
        #expect(response.status.code == 200)
        #expect(response.body.isEmpty)
        #expect(response.headers["grpc-status"] == "5")
        #expect(response.headers["grpc-message"] == "no greeting for bob")
    }
}

import ClientFixtures
// Sluice's own transport over HTTP/2 against nginx's http2 module: chosen by ALPN over TLS, and spoken by prior
// knowledge on a cleartext port; many requests on one connection, streamed bodies, cancellation of one stream.
import Foundation
import SluiceCore
import Testing

// URLRequest lives in FoundationNetworking on Linux; Apple platforms ship it inside Foundation.
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Whether the HTTP/2 tests against nginx can run: its TLS peers are there and nghttp2 loads, or the run requires them.
let http2PeersPresent = (tlsPeersPresent && nghttp2Loads) || NginxServer.isRequired

extension NginxTLSTests {
    @Suite(.enabled(if: http2PeersPresent, "nginx, openssl or nghttp2 is missing"))
    struct HTTP2Tests {
        let pki: TestPKI

        init() async throws {
            pki = try await requirePKI()
        }

        /// An HTTP/2 site of nginx's, and a performer that trusts it.
        func start(
            _ configure: (inout SocketRequestPerformer.Configuration) -> Void = { _ in }
        ) async throws -> (NginxServer, SocketRequestPerformer) {
            var site = NginxServer.TLSSite(chain: pki.good.chain, key: pki.good.key)
            site.http2 = true
            let server = try await startTLSServer(site)
            var tls = TLSConfiguration()
            tls.additionalTrustRoots = [.file(pki.root.path)]
            var configuration = SocketRequestPerformer.Configuration(tls: tls, fallback: NoFallback())
            configuration.http2.priorKnowledge = ["127.0.0.1:\(try #require(server.h2cPort))"]
            configure(&configuration)
            return (server, SocketRequestPerformer(configuration: configuration))
        }

        /// Over TLS the server chooses `h2` by ALPN; the response says HTTP/2 carried it, and its bytes are nginx's.
        @Test func alpnChoosesHTTP2OverTLS() async throws {
            let (server, performer) = try await start()
            let small = try await performer.perform(URLRequest(url: try server.httpsURL("/small.json")))
            #expect(small.status.code == 200)
            #expect(small.protocolVersion == "HTTP/2")
            #expect(small.body == NginxServer.smallJSON)
            let users = try await performer.perform(URLRequest(url: try server.httpsURL("/users.json")))
            #expect(users.body == NginxServer.usersJSON)
            #expect(performer.openConnections == 1)
            #expect(try await server.tlsAccessLog(after: performer).allSatisfy { $0.hasSuffix("TLSv1.3") })
        }

        /// A cleartext origin named for prior knowledge is spoken to in HTTP/2 from the first byte.
        @Test func priorKnowledgeSpeaksHTTP2WithoutTLS() async throws {
            let (server, performer) = try await start()
            let response = try await performer.perform(URLRequest(url: try server.h2cURL("/large.bin")))
            #expect(response.protocolVersion == "HTTP/2")
            #expect(response.body == NginxServer.largeBinary)
            let plain = try await performer.perform(URLRequest(url: server.url("/small.json")))
            #expect(plain.protocolVersion == "HTTP/1.1")
        }

        /// An origin kept on HTTP/1.1 is, though the server offers HTTP/2.
        @Test func anOriginKeptOnHTTP1IsSpokenToInHTTP1() async throws {
            let (server, performer) = try await start()
            let port = try #require(server.tlsPort)
            var configuration = performer.configuration
            configuration.http2.http1Only = ["localhost:\(port)"]
            let http1 = SocketRequestPerformer(configuration: configuration)
            let response = try await http1.perform(URLRequest(url: try server.httpsURL("/small.json")))
            #expect(response.protocolVersion == "HTTP/1.1")
            #expect(response.body == NginxServer.smallJSON)
        }

        /// A burst of requests to a new origin opens one connection, not one each while ALPN is pending, and that
        /// connection carries them all at once.
        @Test(arguments: [false, true])
        func aBurstSharesOneConnection(overTLS: Bool) async throws {
            let (server, performer) = try await start()
            let url = overTLS ? try server.httpsURL("/users.json") : try server.h2cURL("/users.json")
            let bodies = try await withThrowingTaskGroup(of: Data.self) { group in
                for _ in 0..<40 {
                    group.addTask { try await performer.perform(URLRequest(url: url)).body }
                }
                return try await group.reduce(into: [Data]()) { $0.append($1) }
            }
            #expect(bodies.count == 40)
            #expect(bodies.allSatisfy { $0 == NginxServer.usersJSON })
            #expect(performer.openConnections == 1)
        }

        /// A streamed body arrives whole; a stream dropped before its end is reset, and the connection carries the
        /// next request.
        @Test func aDroppedStreamIsResetAndTheConnectionLivesOn() async throws {
            let (server, performer) = try await start { $0.streamReadAhead = 16 << 10 }
            let url = try server.httpsURL("/large.bin")
            let whole = try await performer.stream(URLRequest(url: url))
            #expect(whole.protocolVersion == "HTTP/2")
            #expect(try await whole.body.collect(upTo: 4 << 20) == NginxServer.largeBinary)

            let dropped = try await performer.stream(URLRequest(url: url))
            var iterator = dropped.body.makeAsyncIterator()
            let first = try await iterator.next()
            #expect(first?.isEmpty == false)
            _ = consume iterator
            _ = dropped

            let next = try await performer.perform(URLRequest(url: try server.httpsURL("/small.json")))
            #expect(next.body == NginxServer.smallJSON)
            #expect(performer.openConnections == 1)
        }

        /// Cancelling a request resets its stream only: the others on the connection finish.
        @Test func cancellingOneRequestLeavesTheOthers() async throws {
            let (server, performer) = try await start()
            let url = try server.httpsURL("/users.json")
            _ = try await performer.perform(URLRequest(url: url))
            let cancelled = Task {
                var request = URLRequest(url: try server.httpsURL("/large.bin"))
                request.timeoutInterval = 3_600
                let streamed = try await performer.stream(request)
                return try await streamed.body.collect(upTo: 4 << 20)
            }
            cancelled.cancel()
            let others = try await withThrowingTaskGroup(of: Data.self) { group in
                for _ in 0..<8 {
                    group.addTask { try await performer.perform(URLRequest(url: url)).body }
                }
                return try await group.reduce(into: [Data]()) { $0.append($1) }
            }
            #expect(others.allSatisfy { $0 == NginxServer.usersJSON })
            _ = await cancelled.result
            #expect(performer.openConnections == 1)
        }

        /// A request with a body goes out in DATA frames; nginx answers its method.
        @Test func aRequestWithABodyIsSent() async throws {
            let (server, performer) = try await start()
            var request = URLRequest(url: try server.httpsURL("/echo-method"))
            request.httpMethod = "PUT"
            request.httpBody = Data(repeating: 7, count: 100_000)
            let response = try await performer.perform(request)
            #expect(response.protocolVersion == "HTTP/2")
            #expect(String(decoding: response.body, as: UTF8.self) == "PUT")
        }

        /// A gzip body is decoded over HTTP/2 as over HTTP/1.1.
        @Test func aCompressedBodyIsDecoded() async throws {
            let (server, performer) = try await start()
            let response = try await performer.perform(URLRequest(url: try server.httpsURL("/gzip/users.json")))
            #expect(response.protocolVersion == "HTTP/2")
            #expect(response.headers["Content-Encoding"] == "gzip")
            #expect(response.body == NginxServer.usersJSON)
        }
    }
}

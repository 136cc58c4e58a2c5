import ClientFixtures
// Sluice's own transport through real proxies: squid forwarding `http://` and tunnelling `https://` with CONNECT, and
// a SOCKS5 server, each with and without a user name and password, in front of nginx.
import Foundation
import SluiceCore
import Testing

// URLRequest lives in FoundationNetworking on Linux; Apple platforms ship it inside Foundation.
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A GET whose body is kept as sent, through a client.
private struct Fetch: Request {
    typealias ResponseObject = Data

    /// Where.
    let url: URL

    /// Builds the request.
    ///
    /// - Returns: A GET of ``url``.
    func build() throws -> URLRequest {
        URLRequest(url: url)
    }
}

/// A performer that sends everything through one proxy, trusting the test root, with a fallback that fails.
private func performer(through proxyURL: String, _ pki: TestPKI) throws -> SocketRequestPerformer {
    let proxy = try Proxy(url: proxyURL)
    var tls = TLSConfiguration()
    tls.additionalTrustRoots = [.file(pki.root.path)]
    let performer = SocketRequestPerformer(
        configuration: .init(tls: tls, proxies: Proxy.Settings(http: proxy, https: proxy), fallback: NoFallback())
    )
    try #require(performer.handlesHTTPS, "\(SocketRequestPerformer.httpsUnavailableReason ?? "")")
    return performer
}

/// The body of a response as text.
private func text(_ response: HTTPResponse) -> String {
    String(decoding: response.body, as: UTF8.self)
}

/// The proxy suites, one test at a time, beside the other real peers.
@Suite(.serialized)
enum ProxyPeerTests {}

/// Through squid: absolute-form requests and CONNECT tunnels, basic authentication, refusals.
extension ProxyPeerTests {
    @Suite(
        .enabled(if: (ProxyPeer.squid != nil && tlsPeersPresent) || ProxyPeer.isRequired, ProxyPeer.squidMissing)
    )
    struct SquidTests {
        let pki: TestPKI
        let origin: NginxServer

        init() async throws {
            pki = try await requirePKI()
            origin = try await startTLSServer(.init(chain: pki.good.chain, key: pki.good.key))
        }

        /// Starts squid, or fails when the peers are required and it is missing.
        private func startSquid(requiring credentials: ProxyPeer.Credentials? = nil) async throws -> ProxyPeer {
            try #require(
                try await ProxyPeer.startSquid(requiring: credentials),
                "SLUICE_REQUIRE_PEERS is set, but squid is missing"
            )
        }

        /// `http://` goes to squid in absolute form, `https://` through a tunnel, verified against the origin's name;
        /// the request's own `Proxy-Authorization` does not reach the origin through the tunnel; each origin has its
        /// connection, kept alive.
        @Test func forwardsAndTunnels() async throws {
            let squid = try await startSquid()
            defer { squid.removeDirectory() }
            let performer = try performer(through: squid.url(), pki)
            let small = try await performer.perform(URLRequest(url: origin.url("/small.json")))
            #expect(small.body == NginxServer.smallJSON)
            var request = URLRequest(url: try origin.httpsURL("/echo-proxy-authorization"))
            request.setValue("Basic bm90LWZvci10aGUtb3JpZ2lu", forHTTPHeaderField: "Proxy-Authorization")
            #expect(text(try await performer.perform(request)) == "[]")
            let large = try await performer.perform(URLRequest(url: try origin.httpsURL("/large.bin")))
            #expect(large.body == NginxServer.largeBinary)
            let connection = try await performer.perform(URLRequest(url: try origin.httpsURL("/connection")))
            #expect(text(connection).split(separator: " ").last == "3")
            #expect(performer.openConnections == 2)
            squid.stop()
            let log = squid.log("access.log")
            #expect(log.contains("GET http://127.0.0.1:\(origin.port)/small.json"), "\(log)")
            #expect(log.contains("CONNECT localhost:\(origin.tlsPort ?? 0)"), "\(log)")
        }

        /// A CONNECT tunnel carries HTTP/2 when the origin chooses it by ALPN: TLS and h2 go inside the tunnel as over
        /// a direct connection, and concurrent requests share it.
        @Test func aTunnelCarriesHTTP2() async throws {
            let squid = try await startSquid()
            defer { squid.removeDirectory() }
            let h2Origin = try await startTLSServer(.init(chain: pki.good.chain, key: pki.good.key, http2: true))
            let performer = try performer(through: squid.url(), pki)
            let url = try h2Origin.httpsURL("/small.json")
            let versions = try await withThrowingTaskGroup(of: String?.self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        let response = try await performer.perform(URLRequest(url: url))
                        return response.body == NginxServer.smallJSON ? response.protocolVersion : "wrong body"
                    }
                }
                return try await group.reduce(into: [String?]()) { $0.append($1) }
            }
            #expect(versions == Array(repeating: "HTTP/2", count: 8))
            #expect(performer.openConnections == 1)
            squid.stop()
            #expect(squid.log("access.log").contains("CONNECT localhost:\(h2Origin.tlsPort ?? 0)"))
        }

        /// Streamed responses, downloads and uploads take the same way as any request: through squid in absolute form
        /// for `http://`, through its tunnel for `https://`, as squid's access log shows.
        @Test func streamsDownloadsAndUploadsGoThroughIt() async throws {
            let squid = try await startSquid()
            defer { squid.removeDirectory() }
            let performer = try performer(through: squid.url(), pki)
            let client = APIClient(requestPerformer: performer)
            for url in [origin.url("/large.bin"), try origin.httpsURL("/large.bin")] {
                let streamed = try await performer.stream(URLRequest(url: url))
                #expect(try await streamed.body.collect(upTo: 4 << 20) == NginxServer.largeBinary)
                let file = FileManager.default.temporaryDirectory
                    .appendingPathComponent("sluice-proxied-\(UUID().uuidString).bin")
                defer { try? FileManager.default.removeItem(at: file) }
                _ = try await client.download(Raw(url: url), to: file).finished()
                #expect(try Data(contentsOf: file) == NginxServer.largeBinary)
                var upload = URLRequest(url: url.deletingLastPathComponent().appendingPathComponent("echo-method"))
                upload.httpMethod = "POST"
                upload.httpBodyStream = InputStream(data: Data(repeating: 0x61, count: 256 << 10))
                #expect(text(try await performer.perform(upload)) == "POST")
            }
            squid.stop()
            let log = squid.log("access.log")
            #expect(log.contains("GET http://127.0.0.1:\(origin.port)/large.bin"), "\(log)")
            #expect(log.contains("POST http://127.0.0.1:\(origin.port)/echo-method"), "\(log)")
            #expect(log.contains("CONNECT localhost:\(origin.tlsPort ?? 0)"), "\(log)")
        }

        /// With squid's basic authentication, the credentials from the proxy URL reach squid, on absolute-form
        /// requests and on CONNECT, and never the origin.
        @Test func authenticates() async throws {
            let credentials = ProxyPeer.Credentials(username: "alice", password: "pa:ss w0rd!")
            let squid = try await startSquid(requiring: credentials)
            defer { squid.removeDirectory() }
            let performer = try performer(through: squid.url(credentials), pki)
            let plain = try await performer.perform(URLRequest(url: origin.url("/echo-proxy-authorization")))
            #expect(plain.status.code == 200)
            #expect(text(plain) == "[]")
            let tunnelled = try await performer.perform(
                URLRequest(url: try origin.httpsURL("/echo-proxy-authorization"))
            )
            #expect(text(tunnelled) == "[]")
            squid.stop()
            let log = squid.log("access.log")
            #expect(log.contains("GET http://127.0.0.1:\(origin.port)/echo-proxy-authorization alice "), "\(log)")
            #expect(log.contains("CONNECT localhost:\(origin.tlsPort ?? 0) alice "), "\(log)")
        }

        /// Without credentials, or with wrong ones, squid's 407 fails the request with an error that says so, and
        /// shows no credential.
        @Test func refusesMissingAndWrongCredentials() async throws {
            let credentials = ProxyPeer.Credentials(username: "alice", password: "right-one")
            let squid = try await startSquid(requiring: credentials)
            defer { squid.removeDirectory() }
            let proxy = "http://127.0.0.1:\(squid.port)"
            let anonymous = try performer(through: squid.url(), pki)
            let plain = await #expect(throws: SluiceError.self) {
                _ = try await anonymous.perform(URLRequest(url: origin.url("/small.json")))
            }
            #expect(
                plain?.message
                    == "the proxy \(proxy) requires authentication (407 Proxy Authentication Required) for \(origin.url("/small.json").absoluteString): it asks for them"
            )
            let tunnel = await #expect(throws: SluiceError.self) {
                _ = try await anonymous.perform(URLRequest(url: try origin.httpsURL("/small.json")))
            }
            #expect(
                tunnel?.message
                    == "the proxy \(proxy) requires authentication (407 Proxy Authentication Required): it asks for them"
            )
            let wrong = ProxyPeer.Credentials(username: "alice", password: "wrong-one")
            let client = APIClient(requestPerformer: try performer(through: squid.url(wrong), pki))
            let refused = await #expect(throws: SluiceError.self) {
                _ = try await client.perform(Fetch(url: try origin.httpsURL("/small.json")))
            }
            let token = Data("alice:wrong-one".utf8).base64EncodedString()
            #expect(
                refused?.message
                    == "the proxy \(proxy) requires authentication (407 Proxy Authentication Required): it refused the user name and password from its URL"
            )
            #expect(refused?.credentials.contains(token) == true)
            let description = "\(refused.map { "\($0)" } ?? "")"
            #expect(!description.contains("wrong-one") && !description.contains(token), "\(description)")
            #expect(client.requestPerformer is SocketRequestPerformer)
        }
    }
}

/// Through microsocks, a SOCKS5 server: names resolved here (`socks5://`) or by the proxy (`socks5h://`), with and
/// without a user name and password.
extension ProxyPeerTests {
    @Suite(
        .enabled(
            if: (ProxyPeer.microsocks != nil && tlsPeersPresent) || ProxyPeer.isRequired,
            ProxyPeer.microsocksMissing
        )
    )
    struct SOCKSTests {
        let pki: TestPKI
        let origin: NginxServer

        init() async throws {
            pki = try await requirePKI()
            origin = try await startTLSServer(.init(chain: pki.good.chain, key: pki.good.key))
        }

        /// Starts microsocks, or fails when the peers are required and it is missing.
        private func startSOCKS(requiring credentials: ProxyPeer.Credentials? = nil) async throws -> ProxyPeer {
            try #require(
                try await ProxyPeer.startMicrosocks(requiring: credentials),
                "SLUICE_REQUIRE_PEERS is set, but microsocks is missing"
            )
        }

        /// Without authentication, `http://` and `https://` through `socks5://` and `socks5h://`; once the proxy has
        /// stopped, a new connection fails naming it, so the requests did go through it.
        @Test func tunnelsWithoutAuthentication() async throws {
            let socks = try await startSOCKS()
            defer { socks.removeDirectory() }
            for scheme in ["socks5", "socks5h"] {
                let performer = try performer(through: socks.url(scheme: scheme), pki)
                let small = try await performer.perform(URLRequest(url: origin.url("/small.json")))
                #expect(small.body == NginxServer.smallJSON)
                let large = try await performer.perform(URLRequest(url: try origin.httpsURL("/large.bin")))
                #expect(large.body == NginxServer.largeBinary)
                let host = try await performer.perform(URLRequest(url: try origin.httpsURL("/echo-host")))
                #expect(text(host) == "localhost:\(origin.tlsPort ?? 0)")
            }
            socks.stop()
            let performer = try performer(through: socks.url(scheme: "socks5h"), pki)
            let error = await #expect(throws: SluiceError.self) {
                _ = try await performer.perform(URLRequest(url: origin.url("/small.json")))
            }
            #expect(
                error?.message.hasPrefix(
                    "could not connect to 127.0.0.1:\(origin.port) through the proxy socks5h://127.0.0.1:\(socks.port): "
                ) == true,
                "\(error?.message ?? "")"
            )
        }

        /// With a user name and password (RFC 1929): the right ones open the tunnel, the wrong ones and none fail
        /// with errors that say so.
        @Test func authenticates() async throws {
            let credentials = ProxyPeer.Credentials(username: "alice", password: "s3cret!")
            let socks = try await startSOCKS(requiring: credentials)
            defer { socks.removeDirectory() }
            let authenticated = try performer(through: socks.url(scheme: "socks5h", credentials), pki)
            let small = try await authenticated.perform(URLRequest(url: try origin.httpsURL("/small.json")))
            #expect(small.body == NginxServer.smallJSON)
            let wrong = ProxyPeer.Credentials(username: "alice", password: "nope-nope")
            let refused = await #expect(throws: SluiceError.self) {
                _ = try await performer(through: socks.url(scheme: "socks5", wrong), pki)
                    .perform(URLRequest(url: origin.url("/small.json")))
            }
            #expect(
                refused?.message
                    == "the proxy socks5://127.0.0.1:\(socks.port) refused the user name and password from its URL (status 0x02)"
            )
            let anonymous = await #expect(throws: SluiceError.self) {
                _ = try await performer(through: socks.url(scheme: "socks5h"), pki)
                    .perform(URLRequest(url: origin.url("/small.json")))
            }
            #expect(
                anonymous?.message
                    == "the proxy socks5h://127.0.0.1:\(socks.port) accepts none of the authentication methods offered (no authentication)"
            )
        }

        /// A port nothing listens on: the proxy's reply code is named.
        @Test func namesTheReplyCode() async throws {
            let socks = try await startSOCKS()
            defer { socks.removeDirectory() }
            let closed = try SilentListener.listeningSocket()
            let port = SilentListener.port(of: closed)
            closed.closeDescriptor()
            let error = await #expect(throws: SluiceError.self) {
                _ = try await performer(through: socks.url(scheme: "socks5"), pki)
                    .perform(URLRequest(url: try #require(URL(string: "http://127.0.0.1:\(port)/"))))
            }
            #expect(
                error?.message
                    == "the proxy socks5://127.0.0.1:\(socks.port) refused to connect to 127.0.0.1:\(port): connection refused (reply 0x05)"
            )
        }
    }
}

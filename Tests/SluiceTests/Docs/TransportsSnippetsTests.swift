import ClientFixtures
// The snippets of the "Transports" article, verbatim. The Unix socket snippets name the Docker engine's socket, which
// is not on a test machine: they are compiled here and run against nginx's socket in NginxUnixSocketTests.
import Foundation
import Sluice
import SluiceTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite struct TransportsSnippetsTests {
    /// "The default", and `APIClient.defaultPerformer()`'s own example: either transport, by passing it.
    @Test func choosingThePerformer() async throws {
        let server = try LoopbackServer()
        server.route("/ping", response: .json(#"{"n": 1}"#))
        struct Ping: Request {
            typealias ResponseObject = Data
            let url: URL
            func build() throws -> URLRequest { URLRequest(url: url) }
        }
        let onURLSession = APIClient(requestPerformer: NetworkRequestPerformer())
        let onSockets = APIClient(requestPerformer: SocketRequestPerformer())
        for client in [onURLSession, onSockets, APIClient()] {
            #expect(try await client.perform(Ping(url: server.url("/ping"))) == Data(#"{"n": 1}"#.utf8))
        }
        #expect(onSockets.requestPerformer is SocketRequestPerformer)
        #if os(Linux)
        #expect(APIClient().requestPerformer is SocketRequestPerformer)
        #else
        #expect(APIClient().requestPerformer is NetworkRequestPerformer)
        #endif
    }

    /// "HTTP/2", and `SocketRequestPerformer.HTTP2Settings`' own example: the origins named go by prior knowledge or
    /// stay on HTTP/1.1; any other cleartext origin is spoken to in HTTP/1.1, as the loopback server speaks.
    @Test func http2Settings() async throws {
        let server = try LoopbackServer()
        server.route("/ping", response: .json(#"{"n": 1}"#))
        var configuration = SocketRequestPerformer.Configuration()
        configuration.http2.priorKnowledge = ["127.0.0.1:8080"]
        configuration.http2.http1Only = ["legacy.example.com:443"]
        let client = APIClient(requestPerformer: SocketRequestPerformer(configuration: configuration))
        let response = try await client.requestPerformer.perform(URLRequest(url: server.url("/ping")))
        #expect(response.protocolVersion == "HTTP/1.1")
        #expect(configuration.http2.priorKnowledge == ["127.0.0.1:8080"])
    }

    /// "Request bodies": a body made afresh for each attempt, sent whole on either transport.
    @Test func aBodyFromAnAsyncSequence() async throws {
        let server = try LoopbackServer()
        server.route("PUT", "/exports/42") { request in .text(request.bodyText) }
        let rows = [1, 2, 3]
        var request = URLRequest(url: server.url("/exports/42"))
        request.httpMethod = "PUT"
        // Made afresh for each attempt, so that a retry or a replay after 401 sends it again from the start.
        request.setBody(length: Int64(rows.count * 2)) {
            AsyncStream { continuation in
                for row in rows { continuation.yield(Data("\(row)\n".utf8)) }
                continuation.finish()
            }
        }
        for performer in [SocketRequestPerformer(), NetworkRequestPerformer()] as [any RequestPerformer] {
            #expect(try await performer.perform(request).body == Data("1\n2\n3\n".utf8))
        }
    }

    /// "Cookies": two clients made with the default keep a store each.
    @Test func cookiesOfEachClientsOwn() async throws {
        let server = try LoopbackServer()
        server.route("/login") { _ in
            LoopbackServer.Response.text("in").addingHeader("Set-Cookie", "session=a; Path=/")
        }
        server.route("/whoami") { request in .text(request.header("Cookie") ?? "(none)") }
        struct Fetch: Request {
            typealias ResponseObject = Data
            let url: URL
            func build() throws -> URLRequest { URLRequest(url: url) }
        }
        let alice = APIClient(requestPerformer: SocketRequestPerformer())
        let bob = APIClient(requestPerformer: SocketRequestPerformer())  // none of Alice's cookies
        _ = try await alice.perform(Fetch(url: server.url("/login")))
        #expect(try await alice.perform(Fetch(url: server.url("/whoami"))) == Data("session=a".utf8))
        #expect(try await bob.perform(Fetch(url: server.url("/whoami"))) == Data("(none)".utf8))
    }

    /// Compiled, not run: it would write to the process's shared store, which on Linux keeps a file.
    func cookiesShared() {
        let sharing = SocketRequestPerformer.Configuration(cookies: .shared)
        let web = APIClient(requestPerformer: SocketRequestPerformer(configuration: sharing))
        let api = APIClient(requestPerformer: SocketRequestPerformer(configuration: sharing))  // web's cookies too
        let none = SocketRequestPerformer(configuration: .init(cookies: .disabled))
        print(web, api, none)
    }

    /// "The event loop": a task on a loop's executor polls an endpoint.
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *)
    @Test func aTaskOnALoop() async throws {
        let server = try LoopbackServer()
        server.route("/v1/status", response: .json(#"{"ok": true}"#))
        let statusURL = server.url("/v1/status")
        let performer = SocketRequestPerformer()
        let codes = try await withTaskExecutorPreference(SocketRequestPerformer.loopExecutor()) {
            var codes: [Int] = []
            for _ in 0..<100 {
                codes.append(try await performer.perform(URLRequest(url: statusURL)).status.code)
            }
            return codes
        }
        #expect(codes == Array(repeating: 200, count: 100))
    }

    /// Compiled, not run: it stops the process it runs in, which is what it reproduces.
    func urlSessionTrailerReproduction() {
        let done = DispatchSemaphore(value: 0)
        if let url = URL(string: "http://127.0.0.1:8099/") {
            URLSession.shared.dataTask(with: url) { data, response, error in
                print(data?.count as Any, error as Any)
                done.signal()
            }.resume()
            done.wait()
        }
    }

    /// Compiled, not run: there is no Docker engine here.
    func unixSocketByURL() async throws {
        if let url = URL(string: "http+unix://%2Fvar%2Frun%2Fdocker.sock/v1.43/containers/json") {
            let containers = try await SocketRequestPerformer().perform(URLRequest(url: url))
            print(containers.status)
        }
    }

    @Test func proxies() throws {
        let proxy = try Proxy(url: "http://user:secret@proxy.internal:3128")
        let configuration = SocketRequestPerformer.Configuration(
            proxies: Proxy.Settings(http: proxy, https: proxy, noProxy: ["localhost", ".internal", "10.0.0.0/8"])
        )
        let throughProxy = SocketRequestPerformer(configuration: configuration)
        let direct = SocketRequestPerformer(configuration: .init(proxies: .none))
        let url = try #require(URL(string: "https://example.com/"))
        #expect(try throughProxy.configuration.proxies.proxy(for: url) == proxy)
        #expect(try direct.configuration.proxies.proxy(for: url) == nil)
        let internalHost = try #require(URL(string: "http://db.internal/"))
        #expect(try throughProxy.configuration.proxies.proxy(for: internalHost) == nil)
    }

    /// The snippets of the types' own documentation: ``Proxy`` and ``Proxy/Settings``.
    @Test func proxyDocumentation() throws {
        let fromURL = try Proxy(url: "http://proxy.example:3128")
        let socks = Proxy(.socks5h, host: "127.0.0.1", port: 1080, username: "me", password: "secret")
        #expect(fromURL.port == 3128 && socks.kind == .socks5h)
        let proxy = try Proxy(url: "http://proxy.internal:3128")
        let throughProxy = SocketRequestPerformer.Configuration(
            proxies: Proxy.Settings(http: proxy, https: proxy, noProxy: ["localhost", "10.0.0.0/8", ".internal"])
        )
        let direct = SocketRequestPerformer.Configuration(proxies: .none)
        let url = try #require(URL(string: "http://example.com/"))
        #expect(try throughProxy.proxies.proxy(for: url) == proxy)
        #expect(try direct.proxies.proxy(for: url) == nil)
    }

    @Test func unixSocketByConfiguration() {
        let engine = SocketRequestPerformer(configuration: .init(unixSocketPath: "/var/run/docker.sock"))
        let api = APIClient(requestPerformer: engine)
        #expect(engine.configuration.unixSocketPath == "/var/run/docker.sock")
        #expect(api.requestPerformer is SocketRequestPerformer)
    }

    @Test func boundingDecompression() {
        var configuration = SocketRequestPerformer.Configuration()
        configuration.maximumDecompressionRatio = 1_000  // or nil for no bound
        configuration.decompressesBodies = true  // false hands every body over as sent
        let performer = SocketRequestPerformer(configuration: configuration)
        #expect(performer.configuration.maximumDecompressionRatio == 1_000)
        #expect(performer.configuration.decompressesBodies)
    }

    @Test func configuring() {
        var configuration = SocketRequestPerformer.Configuration()
        configuration.maximumConnectionsPerOrigin = 64
        configuration.connectTimeout = .seconds(2)
        configuration.maximumBodySize = 8 << 20
        let performer = SocketRequestPerformer(configuration: configuration)
        #expect(performer.configuration.maximumConnectionsPerOrigin == 64)
        #expect(performer.configuration.maximumBodySize == 8 << 20)
    }

    /// "Addresses", and `SocketRequestPerformer.AddressSettings`' own example: a slower attempt delay, and no answer
    /// kept.
    @Test func configuringAddresses() async throws {
        let server = try LoopbackServer()
        server.route("/ping", response: .json(#"{"n": 1}"#))
        var configuration = SocketRequestPerformer.Configuration()
        configuration.addresses.connectionAttemptDelay = .milliseconds(300)
        configuration.addresses.cacheLifetime = .zero
        let performer = SocketRequestPerformer(configuration: configuration)
        var request = URLRequest(url: server.url("/ping"))
        // A name, resolved, rather than the server's address.
        request.url = URL(string: "http://localhost:\(server.port)/ping")
        #expect(try await performer.perform(request).status.code == 200)
        #expect(performer.configuration.addresses.connectionAttemptDelay == .milliseconds(300))
    }

    @Test func configuringTLS() {
        var tls = TLSConfiguration()
        tls.additionalTrustRoots = [.file("/etc/company/ca.pem")]
        tls.pinnedPublicKeys = ["r/mIkG3eEpVdm+u/ko/cwxzOMo1bk4TyHIlByibiA5E="]
        tls.clientIdentity = .init(
            certificateChain: .file("/etc/company/client.pem"),
            privateKey: .file("/etc/company/client.key")
        )
        let performer = SocketRequestPerformer(configuration: .init(tls: tls))
        #expect(performer.configuration.tls.pinnedPublicKeys.count == 1)
        #expect(performer.configuration.tls.minimumVersion == .tls12)
        #expect(!performer.configuration.tls.insecurelySkippingVerification)
    }

    /// The example in ``TLSConfiguration``'s documentation.
    @Test func tlsConfigurationDocumentation() {
        var tls = TLSConfiguration()
        tls.additionalTrustRoots = [.file("/etc/company/ca.pem")]
        tls.pinnedPublicKeys = ["r/mIkG3eEpVdm+u/ko/cwxzOMo1bk4TyHIlByibiA5E="]
        let performer = SocketRequestPerformer(configuration: .init(tls: tls))
        #expect(performer.configuration.tls.additionalTrustRoots == [.file("/etc/company/ca.pem")])
    }
}

import Foundation
import SluiceCore
import SluiceTesting
import Testing

@testable import SluiceTransport

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Two clients in one process keep their cookies apart unless they are given one store: on both transports, with the
/// defaults a user gets from `APIClient()` and from each performer's initializer.
@Suite struct CookieIsolationTests {
    let server: LoopbackServer

    init() throws {
        server = try LoopbackServer()
        server.route("GET", "/login") { request in
            let user = request.queryItems.first { $0.name == "user" }?.value ?? "nobody"
            return LoopbackServer.Response.text("signed in").addingHeader("Set-Cookie", "session=\(user); Path=/")
        }
        server.route("/whoami") { request in .text(request.header("Cookie") ?? "(none)") }
    }

    /// A request whose response is its body's bytes, whatever they are.
    private struct Fetch: Request {
        typealias ResponseObject = Data
        let url: URL

        func build() throws -> URLRequest { URLRequest(url: url) }
    }

    /// Signs a client in as `user` and returns the `Cookie` field it then sends, as the server saw it.
    private func signIn(_ client: APIClient, as user: String, at origin: LoopbackOrigin) async throws -> String {
        _ = try await client.perform(Fetch(url: origin.url("/login?user=\(user)")))
        return try await cookie(sentBy: client, to: origin)
    }

    /// The `Cookie` field a client sends, as the server saw it, or `(none)`.
    private func cookie(sentBy client: APIClient, to origin: LoopbackOrigin) async throws -> String {
        String(decoding: try await client.perform(Fetch(url: origin.url("/whoami"))), as: UTF8.self)
    }

    /// The client the kind's default performer makes: `APIClient()` itself for Sluice's own transport over TCP (its
    /// default on Linux), `NetworkRequestPerformer()` for URLSession, and Sluice's own trusting the test root over TLS.
    private func defaultClient(_ kind: TransportKind) -> APIClient {
        switch kind {
        case .urlSession: APIClient(requestPerformer: NetworkRequestPerformer())
        case .sockets: APIClient()
        case .socketsOverTLS: APIClient(requestPerformer: kind.makeSocketPerformer())
        }
    }

    @Test(arguments: TransportKind.allCases)
    func aClientMadeLaterSendsNoneOfAnotherClientsCookies(_ kind: TransportKind) async throws {
        let origin = try await kind.origin(of: server)
        let alice = defaultClient(kind)
        #expect(try await signIn(alice, as: "alice", at: origin) == "session=alice")
        let bob = defaultClient(kind)
        #expect(try await cookie(sentBy: bob, to: origin) == "(none)", "a new client sent the first client's cookie")
        #expect(try await signIn(bob, as: "bob", at: origin) == "session=bob")
        // Each keeps its own across its requests.
        #expect(try await cookie(sentBy: alice, to: origin) == "session=alice")
        #expect(try await cookie(sentBy: bob, to: origin) == "session=bob")
    }

    @Test func twoPerformersFromOneConfigurationValueHaveAStoreEach() async throws {
        let configuration = SocketRequestPerformer.Configuration(maximumConnectionsPerOrigin: 4)
        let first = SocketRequestPerformer(configuration: configuration)
        let second = SocketRequestPerformer(configuration: configuration)
        let firstStore = try #require(first.cookieStorage, "a performer with the default keeps no cookies")
        let secondStore = try #require(second.cookieStorage, "a performer with the default keeps no cookies")
        #expect(firstStore !== secondStore)
        #expect(firstStore !== HTTPCookieStorage.shared)
        let origin = LoopbackOrigin(server: server, relay: nil)
        #expect(try await signIn(APIClient(requestPerformer: first), as: "alice", at: origin) == "session=alice")
        #expect(try await cookie(sentBy: APIClient(requestPerformer: second), to: origin) == "(none)")
    }

    @Test func socketPerformersGivenOneStoreShareIt() async throws {
        let jar = try #require(URLSessionConfiguration.ephemeral.httpCookieStorage)
        let sharing = SocketRequestPerformer.Configuration(cookies: .stored(in: jar))
        let web = APIClient(requestPerformer: SocketRequestPerformer(configuration: sharing))
        let api = APIClient(requestPerformer: SocketRequestPerformer(configuration: sharing))
        let origin = LoopbackOrigin(server: server, relay: nil)
        #expect(try await signIn(web, as: "alice", at: origin) == "session=alice")
        #expect(try await cookie(sentBy: api, to: origin) == "session=alice")
        #expect(jar.cookies?.map(\.value) == ["alice"])
    }

    @Test func urlSessionPerformersGivenOneStoreShareIt() async throws {
        let jar = try #require(URLSessionConfiguration.ephemeral.httpCookieStorage)
        func performer() -> NetworkRequestPerformer {
            let configuration = URLSessionConfiguration.ephemeral
            configuration.httpCookieStorage = jar
            return NetworkRequestPerformer(configuration: configuration)
        }
        let web = APIClient(requestPerformer: performer())
        let api = APIClient(requestPerformer: performer())
        let origin = LoopbackOrigin(server: server, relay: nil)
        #expect(try await signIn(web, as: "alice", at: origin) == "session=alice")
        #expect(try await cookie(sentBy: api, to: origin) == "session=alice")
    }

    @Test func aURLSessionPerformerWithTheDefaultHasAStoreOfItsOwn() throws {
        let first = try #require(NetworkRequestPerformer().cookieStorage, "URLSession's ephemeral session keeps none")
        let second = try #require(NetworkRequestPerformer().cookieStorage, "URLSession's ephemeral session keeps none")
        #expect(first !== second)
        #expect(first !== HTTPCookieStorage.shared)
        let noCookies = URLSessionConfiguration.ephemeral
        noCookies.httpShouldSetCookies = false
        #expect(NetworkRequestPerformer(configuration: noCookies).cookieStorage == nil)
    }

    @Test func theDefaultFallbackKeepsCookiesInThePerformersStore() throws {
        let performer = SocketRequestPerformer()
        let fallback = try #require(performer.fallback as? NetworkRequestPerformer)
        #expect(fallback.cookieStorage === performer.cookieStorage)
        let none = SocketRequestPerformer(configuration: .init(cookies: .disabled))
        let noneFallback = try #require(none.fallback as? NetworkRequestPerformer)
        #expect(none.cookieStorage == nil)
        #expect(noneFallback.cookieStorage == nil)
        let given = NetworkRequestPerformer()
        let withGiven = SocketRequestPerformer(configuration: .init(fallback: given))
        #expect(withGiven.fallback as? NetworkRequestPerformer === given)
    }

    @Test func theSharedChoiceIsTheProcesssStore() {
        // Only compared, never written to: the shared store is the process's, and on Linux it writes a file.
        let shared = SocketRequestPerformer.Configuration.Cookies.shared
        #expect(shared.storageForNewPerformer() === HTTPCookieStorage.shared)
    }
}

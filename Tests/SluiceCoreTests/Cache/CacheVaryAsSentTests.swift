import Foundation
import SluiceTesting
import SluiceTransport
import Testing

@testable import SluiceCore

/// `Vary` matched on the request as the transport sends it: the cookies of each client's own store, and the fields
/// its performers add, so that one cache shared by two clients serves each its own variant, and stores nothing it
/// could not match.
@Suite struct CacheVaryAsSentTests {
    typealias F = CacheFixtures

    /// A performer that sends every request with a cookie of its own, as a transport with a store of its own does,
    /// and says so in `requestAsSent(_:)`.
    private struct SessionPerformer: WrappingPerformer {
        let base: any RequestPerformer
        let session: String

        func perform(_ request: URLRequest) async throws -> HTTPResponse {
            try await base.perform(withCookie(request))
        }

        func requestAsSent(_ request: URLRequest) -> URLRequest {
            base.requestAsSent(withCookie(request))
        }

        private func withCookie(_ request: URLRequest) -> URLRequest {
            var request = request
            request.setValue("session=\(session)", forHTTPHeaderField: "Cookie")
            return request
        }
    }

    /// A performer that adds a field without saying so in `requestAsSent(_:)`.
    private struct TenantPerformer: WrappingPerformer {
        let base: any RequestPerformer
        var says = false

        func perform(_ request: URLRequest) async throws -> HTTPResponse {
            try await base.perform(withTenant(request))
        }

        func requestAsSent(_ request: URLRequest) -> URLRequest {
            base.requestAsSent(says ? withTenant(request) : request)
        }

        private func withTenant(_ request: URLRequest) -> URLRequest {
            var request = request
            request.setValue("acme", forHTTPHeaderField: "X-Tenant")
            return request
        }
    }

    /// A request whose response is its body's bytes.
    private struct Fetch: Request {
        typealias ResponseObject = Data
        let url: URL

        func build() throws -> URLRequest { URLRequest(url: url) }
    }

    @Test func eachCookieStateGetsItsOwnVariantFromOneCache() async throws {
        let origin = FakeOrigin { request, _ in
            HTTPResponse(
                status: .ok,
                headers: ["Cache-Control": "private, max-age=3600", "Vary": "Cookie"],
                body: Data("profile of \(request.value(forHTTPHeaderField: "Cookie") ?? "nobody")".utf8)
            )
        }
        let cache = HTTPCache()
        let alice = SessionPerformer(base: origin.performer, session: "alice").cached(in: cache)
        let bob = SessionPerformer(base: origin.performer, session: "bob").cached(in: cache)
        let request = F.request()
        #expect(try await alice.perform(request).cacheOutcome?.kind == .miss)
        let bobs = try await bob.perform(request)
        #expect(bobs.cacheOutcome == HTTPCache.Outcome(.miss), "one client was served another's variant")
        #expect(bobs.body == Data("profile of session=bob".utf8))
        let again = try await alice.perform(request)
        #expect(again.cacheOutcome?.kind == .hit)
        #expect(again.body == Data("profile of session=alice".utf8))
        #expect(try await bob.perform(request).body == Data("profile of session=bob".utf8))
        #expect(origin.count == 2)
    }

    /// The two clients the loopback tests sign in, each on a performer of the kind with a cookie store of its own,
    /// behind one cache.
    private struct TwoClients {
        let alice: APIClient
        let bob: APIClient
        let cache = HTTPCache()

        init(_ kind: TransportKind) {
            let performer = { kind == .urlSession ? kind.makePerformer() : kind.makeSocketPerformer() }
            alice = APIClient(requestPerformer: performer().cached(in: cache))
            bob = APIClient(requestPerformer: performer().cached(in: cache))
        }
    }

    @Test(arguments: TransportKind.allCases)
    func twoClientsWithTheirOwnCookiesShareACacheOverTheTransport(_ kind: TransportKind) async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let origin = try await kind.origin(of: server)
        let profileRequests = Locked(0)
        server.route("GET", "/login") { request in
            let user = request.queryItems.first { $0.name == "user" }?.value ?? "nobody"
            return LoopbackServer.Response.text("in").addingHeader("Set-Cookie", "session=\(user); Path=/")
        }
        server.route("GET", "/profile") { request in
            profileRequests.withLock { $0 += 1 }
            return LoopbackServer.Response.text("profile of \(request.header("Cookie") ?? "nobody")")
                .addingHeader("Cache-Control", "private, max-age=3600")
                .addingHeader("Vary", "Cookie")
        }
        let clients = TwoClients(kind)
        let profile = Fetch(url: origin.url("/profile"))
        _ = try await clients.alice.perform(Fetch(url: origin.url("/login?user=alice")))
        _ = try await clients.bob.perform(Fetch(url: origin.url("/login?user=bob")))

        let first = try await clients.alice.response(for: profile)
        #expect(first.cacheOutcome?.kind == .miss)
        #expect(first.value == Data("profile of session=alice".utf8))
        let bobs = try await clients.bob.response(for: profile)
        #expect(
            bobs.cacheOutcome?.kind == .miss,
            "bob was served alice's variant: \(String(decoding: bobs.value, as: UTF8.self))"
        )
        #expect(bobs.value == Data("profile of session=bob".utf8))
        #expect(profileRequests.withLock { $0 } == 2)

        let alicesAgain = try await clients.alice.response(for: profile)
        #expect(alicesAgain.cacheOutcome?.kind == .hit)
        #expect(alicesAgain.value == Data("profile of session=alice".utf8))
        let bobsAgain = try await clients.bob.response(for: profile)
        #expect(bobsAgain.cacheOutcome?.kind == .hit)
        #expect(bobsAgain.value == Data("profile of session=bob".utf8))
        #expect(profileRequests.withLock { $0 } == 2, "a hit reached the server")

        // A new cookie is a new state: the stored variant is not served to it.
        _ = try await clients.alice.perform(Fetch(url: origin.url("/login?user=carol")))
        let carols = try await clients.alice.response(for: profile)
        #expect(carols.cacheOutcome?.kind == .miss)
        #expect(carols.value == Data("profile of session=carol".utf8))
        #expect(profileRequests.withLock { $0 } == 3)
    }

    @Test(arguments: TransportKind.allCases)
    func aFieldAddedBelowTheCacheUnannouncedIsNotStored(_ kind: TransportKind) async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let origin = try await kind.origin(of: server)
        server.route("GET", "/tenant") { request in
            LoopbackServer.Response.text("for \(request.header("X-Tenant") ?? "anyone")")
                .addingHeader("Cache-Control", "max-age=3600")
                .addingHeader("Vary", "X-Tenant")
        }
        let transport = kind == .urlSession ? kind.makePerformer() : kind.makeSocketPerformer()
        let silent = TenantPerformer(base: transport).cached(in: HTTPCache())
        let request = URLRequest(url: origin.url("/tenant"))
        let refused = try await silent.perform(request)
        #expect(refused.body == Data("for acme".utf8))
        #expect(refused.cacheOutcome?.kind == .notStored)
        #expect(refused.cacheOutcome?.detail?.contains("varies on x-tenant") == true, "\(refused.cacheOutcome as Any)")
        #expect(try await silent.perform(request).cacheOutcome?.kind == .notStored)
        #expect(server.requestCount == 2)

        let announced = TenantPerformer(base: transport, says: true).cached(in: HTTPCache())
        #expect(try await announced.perform(request).cacheOutcome?.kind == .miss)
        let hit = try await announced.perform(request)
        #expect(hit.cacheOutcome?.kind == .hit)
        #expect(hit.body == Data("for acme".utf8))
        #expect(server.requestCount == 3)
    }

    @Test func anAuthorizationAddedBelowTheCacheIsNotStored() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("GET", "/me") { request in
            LoopbackServer.Response.text("me: \(request.header("Authorization") ?? "anonymous")")
                .addingHeader("Cache-Control", "private, max-age=3600")
        }
        let url = server.url("/me")
        let tokens = CredentialStore(
            credential: CredentialStore.Credential(authorization: "Bearer alice"),
            hosts: [url.host ?? ""]
        ) { _ in CredentialStore.Credential(authorization: "Bearer alice") }
        let below = SocketRequestPerformer().authenticated(by: tokens).cached(in: HTTPCache())
        let refused = try await below.perform(URLRequest(url: url))
        #expect(refused.body == Data("me: Bearer alice".utf8))
        #expect(refused.cacheOutcome?.kind == .notStored)
        #expect(
            refused.cacheOutcome?.detail?.contains("put the cache inside") == true,
            "\(refused.cacheOutcome as Any)"
        )

        let inside = SocketRequestPerformer().cached(in: HTTPCache()).authenticated(by: tokens)
        #expect(try await inside.perform(URLRequest(url: url)).cacheOutcome?.kind == .miss)
        #expect(try await inside.perform(URLRequest(url: url)).cacheOutcome?.kind == .hit)
        #expect(server.requestCount == 2)
    }

    @Test func aStubOrAUsersPerformerIsMatchedOnTheRequestAsItIs() async throws {
        let bench = CacheBench(FakeOrigin(["Cache-Control": "max-age=60", "Vary": "Cookie"]))
        #expect(try await bench.get(["Cookie": "a=1"]).cacheOutcome?.kind == .miss)
        #expect(try await bench.get(["Cookie": "a=1"]).cacheOutcome?.kind == .hit)
        #expect(try await bench.get(["Cookie": "a=2"]).cacheOutcome == HTTPCache.Outcome(.miss))
        #expect(bench.origin.count == 2)
    }
}

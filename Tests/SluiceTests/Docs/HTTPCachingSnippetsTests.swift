// The snippet of the "HTTP caching" article, verbatim, run against the loopback server.
import Foundation
import Sluice
import SluiceTesting
import Testing

@Suite struct HTTPCachingSnippetsTests {
    struct Profile: Decodable {
        let id: Int
    }

    struct GetProfile: Request {
        typealias ResponseObject = Profile
        /// The loopback server the test runs, for this test's task only.
        @TaskLocal static var server: URL?
        let id: Int

        func build() throws -> URLRequest {
            let base = try #require(GetProfile.server)
            return URLRequest(url: base.appendingPathComponent("profiles/\(id)"))
        }
    }

    @Test func cachesAcrossRequests() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route(
            "/profiles/42",
            response: LoopbackServer.Response.json(#"{"id": 42}"#).addingHeader("Cache-Control", "max-age=3600")
        )
        try await GetProfile.$server.withValue(server.baseURL) {
            try await snippet()
        }
        #expect(server.requestCount == 1)
    }

    /// "Variants and the request as sent": two clients with cookies of their own share one cache, and each is served
    /// its own variant of a `Vary: Cookie` response.
    @Test func sharesACacheBetweenClientsWithCookiesOfTheirOwn() async throws {
        struct Fetch: Request {
            typealias ResponseObject = Data
            let url: URL
            func build() throws -> URLRequest { URLRequest(url: url) }
        }
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/login") { request in
            let user = request.queryItems.first?.value ?? "nobody"
            return LoopbackServer.Response.text("in").addingHeader("Set-Cookie", "session=\(user); Path=/")
        }
        server.route("/me") { request in
            LoopbackServer.Response.text(request.header("Cookie") ?? "nobody")
                .addingHeader("Cache-Control", "private, max-age=3600").addingHeader("Vary", "Cookie")
        }

        let shared = HTTPCache()
        let alice = APIClient(requestPerformer: SocketRequestPerformer().cached(in: shared))
        let bob = APIClient(requestPerformer: SocketRequestPerformer().cached(in: shared))
        // A `Vary: Cookie` response stored for Alice's cookies is never served for Bob's.

        _ = try await alice.perform(Fetch(url: server.url("/login?user=alice")))
        _ = try await bob.perform(Fetch(url: server.url("/login?user=bob")))
        let me = Fetch(url: server.url("/me"))
        for _ in 0..<2 {
            #expect(try await alice.perform(me) == Data("session=alice".utf8))
            #expect(try await bob.perform(me) == Data("session=bob".utf8))
        }
        #expect(server.requestCount == 4)
    }

    /// The article's snippet, with its checks.
    private func snippet() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("api-cache")
        let cache = HTTPCache(store: try .disk(at: directory, limit: 50 << 20))
        let client = APIClient(
            requestPerformer: SocketRequestPerformer()
                .retrying()
                .cached(in: cache)
                .logged()
        )
        let first = try await client.response(for: GetProfile(id: 42))
        let second = try await client.response(for: GetProfile(id: 42))
        print(first.cacheOutcome?.kind ?? "-", second.cacheOutcome?.kind ?? "-")  // miss hit

        #expect(first.cacheOutcome?.kind == .miss)
        #expect(second.cacheOutcome?.kind == .hit)
        try? FileManager.default.removeItem(at: directory)
    }
}

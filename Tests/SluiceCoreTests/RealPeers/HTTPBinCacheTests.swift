import Foundation
import SluiceCore
import SluiceTesting
import Testing

/// The HTTP cache against httpbin's caching endpoints: `/cache/{n}`, `/cache`, `/etag/{etag}` and
/// `/response-headers`, over Sluice's own transport.
@Suite(.enabled(if: httpbin != nil || peersRequired, "SLUICE_HTTPBIN_URL is not set: no httpbin to test against"))
struct HTTPBinCacheTests {
    let base: URL
    let clock = TestClock()
    let performer: CachingPerformer

    init() throws {
        base = try #require(httpbin, "SLUICE_REQUIRE_PEERS is set, but SLUICE_HTTPBIN_URL is not")
        performer = SocketRequestPerformer().cached(in: HTTPCache(clock: clock))
    }

    private func get(_ path: String, _ headers: [String: String] = [:]) async throws -> HTTPResponse {
        var request = URLRequest(url: try #require(URL(string: path, relativeTo: base)))
        for (name, value) in headers {
            request.setValue(value, forHTTPHeaderField: name)
        }
        return try await performer.perform(request)
    }

    /// `/cache/{n}` sends `Cache-Control: public, max-age=n`: fresh for n seconds, and its body (which names the
    /// request's id) the same while it is.
    @Test func servesCacheNWhileFresh() async throws {
        let first = try await get("/cache/30")
        #expect(first.cacheOutcome?.kind == .miss)
        clock.advance(by: .seconds(29))
        let hit = try await get("/cache/30")
        #expect(hit.cacheOutcome?.kind == .hit)
        #expect(hit.body == first.body)
        #expect(hit.headers[.age].flatMap { Int($0) }.map { $0 >= 29 } == true)
        clock.advance(by: .seconds(2))
        #expect(try await get("/cache/30").cacheOutcome?.kind == .miss)
    }

    /// `/cache` answers 304 to any conditional request: the cache validates with the Last-Modified and ETag it
    /// stored, and serves the stored body.
    @Test func revalidatesCache() async throws {
        let first = try await get("/cache")
        #expect(first.cacheOutcome?.kind == .miss)
        clock.advance(by: .seconds(1))
        let second = try await get("/cache")
        #expect(second.cacheOutcome?.kind == .revalidated)
        #expect(second.status == .ok)
        #expect(second.body == first.body)
    }

    /// `/etag/{etag}` answers 304 when If-None-Match names its tag: the cache's own validation gets one, and so does
    /// the client's conditional request, passed through as a 304.
    @Test func validatesByETag() async throws {
        #expect(try await get("/etag/sluice").cacheOutcome?.kind == .miss)
        let revalidated = try await get("/etag/sluice")
        #expect(revalidated.cacheOutcome?.kind == .revalidated)
        #expect(revalidated.status == .ok)
        let own = try await get("/etag/sluice", ["If-None-Match": "sluice"])
        #expect(own.status == .notModified)
    }

    /// `/response-headers` sets the directives: `no-store` is not stored, `Vary: *` matches nothing, max-age with
    /// must-revalidate is served while fresh and never stale,
    /// even to a request that accepts staleness.
    @Test func followsDirectivesFromResponseHeaders() async throws {
        let noStore = try await get("/response-headers?Cache-Control=no-store")
        #expect(noStore.cacheOutcome == HTTPCache.Outcome(.notStored, detail: "the response says no-store"))
        let varyStar = try await get("/response-headers?Cache-Control=max-age%3D60&Vary=*")
        #expect(varyStar.cacheOutcome == HTTPCache.Outcome(.notStored, detail: "Vary: * matches no later request"))
        let path = "/response-headers?Cache-Control=max-age%3D60%2C%20must-revalidate"
        #expect(try await get(path).cacheOutcome?.kind == .miss)
        #expect(try await get(path).cacheOutcome?.kind == .hit)
        clock.advance(by: .seconds(61))
        #expect(try await get(path, ["Cache-Control": "max-stale=600"]).cacheOutcome?.kind == .miss)
    }

    /// Two clients, each with the cookie store of its own performer, share one cache: a `Vary: Cookie` response
    /// stored for one is not served to the other, on either transport, and each is then served its own.
    @Test(arguments: ["sockets", "urlSession"])
    func servesEachCookieStateItsOwnVariant(_ transport: String) async throws {
        let cache = HTTPCache(clock: clock)
        func client() -> CachingPerformer {
            let performer: any RequestPerformer =
                transport == "sockets" ? SocketRequestPerformer() : NetworkRequestPerformer()
            return performer.cached(in: cache)
        }
        let alice = client()
        let bob = client()
        let nobody = client()
        func get(_ performer: CachingPerformer, _ path: String) async throws -> HTTPResponse {
            try await performer.perform(URLRequest(url: try #require(URL(string: path, relativeTo: base))))
        }
        _ = try await get(alice, "/cookies/set?session=alice")
        _ = try await get(bob, "/cookies/set?session=bob")
        let varying = "/response-headers?Vary=Cookie&Cache-Control=private%2C%20max-age%3D60"
        #expect(try await get(alice, varying).cacheOutcome?.kind == .miss)
        let bobs = try await get(bob, varying)
        #expect(bobs.cacheOutcome == HTTPCache.Outcome(.miss), "one client was served another's variant")
        #expect(try await get(nobody, varying).cacheOutcome?.kind == .miss)
        #expect(try await get(alice, varying).cacheOutcome?.kind == .hit)
        #expect(try await get(bob, varying).cacheOutcome?.kind == .hit)
        #expect(try await get(nobody, varying).cacheOutcome?.kind == .hit)
    }
}

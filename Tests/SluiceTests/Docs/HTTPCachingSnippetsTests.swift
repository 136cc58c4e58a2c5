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
            response: LoopbackServer.Response.json(#"{"id": 42}"#).addingHeader("Cache-Control", "max-age=60")
        )
        try await GetProfile.$server.withValue(server.baseURL) {
            try await snippet()
        }
        #expect(server.requestCount == 1)
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

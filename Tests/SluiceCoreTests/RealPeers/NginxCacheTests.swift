import Foundation
import SluiceCore
import SluiceTesting
import Testing

/// The HTTP cache in front of each transport, against nginx's static files: `expires`, `add_header Cache-Control`,
/// and the `ETag` and `Last-Modified` nginx gives every file, with nginx's access log counting the requests that
/// reached it.
@Suite(
    .serialized,
    .enabled(if: NginxServer.executable != nil || NginxServer.isRequired, Comment(rawValue: NginxServer.missingReason))
)
struct NginxCacheTests {
    /// The server, new for each test.
    let server: NginxServer

    /// Starts the server, or fails when the peers are required and nginx is missing.
    init() async throws {
        server = try #require(
            try await NginxServer.startOffThePool(),
            "SLUICE_REQUIRE_PEERS is set, but nginx is missing"
        )
    }

    /// The requests that reached nginx, once every one before the sentinel is written to its log.
    private func originLog(_ performer: any RequestPerformer) async throws -> [String] {
        _ = try await performer.perform(URLRequest(url: server.url("/cache/sentinel")))
        return server.cacheAccessLog
    }

    @Test(arguments: TransportKind.plainCases)
    func servesWhatExpiresAllowsWithoutTheOrigin(_ kind: TransportKind) async throws {
        let transport = kind.makePerformer()
        let clock = TestClock()
        let performer = transport.cached(in: HTTPCache(clock: clock))
        let request = URLRequest(url: server.url("/cache/expires/small.json"))
        let first = try await performer.perform(request)
        #expect(first.cacheOutcome?.kind == .miss)
        #expect(first.headers[.cacheControl] == "max-age=60")
        for _ in 0..<3 {
            let hit = try await performer.perform(request)
            #expect(hit.cacheOutcome?.kind == .hit)
            #expect(hit.body == NginxServer.smallJSON)
        }
        #expect(try await originLog(transport) == ["GET /cache/expires/small.json 200"])
        clock.advance(by: .seconds(61))
        let revalidated = try await performer.perform(request)
        #expect(revalidated.cacheOutcome?.kind == .revalidated)
        #expect(revalidated.body == NginxServer.smallJSON)
        #expect(try await originLog(transport).last == "GET /cache/expires/small.json 304")
    }

    @Test(arguments: TransportKind.plainCases)
    func revalidatesNoCacheEveryTime(_ kind: TransportKind) async throws {
        let transport = kind.makePerformer()
        let performer = transport.cached(in: HTTPCache())
        let request = URLRequest(url: server.url("/cache/no-cache/users.json"))
        #expect(try await performer.perform(request).cacheOutcome?.kind == .miss)
        for _ in 0..<2 {
            let answer = try await performer.stream(request)
            #expect(answer.cacheOutcome?.kind == .revalidated)
            #expect(try await answer.body.collect(upTo: .max) == NginxServer.usersJSON)
        }
        #expect(
            try await originLog(transport) == [
                "GET /cache/no-cache/users.json 200", "GET /cache/no-cache/users.json 304",
                "GET /cache/no-cache/users.json 304",
            ]
        )
    }

    /// 4.2.2: a file last modified 1000 s ago is fresh for a tenth of that, then validated by its ETag.
    @Test func givesAHeuristicLifetimeFromLastModified() async throws {
        let file = server.directory.appendingPathComponent("www/large.bin")
        try FileManager.default.setAttributes(
            [.modificationDate: Date().addingTimeInterval(-1000)],
            ofItemAtPath: file.path
        )
        let transport = SocketRequestPerformer()
        let clock = TestClock()
        let performer = transport.cached(in: HTTPCache(clock: clock))
        let request = URLRequest(url: server.url("/cache/validators/large.bin"))
        #expect(try await performer.perform(request).cacheOutcome?.kind == .miss)
        clock.advance(by: .seconds(90))
        #expect(try await performer.perform(request).cacheOutcome?.kind == .hit)
        clock.advance(by: .seconds(20))
        let revalidated = try await performer.perform(request)
        #expect(revalidated.cacheOutcome?.kind == .revalidated)
        #expect(revalidated.body == NginxServer.largeBinary)
        #expect(
            try await originLog(transport) == [
                "GET /cache/validators/large.bin 200", "GET /cache/validators/large.bin 304",
            ]
        )
    }
}

import Foundation
import SluiceTesting
import Testing

@testable import SluiceCore

/// The cache over both transports against the loopback server, and over the test doubles.
@Suite struct CacheTransportTests {
    @Test func turnsOffURLSessionsOwnCache() {
        let configuration = URLSessionConfiguration.default
        configuration.urlCache = URLCache(memoryCapacity: 1 << 20, diskCapacity: 0, diskPath: nil)
        #expect(!NetworkRequestPerformer().usesURLCache)
        #expect(!NetworkRequestPerformer(configuration: configuration).usesURLCache)
        // The caller's configuration is left as it was.
        #expect(configuration.urlCache != nil)
    }

    @Test(arguments: TransportKind.allCases)
    func cachesAndRevalidatesOverTheTransport(_ kind: TransportKind) async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let origin = try await kind.origin(of: server)
        server.route("/item") { request in
            if request.header("If-None-Match") == "\"v1\"" {
                return LoopbackServer.Response(status: 304, headers: [.init("ETag", "\"v1\"")])
            }
            return LoopbackServer.Response(
                headers: [.init("Cache-Control", "max-age=60"), HTTPHeaders.Field("ETag", "\"v1\"")],
                body: Data("item".utf8)
            )
        }
        let clock = TestClock()
        let performer = kind.makePerformer().cached(in: HTTPCache(clock: clock))
        let request = URLRequest(url: origin.url("/item"))
        #expect(try await performer.perform(request).cacheOutcome?.kind == .miss)
        let hit = try await performer.stream(request)
        #expect(hit.cacheOutcome?.kind == .hit)
        #expect(try await hit.body.collect(upTo: 100) == Data("item".utf8))
        #expect(server.requestCount == 1)
        clock.advance(by: .seconds(61))
        let revalidated = try await performer.perform(request)
        #expect(revalidated.cacheOutcome?.kind == .revalidated)
        #expect(revalidated.body == Data("item".utf8))
        #expect(server.requestCount == 2)
    }

    @Test func playsMockStubsThroughTheCache() async throws {
        let cache = HTTPCache()
        let mock = MockClient(middleware: { $0.cached(in: cache) })
        let request = RawRequest(url: CacheFixtures.url)
        let response = HTTPResponse(status: .ok, headers: ["Cache-Control": "max-age=3600"], body: Data("one".utf8))
        mock.stub(RawRequest.self, .http(response))
        #expect(try await mock.perform(request) == Data("one".utf8))
        let second = try await mock.stream(request)
        #expect(second.cacheOutcome?.kind == .hit)
        #expect(try await second.body.collect(upTo: 100) == Data("one".utf8))
    }

    @Test func replaysRecordedFixturesThroughTheCache() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-fixtures-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let origin = FakeOrigin(["Cache-Control": "max-age=3600"], body: "recorded")
        let recorder = RecordingPerformer(base: origin.performer, directory: directory)
        let recording = recorder.cached(in: HTTPCache())
        _ = try await recording.perform(CacheFixtures.request())
        #expect(try await recording.perform(CacheFixtures.request()).cacheOutcome?.kind == .hit)
        #expect(origin.count == 1)
        let replaying = try ReplayingPerformer(directory: directory).cached(in: HTTPCache())
        let replayed = try await replaying.perform(CacheFixtures.request())
        #expect(replayed.body == Data("recorded".utf8))
        #expect(replayed.cacheOutcome?.kind == .miss)
    }
}

/// A request for raw bytes.
private struct RawRequest: Request {
    typealias ResponseObject = Data
    var url: URL

    func build() throws -> URLRequest { URLRequest(url: url) }
}

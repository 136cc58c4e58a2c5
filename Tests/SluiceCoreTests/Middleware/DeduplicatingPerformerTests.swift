import ClientFixtures
import Foundation
import SluiceCore
import SluiceTesting
import Testing

private struct Feed: Request {
    typealias ResponseObject = Data
    var url: URL

    func build() throws -> URLRequest { URLRequest(url: url) }
}

@Suite struct DeduplicatingPerformerTests {
    let server: LoopbackServer
    /// The clock the slow feed answers on, moved only by the tests.
    let clock: TestClock
    /// A feed that answers 3 seconds after it is asked, on the test clock.
    let slowFeed: StubPerformer
    let feedURL: URL

    init() throws {
        server = try LoopbackServer()
        let clock = TestClock()
        self.clock = clock
        slowFeed = StubPerformer { _ in
            try await clock.sleep(for: .seconds(3))
            return HTTPResponse(status: .ok, body: Data("the feed".utf8))
        }
        feedURL = try #require(URL(string: "https://api.example.com/feed"))
    }

    /// Starts `count` callers of the feed and waits until all of them wait for the one shared call.
    private func callers(
        _ count: Int,
        of performer: DeduplicatingPerformer,
        client: APIClient
    ) async throws -> [Task<Data, any Error>] {
        let url = feedURL
        let tasks = (0..<count).map { _ in Task { try await client.perform(Feed(url: url)) } }
        await clock.waitForSleepers()
        try await performer.callersWaitingGauge.wait(for: "\(count) callers waiting") { $0 == count }
        return tasks
    }

    @Test func sharesOneTransportCallAmongTwentyIdenticalGets() async throws {
        let performer = slowFeed.deduplicated()
        let tasks = try await callers(20, of: performer, client: APIClient(requestPerformer: performer))
        clock.advance(by: .seconds(3))
        for task in tasks {
            #expect(try await task.value == Data("the feed".utf8))
        }
        #expect(slowFeed.requests.count == 1)
    }

    @Test func letsOneCallerCancelWithoutDisturbingTheOthers() async throws {
        let performer = slowFeed.deduplicated()
        let tasks = try await callers(20, of: performer, client: APIClient(requestPerformer: performer))
        tasks[0].cancel()
        let cancelled = try await #require(throws: SluiceError.self) { try await tasks[0].value }
        #expect(cancelled.code == .cancelled)
        // The cancelled caller has stopped waiting while the shared call, 3 s long, is still in flight.
        #expect(performer.callsInFlight == 1)
        #expect(performer.callersWaiting == 19)
        clock.advance(by: .seconds(3))
        for task in tasks.dropFirst() {
            #expect(try await task.value == Data("the feed".utf8))
        }
        #expect(slowFeed.requests.count == 1)
        #expect(performer.callsInFlight == 0)
    }

    @Test func cancelsTheCallWhenEveryCallerHasGone() async throws {
        let arrived = Signal("the shared request at the server")
        server.route("GET", "/slow-feed") { _ in
            arrived.fire()
            return LoopbackServer.Response(body: Data("late".utf8), delay: .seconds(30))
        }
        let performer = NetworkRequestPerformer().deduplicated()
        let client = APIClient(requestPerformer: performer)
        let url = server.url("/slow-feed")
        let tasks = (0..<3).map { _ in Task { try await client.perform(Feed(url: url)) } }
        try await arrived.wait()
        for task in tasks {
            task.cancel()
        }
        for task in tasks {
            await #expect(throws: SluiceError.self) { try await task.value }
        }
        try await performer.callsInFlightGauge.wait(for: "the shared call to end") { $0 == 0 }
        try await server.openConnectionsGauge.wait(for: "its connection to close") { $0 == 0 }
        #expect(performer.callsInFlight == 0)
        #expect(server.openConnections == 0)
        // A new caller starts a new call rather than joining the cancelled one.
        server.route("GET", "/slow-feed", response: .text("fresh"))
        #expect(try await client.perform(Feed(url: url)) == Data("fresh".utf8))
    }

    @Test func cancelsTheCallWhenEveryCallerLeftBeforeItBeganToWait() async throws {
        // A caller cancelled before it waits for the shared call (here, one whose task is cancelled already) leaves
        // at once; when no caller is left, the call must be cancelled too, not run on for nobody.
        let performer = slowFeed.deduplicated()
        let request = URLRequest(url: feedURL)
        let caller = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await performer.perform(request)
        }
        await #expect(throws: CancellationError.self) { try await caller.value }
        try await performer.callsInFlightGauge.wait(for: "the shared call to end") { $0 == 0 }
        #expect(performer.callsInFlight == 0)
        #expect(performer.callersWaiting == 0)
    }

    @Test func neverSharesRequestsWithABodyOrOtherHeaders() async throws {
        server.route("/echo") { request in .text(request.method + " " + (request.header("X-Variant") ?? "")) }
        let client = APIClient(requestPerformer: NetworkRequestPerformer().deduplicated())
        struct Variant: Request {
            typealias ResponseObject = Data
            var url: URL
            var variant: String
            var method = "GET"
            func build() throws -> URLRequest {
                var request = URLRequest(url: url)
                request.httpMethod = method
                request.setValue(variant, forHTTPHeaderField: "X-Variant")
                if method == "POST" {
                    request.httpBody = Data("x".utf8)
                }
                return request
            }
        }
        let url = server.url("/echo")
        async let first = client.perform(Variant(url: url, variant: "a"))
        async let second = client.perform(Variant(url: url, variant: "b"))
        async let third = client.perform(Variant(url: url, variant: "a", method: "POST"))
        let results = try await [first, second, third]
        #expect(results.map { String(decoding: $0, as: UTF8.self) } == ["GET a", "GET b", "POST a"])
        #expect(server.receivedRequests.count == 3)
    }
}

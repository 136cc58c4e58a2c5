import Foundation
import SluiceCore
import SluiceTesting
import Testing

@Suite struct DeadlineTests {
    struct Slow: Request {
        typealias ResponseObject = JSON
        var url: URL
        func build() throws -> URLRequest { URLRequest(url: url) }
    }

    @Test func cancelsATransportStillRunningAtTheDeadline() async throws {
        let server = try LoopbackServer()
        server.route("GET", "/slow", response: LoopbackServer.Response(body: Data("{}".utf8), delay: .seconds(30)))
        let clock = TestClock()
        let client = APIClient(deadline: .milliseconds(300), clock: clock)
        let task = Task { try await client.perform(Slow(url: server.url("/slow"))) }
        await clock.waitForSleepers()
        #expect(clock.sleepers == [clock.now.advanced(by: .milliseconds(300))])
        clock.advance(by: .milliseconds(300))
        let error = try await #require(throws: SluiceError.self) { try await task.value }
        #expect(error.code == .timedOut)
        #expect(error.stage == .transport)
        #expect(error.message == "the request passed its deadline of 300.00ms during the transport stage")
    }

    /// A deserializer as slow as a large document on a slow device, on the test's clock.
    struct SlowDeserializer: Deserializer {
        let clock: TestClock
        let takes: Duration

        func deserialize(_ data: Data) throws -> Any {
            clock.advance(by: takes)
            return try JSONDeserializer().deserialize(data)
        }
    }

    /// A parser as slow as a large model on a slow device, on the test's clock.
    struct SlowParse: Request {
        typealias ResponseObject = Int
        let clock: TestClock
        func build() throws -> URLRequest { URLRequest(url: URL(filePath: "/count")) }
        func parse(_ json: JSON) throws -> Int {
            clock.advance(by: .milliseconds(400))
            return json["count"]?.int ?? 0
        }
    }

    @Test func reportsTheStageADeadlineRanOutIn() async throws {
        let clock = TestClock()
        let client = APIClient(
            requestPerformer: StubPerformer.json("{}"),
            deserializer: SlowDeserializer(clock: clock, takes: .milliseconds(400)),
            deadline: .milliseconds(200),
            clock: clock
        )
        let error = try await #require(throws: SluiceError.self) {
            try await client.perform(Slow(url: try #require(URL(string: "https://example.com"))))
        }
        #expect(error.code == .timedOut)
        #expect(error.stage == .deserialize)
        #expect(error.message == "the request passed its deadline of 200.00ms during the deserialize stage")
    }

    @Test func aDeadlinePassedWhileParsingNamesTheParseStage() async throws {
        let clock = TestClock()
        let client = APIClient(
            requestPerformer: StubPerformer.json(#"{"count": 3}"#),
            deadline: .milliseconds(200),
            clock: clock
        )
        let error = try await #require(throws: SluiceError.self) { try await client.perform(SlowParse(clock: clock)) }
        #expect(error.code == .timedOut)
        #expect(error.stage == .parse)
        #expect(error.message == "the request passed its deadline of 200.00ms during the parse stage")
    }

    @Test func letsARequestWithinItsDeadlineThrough() async throws {
        // On a test clock that never moves, however busy the machine is.
        let clock = TestClock()
        let client = APIClient(
            requestPerformer: StubPerformer.json(#"{"a": 1}"#),
            deadline: .milliseconds(1),
            clock: clock
        )
        #expect(try await client.perform(Slow(url: try #require(URL(string: "https://example.com"))))["a"]?.int == 1)
    }
}

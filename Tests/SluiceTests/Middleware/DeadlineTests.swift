import Foundation
import Sluice
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
        server.route("GET", "/slow", response: LoopbackResponse(body: Data("{}".utf8), delay: .seconds(30)))
        let client = APIClient(deadline: .milliseconds(300))
        let start = ContinuousClock.now
        let error = try await #require(throws: SluiceError.self) {
            try await client.perform(Slow(url: server.url("/slow")))
        }
        #expect(error.code == .timedOut)
        #expect(error.stage == .transport)
        #expect(error.message == "the request passed its deadline during the transport stage")
        #expect(ContinuousClock.now - start < .seconds(10))
    }

    @Test func reportsTheStageADeadlineRanOutIn() async throws {
        /// A deserializer as slow as a large document on a slow device.
        struct SlowDeserializer: Deserializer {
            func deserialize(_ data: Data) throws -> Any {
                Thread.sleep(forTimeInterval: 0.4)
                return try JSONDeserializer().deserialize(data)
            }
        }
        let stub = StubPerformer.json("{}")
        let client = APIClient(requestPerformer: stub, deserializer: SlowDeserializer(), deadline: .milliseconds(200))
        let error = try await #require(throws: SluiceError.self) {
            try await client.perform(Slow(url: try #require(URL(string: "https://example.com"))))
        }
        #expect(error.code == .timedOut)
        #expect(error.stage == .deserialize)
        #expect(error.message == "the request passed its deadline of 200.00ms during the deserialize stage")
    }

    @Test func letsARequestWithinItsDeadlineThrough() async throws {
        // Generous, so that a machine busy with the soak test, under a sanitizer, still finishes well within it.
        let client = APIClient(requestPerformer: StubPerformer.json(#"{"a": 1}"#), deadline: .seconds(120))
        #expect(try await client.perform(Slow(url: try #require(URL(string: "https://example.com"))))["a"]?.int == 1)
    }
}

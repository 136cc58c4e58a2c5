import ClientFixtures
// The snippets of the "Typed streams" article, verbatim, each reading the article's price feed or sensor readings
// from a client whose performer plays them in the chunks the article describes; and the diagnostic the article
// shows, produced by the body it describes.
import Foundation
import Sluice
import SluiceTesting
import Testing

private struct Reading: Decodable, Sendable {
    let sensor: String
    let value: Double
}

private func total(of request: some Request, from client: some Client) async throws -> Double {
    var total = 0.0
    for try await reading in try await client.jsonLines(request, of: Reading.self) {
        total += reading.value
    }
    return total
}

private struct PriceFeed: Request {
    typealias ResponseObject = Data
    let symbol: String

    func build() throws -> URLRequest {
        URLRequest(url: URL(fileURLWithPath: "/prices/\(symbol)"))
    }
}

private struct SensorReadings: Request {
    typealias ResponseObject = Data

    func build() throws -> URLRequest {
        URLRequest(url: URL(fileURLWithPath: "/readings"))
    }
}

/// A client whose every streamed response is the given chunks, with a short pause between two, so that each
/// arrives on its own.
private func clientPlaying(_ chunks: [String], contentType: String) -> APIClient {
    var parts: [MockClient.StreamScript.Part] = []
    for chunk in chunks {
        if !parts.isEmpty {
            parts.append(.pause(.milliseconds(1)))
        }
        parts.append(.text(chunk))
    }
    return APIClient(
        requestPerformer: StubPerformer(
            streaming: MockClient.StreamScript(headers: [.contentType: contentType], parts: parts)
        )
    )
}

/// The article's price feed: two events, the second cut across two chunks.
private let priceFeed = ["event: price\ndata: 42.5\nid: 7\n\nda", "ta: 43\n\n"]

@Suite struct StreamingSnippetsTests {
    @Test func serverSentEvents() async throws {
        let client = clientPlaying(priceFeed, contentType: "text/event-stream")
        let printed = try await SnippetOutput.collect {
            for try await event in try await client.events(PriceFeed(symbol: "ACME"), reconnecting: nil) {
                print(event.type, event.data, event.lastEventID)
            }
        }
        #expect(printed == ["price 42.5 7", "message 43 7"])
    }

    @Test func jsonLines() async throws {
        let client = clientPlaying(
            ["{\"sensor\":\"a\",\"value\":1.5}\n\n{\"sensor\":\"b\",", "\"value\":2}\n"],
            contentType: "application/x-ndjson"
        )
        #expect(try await total(of: SensorReadings(), from: client) == 3.5)
    }

    @Test func lines() async throws {
        let client = clientPlaying(priceFeed, contentType: "text/event-stream")
        let printed = try await SnippetOutput.collect {
            for try await line in try await client.lines(PriceFeed(symbol: "ACME")) {
                print(line)
            }
        }
        #expect(printed == ["event: price", "data: 42.5", "id: 7", "", "data: 43", ""])
    }

    @Test func limitsAndErrors() async throws {
        let client = clientPlaying(
            ["{\"sensor\":\"a\",\"value\":1}\n\n{\"sensor\":\"b\",}\n"],
            contentType: "application/x-ndjson"
        )
        let printed = try await SnippetOutput.collect {
            do {
                let readings = try await client.jsonLines(SensorReadings(), of: Reading.self, maximumLineLength: 4096)
                for try await reading in readings {
                    print(reading.sensor)
                }
            } catch let error as SluiceError {
                if let parseError = error.underlyingError as? StreamParseError {
                    print(parseError.line, parseError.code)
                }
            }
        }
        #expect(printed == ["a", "3 invalid JSON"])
    }

    @Test func theDiagnosticTheArticleShows() async throws {
        let client = clientPlaying(
            ["{\"sensor\":\"a\",\"value\":1}\n\n{\"sensor\":\"b\",}\n"],
            contentType: "application/x-ndjson"
        )
        let error = await #expect(throws: SluiceError.self) {
            try await client.jsonLines(SensorReadings(), of: Reading.self).collected()
        }
        #expect(error?.stage == .deserialize)
        let parseError = try #require(error?.underlyingError as? StreamParseError)
        #expect(
            parseError.description == """
                error: invalid JSON: expected a string key, found '}'
                  --> stream line 3, column 15
                   |
                 3 | {"sensor":"b",}
                   |               ^
                """
        )
    }

    @Test func aLinePastItsLimitEndsTheStreamInTheDeserializeStage() async throws {
        let client = clientPlaying(["{\"sensor\":\"a\",", "\"value\":1}\n"], contentType: "application/x-ndjson")
        let error = await #expect(throws: SluiceError.self) {
            try await client.jsonLines(SensorReadings(), of: Reading.self, maximumLineLength: 16).collected()
        }
        #expect(error?.stage == .deserialize)
        #expect((error?.underlyingError as? StreamParseError)?.code == .lineTooLong)
    }

    @Test func aRecordOfTheWrongShapeEndsTheStreamInTheParseStage() async throws {
        let client = clientPlaying(["{\"sensor\":\"a\",\"value\":\"high\"}\n"], contentType: "application/x-ndjson")
        let error = await #expect(throws: SluiceError.self) {
            try await client.jsonLines(SensorReadings(), of: Reading.self).collected()
        }
        #expect(error?.stage == .parse)
        #expect((error?.underlyingError as? StreamParseError)?.code == .decodingFailed)
    }
}

import ClientFixtures
// The snippets of the "Typed streams" article, verbatim, each after the article's body snippet, which makes the
// `body` they read; and the diagnostic the article shows, produced by the body it describes.
import Foundation
import Sluice
import Testing

private struct Reading: Decodable, Sendable {
    let sensor: String
    let value: Double
}

private func total<Body: AsyncSequence>(of body: Body) async throws -> Double where Body.Element == Data {
    var total = 0.0
    for try await reading in body.jsonLines(of: Reading.self) {
        total += reading.value
    }
    return total
}

/// The article's body: two events, the second cut across two chunks.
private func articleBody() -> AsyncStream<Data> {
    let (body, input) = AsyncStream.makeStream(of: Data.self)
    input.yield(Data("event: price\ndata: 42.5\nid: 7\n\nda".utf8))
    input.yield(Data("ta: 43\n\n".utf8))
    input.finish()
    return body
}

@Suite struct StreamingSnippetsTests {
    @Test func serverSentEvents() async throws {
        let body = articleBody()
        let printed = try await SnippetOutput.collect {
            for try await event in body.serverSentEvents() {
                print(event.type, event.data, event.lastEventID)
            }
        }
        #expect(printed == ["price 42.5 7", "message 43 7"])
    }

    @Test func jsonLines() async throws {
        let (body, input) = AsyncStream.makeStream(of: Data.self)
        input.yield(Data("{\"sensor\":\"a\",\"value\":1.5}\n\n{\"sensor\":\"b\",".utf8))
        input.yield(Data("\"value\":2}\n".utf8))
        input.finish()
        #expect(try await total(of: body) == 3.5)
    }

    @Test func lines() async throws {
        let body = articleBody()
        let printed = try await SnippetOutput.collect {
            for try await line in body.lines() {
                print(line)
            }
        }
        #expect(printed == ["event: price", "data: 42.5", "id: 7", "", "data: 43", ""])
    }

    @Test func limitsAndErrors() async throws {
        let (body, input) = AsyncStream.makeStream(of: Data.self)
        input.yield(Data("{\"sensor\":\"a\",\"value\":1}\n\n{\"sensor\":\"b\",}\n".utf8))
        input.finish()
        let printed = try await SnippetOutput.collect {
            do {
                for try await reading in body.jsonLines(of: Reading.self, maximumLineLength: 4096) {
                    print(reading.sensor)
                }
            } catch let error as StreamParseError {
                print(error.line, error.code)
            }
        }
        #expect(printed == ["a", "3 invalid JSON"])
    }

    @Test func theDiagnosticTheArticleShows() async throws {
        let body = Chunks("{\"sensor\":\"a\",\"value\":1}\n\n{\"sensor\":\"b\",}\n")
        let error = await #expect(throws: StreamParseError.self) {
            try await body.jsonLines(of: Reading.self).collected()
        }
        #expect(
            error?.description == """
                error: invalid JSON: expected a string key, found '}'
                  --> stream line 3, column 15
                   |
                 3 | {"sensor":"b",}
                   |               ^
                """
        )
    }
}

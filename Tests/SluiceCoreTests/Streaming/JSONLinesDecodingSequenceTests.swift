import ClientFixtures
import Foundation
import SluiceCore
import Testing

@Suite struct JSONLinesDecodingSequenceTests {
    private struct Reading: Decodable, Equatable {
        let sensor: String
        let value: Double
    }

    @Test func eachLineDecodesToARecordAndBlankLinesAreSkipped() async throws {
        let body = Chunks(
            "{\"sensor\":\"a\",\"value\":1.5}\n\n   \n\t\r\n",
            "{\"sensor\":\"b\",",
            "\"value\":2}\r\n{\"sensor\":\"c\",\"value\":-3e2}"
        )
        #expect(
            try await body.decodingJSONLines(of: Reading.self).collected() == [
                Reading(sensor: "a", value: 1.5), Reading(sensor: "b", value: 2), Reading(sensor: "c", value: -300),
            ]
        )
        #expect(try await Chunks("\n\n").decodingJSONLines(of: Reading.self).collected() == [])
    }

    @Test func theDecoderIsTheCallers() async throws {
        struct Sample: Decodable, Equatable {
            let sensorName: String
        }
        var decoder = JSONDocumentDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let body = Chunks("{\"sensor_name\":\"a\"}\n")
        #expect(
            try await body.decodingJSONLines(of: Sample.self, decoder: decoder).collected() == [Sample(sensorName: "a")]
        )
    }

    @Test func invalidJSONOnLineThreeNamesLineThreeAndTheColumn() async throws {
        let body = Chunks("{\"sensor\":\"a\",\"value\":1}\n\n", "{\"sensor\":\"b\",}\n{\"sensor\":\"c\",\"value\":3}\n")
        var iterator = body.decodingJSONLines(of: Reading.self).makeAsyncIterator()
        #expect(try await iterator.next() == Reading(sensor: "a", value: 1))
        let error = await #expect(throws: StreamParseError.self) { try await iterator.next() }
        #expect(error?.code == .invalidJSON)
        #expect(error?.line == 3)
        #expect(error?.column == 15)
        #expect(error?.underlyingError is JSONError)
        #expect(
            error?.description == """
                error: invalid JSON: expected a string key, found '}'
                  --> stream line 3, column 15
                   |
                 3 | {"sensor":"b",}
                   |               ^
                """
        )
        #expect(try await iterator.next() == nil)
    }

    @Test func aRecordOfTheWrongShapeNamesTheLineAndThePath() async throws {
        let body = Chunks("{\"sensor\":\"a\",\"value\":1}\n{\"sensor\":\"b\",\"value\":\"high\"}\n")
        let error = await #expect(throws: StreamParseError.self) {
            try await body.decodingJSONLines(of: Reading.self).collected()
        }
        #expect(error?.code == .decodingFailed)
        #expect(error?.line == 2)
        #expect(error?.jsonPath == "$.value")
        #expect(error?.underlyingError is DecodingError)
        #expect(
            error?.description == """
                error: cannot decode Reading: expected Double, found string "high"
                  --> stream line 2 at $.value
                   |
                 2 | {"sensor":"b","value":"high"}
                """
        )
    }

    @Test func aLineOverTheLimitNamesTheLimit() async throws {
        let body = Chunks("{\"sensor\":\"a\",\"value\":1}\n", "{\"sensor\":\"a long name\",\"value\":1}\n")
        let error = await #expect(throws: StreamParseError.self) {
            try await body.decodingJSONLines(of: Reading.self, maximumLineLength: 30).collected()
        }
        #expect(error?.code == .lineTooLong)
        #expect(error?.description.hasPrefix("error: line 2 is longer than the limit of 30 bytes") == true)
    }

    @Test func theBaseIsReadOnlyAsRecordsAreAskedFor() async throws {
        let base = EndlessChunks { index in Data("{\"sensor\":\"s\(index)\",\"value\":\(index)}\n\n".utf8) }
        var iterator = base.decodingJSONLines(of: Reading.self).makeAsyncIterator()
        for index in 0..<3 {
            #expect(try await iterator.next() == Reading(sensor: "s\(index)", value: Double(index)))
        }
        #expect(base.pulled.withLock { $0 } == 3)
    }
}

import Foundation
import SluiceJSON
import Testing

/// Every decoding strategy, set the same way on Sluice's decoder and on Foundation's, on the same bytes.
@Suite struct StrategyFidelityTests {
    struct Stamp: Decodable, Equatable {
        let date: Date
    }

    struct Blob: Decodable, Equatable {
        let data: Data
    }

    struct Reading: Decodable, Equatable {
        let value: Double
    }

    struct Snake: Decodable, Equatable {
        let userId: Int
        let _private: Int?
        let url2Fetch: String?
        let alreadyCamel: Int?
    }

    static func agree<T: Decodable & Equatable>(
        _ type: T.Type,
        _ text: String,
        sluice: JSONDocumentDecoder,
        foundation: JSONDecoder
    ) -> Bool {
        let bytes = Data(text.utf8)
        return (try? sluice.decode(type, from: bytes)) == (try? foundation.decode(type, from: bytes))
    }

    @Test(arguments: [#"{"date": 1700000000.25}"#, #"{"date": -1.5}"#, #"{"date": "1"}"#, #"{"date": 1e300}"#])
    func secondsAndMillisecondsSince1970(_ text: String) {
        let foundation = JSONDecoder()
        foundation.dateDecodingStrategy = .secondsSince1970
        let seconds = JSONDocumentDecoder(dateDecodingStrategy: .secondsSince1970)
        #expect(Self.agree(Stamp.self, text, sluice: seconds, foundation: foundation))
        foundation.dateDecodingStrategy = .millisecondsSince1970
        let milliseconds = JSONDocumentDecoder(dateDecodingStrategy: .millisecondsSince1970)
        #expect(Self.agree(Stamp.self, text, sluice: milliseconds, foundation: foundation))
    }

    @Test(arguments: [#"{"date": 123.5}"#, #"{"date": "x"}"#])
    func deferredToDate(_ text: String) {
        let sluice = JSONDocumentDecoder(dateDecodingStrategy: .deferredToDate)
        #expect(Self.agree(Stamp.self, text, sluice: sluice, foundation: JSONDecoder()))
    }

    @Test(arguments: [#"{"data": "AAEC/w=="}"#, #"{"data": "not base64!"}"#, #"{"data": ""}"#, #"{"data": 1}"#])
    func base64Data(_ text: String) {
        #expect(Self.agree(Blob.self, text, sluice: .init(dataDecodingStrategy: .base64), foundation: JSONDecoder()))
    }

    @Test(arguments: [#"{"data": [0, 1, 255]}"#, #"{"data": [256]}"#])
    func deferredToData(_ text: String) {
        let foundation = JSONDecoder()
        foundation.dataDecodingStrategy = .deferredToData
        let sluice = JSONDocumentDecoder(dataDecodingStrategy: .deferredToData)
        #expect(Self.agree(Blob.self, text, sluice: sluice, foundation: foundation))
    }

    @Test(arguments: [#"{"value": "+inf"}"#, #"{"value": "-inf"}"#, #"{"value": "nan"}"#, #"{"value": "x"}"#])
    func nonConformingFloats(_ text: String) throws {
        let foundation = JSONDecoder()
        foundation.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: "+inf",
            negativeInfinity: "-inf",
            nan: "nan"
        )
        let sluice = JSONDocumentDecoder(
            nonConformingFloatDecodingStrategy: .convertFromString(
                positiveInfinity: "+inf",
                negativeInfinity: "-inf",
                nan: "nan"
            )
        )
        let bytes = Data(text.utf8)
        let ours = try? sluice.decode(Reading.self, from: bytes)
        let theirs = try? foundation.decode(Reading.self, from: bytes)
        // NaN is not equal to itself: compared by its description.
        #expect(ours.map { "\($0.value)" } == theirs.map { "\($0.value)" })
        #expect(Self.agree(Reading.self, text, sluice: JSONDocumentDecoder(), foundation: JSONDecoder()))
    }

    @Test(arguments: [
        #"{"user_id": 1, "__private": 2, "url2_fetch": "u", "alreadyCamel": 3}"#,
        #"{"user_id": 1, "_private": 2}"#,
        #"{"USER_ID": 1}"#,
        #"{"user__id": 1}"#,
    ])
    func convertFromSnakeCase(_ text: String) {
        let foundation = JSONDecoder()
        foundation.keyDecodingStrategy = .convertFromSnakeCase
        let sluice = JSONDocumentDecoder(keyDecodingStrategy: .convertFromSnakeCase)
        #expect(Self.agree(Snake.self, text, sluice: sluice, foundation: foundation))
    }
}

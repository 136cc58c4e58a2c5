import Foundation
import SluiceJSON
import Testing

/// The documented differences from Foundation's `JSONDecoder`, each asserted, so that the table in the
/// documentation ("Fidelity with JSONDecoder") stays true: where one decoder reads a text and the other refuses it.
@Suite struct DeliberateDifferencesTests {
    struct Row: Sendable, CustomTestStringConvertible {
        let name: String
        let decode: @Sendable (any TopLevelDecoderOfData) -> Bool
        let sluiceReads: Bool

        var testDescription: String { name }
    }

    static func reads<T: Decodable & SendableMetatype>(
        _ type: T.Type,
        _ text: String
    ) -> @Sendable (any TopLevelDecoderOfData) -> Bool {
        { decoder in (try? decoder.decodeValue(T.self, from: Data(text.utf8))) != nil }
    }

    static let rows: [Row] = [
        Row(name: "trailing comma in an array", decode: reads([Int].self, "[1,2,]"), sluiceReads: false),
        Row(name: "trailing comma in an object", decode: reads([String: Int].self, #"{"a":1,}"#), sluiceReads: false),
        Row(name: "Double underflow to zero", decode: reads([Double].self, "[1e-400]"), sluiceReads: true),
        Row(name: "Float underflow to zero", decode: reads([Float].self, "[1e-46]"), sluiceReads: true),
        Row(
            name: "an exactly integral Int64 in exponent form",
            decode: reads([Int64].self, "[9.223372036854775807e18]"),
            sluiceReads: true
        ),
        Row(name: "February 30th", decode: reads([Date].self, #"["2025-02-30T00:00:00Z"]"#), sluiceReads: false),
        Row(
            name: "an offset of sixty minutes",
            decode: reads([Date].self, #"["2025-01-01T00:00:00+0160"]"#),
            sluiceReads: false
        ),
        Row(name: "a one-digit offset", decode: reads([Date].self, #"["2025-01-01T00:00:00+1"]"#), sluiceReads: false),
        Row(name: "lower-case t and z", decode: reads([Date].self, #"["2025-03-01t10:30:00z"]"#), sluiceReads: true),
        Row(
            name: "twelve digits of fraction",
            decode: reads([Date].self, #"["2025-01-01T00:00:00.999999999999Z"]"#),
            sluiceReads: true
        ),
        Row(
            name: "UTF-32, little-endian, with a mark",
            decode: { decoder in
                (try? decoder.decodeValue([Int].self, from: "[1]".data(using: .utf32) ?? Data())) != nil
            },
            sluiceReads: true
        ),
    ]

    @Test(arguments: rows)
    func eachDifferenceIsTheDocumentedOne(_ row: Row) {
        #expect(row.decode(SluiceISO()) == row.sluiceReads, "Sluice, \(row.name)")
        #expect(row.decode(FoundationISO()) == !row.sluiceReads, "Foundation, \(row.name)")
    }
}

/// A decoder of values from bytes, for the table: Sluice's or Foundation's, with ISO 8601 dates.
protocol TopLevelDecoderOfData: Sendable {
    func decodeValue<T: Decodable>(_ type: T.Type, from data: Data) throws -> T
}

struct SluiceISO: TopLevelDecoderOfData {
    func decodeValue<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        try JSONDocumentDecoder(dateDecodingStrategy: .iso8601).decode(type, from: data)
    }
}

struct FoundationISO: TopLevelDecoderOfData {
    func decodeValue<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(type, from: data)
    }
}

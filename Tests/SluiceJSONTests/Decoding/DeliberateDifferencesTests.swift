import Foundation
import SluiceJSON
import Testing

/// The documented differences from Foundation's `JSONDecoder`, each asserted, so that the table in the
/// documentation ("Fidelity with JSONDecoder") stays true: where one decoder reads a text and the other refuses it,
/// and where both refuse it but their errors say different things.
@Suite struct DeliberateDifferencesTests {
    struct Row: Sendable, CustomTestStringConvertible {
        let name: String
        /// What a decoder makes of the row's input, in a few words: `reads it`, `refuses it`, or the error.
        let outcome: @Sendable (any TopLevelDecoderOfData) -> String
        let sluice: String
        let foundation: String

        var testDescription: String { name }
    }

    static func reads<T: Decodable & SendableMetatype>(
        _ type: T.Type,
        _ text: String
    ) -> @Sendable (any TopLevelDecoderOfData) -> Bool {
        { decoder in (try? decoder.decodeValue(T.self, from: Data(text.utf8))) != nil }
    }

    /// A coding path as its keys' strings, joined with dots.
    static func path(_ context: DecodingError.Context) -> String {
        context.codingPath.map(\.stringValue).joined(separator: ".")
    }

    /// The error a decoder throws for a text: its case, its coding path, and whether a `JSONError` is under it.
    static func error<T: Decodable & SendableMetatype>(
        _ type: T.Type,
        _ text: String
    ) -> @Sendable (any TopLevelDecoderOfData) -> String {
        { decoder in
            do {
                _ = try decoder.decodeValue(T.self, from: Data(text.utf8))
                return "reads it"
            } catch DecodingError.dataCorrupted(let context) {
                let over = context.underlyingError is JSONError ? " over a JSONError" : ""
                return "dataCorrupted at \"\(path(context))\"" + over
            } catch DecodingError.typeMismatch(_, let context) {
                return "typeMismatch at \"\(path(context))\""
            } catch {
                return "\(error)"
            }
        }
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
        Row(
            name: "a number out of range, the error's coding path",
            outcome: error(Small.self, #"{"v":300}"#),
            sluice: #"dataCorrupted at "v""#,
            foundation: #"dataCorrupted at """#
        ),
        Row(
            name: "a malformed document, the error's underlying error",
            outcome: error([Int].self, "[1,2,"),
            sluice: #"dataCorrupted at "" over a JSONError"#,
            foundation: #"dataCorrupted at """#
        ),
        Row(
            name: "a lone surrogate in a value the model does not read",
            decode: reads(Partial.self, #"{"a":1,"b":"\ud800"}"#),
            sluiceReads: false
        ),
        Row(
            name: "a leading zero in a value the model does not read",
            decode: reads(Partial.self, #"{"a":1,"b":01}"#),
            sluiceReads: false
        ),
        Row(
            name: "a lone surrogate in a value read as another type",
            outcome: error([Int].self, #"["\ud800"]"#),
            sluice: #"dataCorrupted at "" over a JSONError"#,
            foundation: #"typeMismatch at "Index 0""#
        ),
    ]

    /// A model with a field too small for some numbers.
    struct Small: Decodable {
        let v: Int8
    }

    /// A model that reads one member of an object and leaves the others.
    struct Partial: Decodable {
        let a: Int
    }

    @Test(arguments: rows)
    func eachDifferenceIsTheDocumentedOne(_ row: Row) {
        #expect(row.outcome(SluiceISO()) == row.sluice, "Sluice, \(row.name)")
        #expect(row.outcome(FoundationISO()) == row.foundation, "Foundation, \(row.name)")
    }
}

extension DeliberateDifferencesTests.Row {
    /// A row where one decoder reads the text and the other refuses it.
    init(name: String, decode: @escaping @Sendable (any TopLevelDecoderOfData) -> Bool, sluiceReads: Bool) {
        self.init(
            name: name,
            outcome: { decoder in decode(decoder) ? "reads it" : "refuses it" },
            sluice: sluiceReads ? "reads it" : "refuses it",
            foundation: sluiceReads ? "refuses it" : "reads it"
        )
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

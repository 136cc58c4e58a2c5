import Foundation
import SluiceJSON
import TestSupport
import Testing

/// The same bytes decoded by Sluice's decoder and by Foundation's `JSONDecoder`: the same value, or both throwing.
@Suite struct FoundationFidelityTests {
    /// Decodes with both decoders: `nil` for a decoder that threw.
    static func both<T: Decodable>(
        _ type: T.Type,
        _ bytes: Data,
        sluice: JSONDocumentDecoder = JSONDocumentDecoder(),
        foundation: JSONDecoder = JSONDecoder()
    ) -> (sluice: T?, foundation: T?) {
        (try? sluice.decode(type, from: bytes), try? foundation.decode(type, from: bytes))
    }

    // MARK: - Unkeyed containers

    /// An array that keeps the elements that decode as `Int` and skips the others: the common lossy pattern.
    struct LossyIntegers: Decodable, Equatable {
        var values: [Int] = []

        struct Skipped: Decodable {}

        init(from decoder: any Decoder) throws {
            var container = try decoder.unkeyedContainer()
            while !container.isAtEnd {
                if let value = try? container.decode(Int.self) {
                    values.append(value)
                } else {
                    _ = try container.decode(Skipped.self)
                }
            }
        }
    }

    @Test func aFailedElementIsReadAgainNotSkipped() throws {
        let (sluice, foundation) = Self.both(LossyIntegers.self, Data(#"[1,"x",3,4]"#.utf8))
        #expect(foundation?.values == [1, 3, 4])
        #expect(sluice == foundation)
    }

    /// What reading past the end of an array gives: `decodeNil()` throws, `decodeIfPresent` gives `nil`.
    struct PastTheEnd: Decodable, Equatable {
        var outcomes: [String] = []

        init(from decoder: any Decoder) throws {
            var container = try decoder.unkeyedContainer()
            _ = try container.decode(Int.self)
            do {
                outcomes.append("decodeNil \(try container.decodeNil())")
            } catch DecodingError.valueNotFound {
                outcomes.append("decodeNil valueNotFound")
            }
            outcomes.append("Int? \(String(describing: try container.decodeIfPresent(Int.self)))")
            outcomes.append("[Int]? \(String(describing: try container.decodeIfPresent([Int].self)))")
        }
    }

    @Test func readingPastTheEndOfAnArrayBehavesAsFoundationDoes() throws {
        let (sluice, foundation) = Self.both(PastTheEnd.self, Data("[1]".utf8))
        #expect(foundation?.outcomes == ["decodeNil valueNotFound", "Int? nil", "[Int]? nil"])
        #expect(sluice == foundation)
    }

    @Test func decodeNilPastTheEndNamesTheEnd() throws {
        struct NilPastTheEnd: Decodable {
            init(from decoder: any Decoder) throws {
                var container = try decoder.unkeyedContainer()
                _ = try container.decodeNil()
            }
        }
        let error = #expect(throws: DecodingError.self) {
            try JSONDocumentDecoder().decode(NilPastTheEnd.self, from: Data("[]".utf8))
        }
        #expect(error.map(String.init(describing:))?.contains("found the end of an array of 0") == true)
    }

    // MARK: - Malformed documents

    /// A document both decoders refuse as JSON, and where Sluice finds the problem.
    struct Malformed: Sendable, CustomTestStringConvertible {
        let testDescription: String
        let bytes: Data
        /// Whether the value at fault is a string, so that the document is decoded as `[String]` rather than `[Int]`.
        ///
        /// `JSONDecoder` checks the text of a string or a number only when it decodes it as one.
        var inString = false
        let offset: Int
        let line: Int
        let column: Int
    }

    static let malformed: [Malformed] = [
        Malformed(
            testDescription: "an array cut after a comma",
            bytes: Data("[1,2,".utf8),
            offset: 5,
            line: 1,
            column: 6
        ),
        Malformed(testDescription: "empty input", bytes: Data(), offset: 0, line: 1, column: 1),
        Malformed(testDescription: "only whitespace", bytes: Data("  \n ".utf8), offset: 0, line: 1, column: 1),
        Malformed(
            testDescription: "an object member without a value",
            bytes: Data(#"{"a":}"#.utf8),
            offset: 5,
            line: 1,
            column: 6
        ),
        Malformed(testDescription: "a second value", bytes: Data("[1] [2]".utf8), offset: 4, line: 1, column: 5),
        Malformed(testDescription: "a leading zero", bytes: Data("[01]".utf8), offset: 1, line: 1, column: 2),
        Malformed(testDescription: "a NaN literal", bytes: Data("[NaN]".utf8), offset: 1, line: 1, column: 2),
        Malformed(testDescription: "a comment", bytes: Data("[1 /* c */]".utf8), offset: 3, line: 1, column: 4),
        Malformed(
            testDescription: "a lone surrogate",
            bytes: Data(#"["\ud800"]"#.utf8),
            inString: true,
            offset: 2,
            line: 1,
            column: 3
        ),
        Malformed(
            testDescription: "invalid UTF-8",
            bytes: Data([0x5B, 0x22, 0xFF, 0x22, 0x5D]),
            inString: true,
            offset: 2,
            line: 1,
            column: 3
        ),
        Malformed(
            testDescription: "a control character in a string",
            bytes: Data("[\"a\u{01}\"]".utf8),
            inString: true,
            offset: 3,
            line: 1,
            column: 4
        ),
        Malformed(
            testDescription: "nesting deeper than 512",
            bytes: Data((String(repeating: "[", count: 600) + "]").utf8),
            offset: 512,
            line: 1,
            column: 513
        ),
    ]

    /// What each decoder throws for some bytes decoded as `T`.
    static func errors<T: Decodable>(
        _ type: T.Type,
        _ bytes: Data
    ) throws -> (sluice: DecodingError, foundation: DecodingError) {
        let foundation = try #require(throws: DecodingError.self) { try JSONDecoder().decode(type, from: bytes) }
        let sluice = try #require(throws: DecodingError.self) { try JSONDocumentDecoder().decode(type, from: bytes) }
        return (sluice, foundation)
    }

    @Test(arguments: malformed)
    func aMalformedDocumentThrowsWhatJSONDecoderThrows(_ document: Malformed) throws {
        let (sluice, foundation) =
            document.inString
            ? try Self.errors([String].self, document.bytes) : try Self.errors([Int].self, document.bytes)
        guard case .dataCorrupted(let expected) = foundation else {
            Issue.record("JSONDecoder threw \(foundation)")
            return
        }
        guard case .dataCorrupted(let context) = sluice else {
            Issue.record("JSONDocumentDecoder threw \(sluice)")
            return
        }
        #expect(expected.codingPath.isEmpty)
        #expect(context.codingPath.isEmpty)
        #expect(context.debugDescription == expected.debugDescription)
        #expect(context.debugDescription == "The given data was not valid JSON.")
        let underlying = try #require(context.underlyingError as? JSONError)
        #expect(underlying.offset == document.offset)
        #expect(underlying.line == document.line)
        #expect(underlying.column == document.column)
    }

    // MARK: - Encodings

    static let encodings: [(String, Data)] = [
        ("UTF-8 with a byte order mark", Data([0xEF, 0xBB, 0xBF]) + Data(#"["é😀", 1]"#.utf8)),
        ("UTF-16, big-endian, no mark", Data(#"["é😀", 1]"#.data(using: .utf16BigEndian) ?? Data())),
        ("UTF-16, little-endian, no mark", Data(#"["é😀", 1]"#.data(using: .utf16LittleEndian) ?? Data())),
        ("UTF-16 with a mark", Data(#"["é😀", 1]"#.data(using: .utf16) ?? Data())),
        ("UTF-32, big-endian, no mark", Data(#"["é😀", 1]"#.data(using: .utf32BigEndian) ?? Data())),
        ("UTF-32, little-endian, no mark", Data(#"["é😀", 1]"#.data(using: .utf32LittleEndian) ?? Data())),
        ("UTF-16, one-character document", Data("7".data(using: .utf16LittleEndian) ?? Data())),
    ]

    /// A heterogeneous array read as a string and a number.
    struct Pair: Decodable, Equatable {
        let text: String
        let number: Int

        init(text: String, number: Int) {
            self.text = text
            self.number = number
        }

        init(from decoder: any Decoder) throws {
            var container = try decoder.unkeyedContainer()
            text = try container.decode(String.self)
            number = try container.decode(Int.self)
        }
    }

    @Test(arguments: encodings.prefix(6))
    func documentsInEveryUnicodeEncodingFoundationReadsAreRead(_ name: String, _ bytes: Data) throws {
        let (sluice, foundation) = Self.both(Pair.self, bytes)
        #expect(foundation == Pair(text: "é😀", number: 1) || foundation == nil, "\(name)")
        #expect(sluice == Pair(text: "é😀", number: 1), "\(name)")
        if foundation != nil {
            #expect(sluice == foundation, "\(name)")
        }
    }

    @Test func aOneCharacterUTF16DocumentIsRead() throws {
        let bytes = try #require(Self.encodings.last?.1)
        let (sluice, foundation) = Self.both(Int.self, bytes)
        #expect(sluice == 7)
        #expect(sluice == foundation)
    }

    @Test func aLoneSurrogateInUTF16IsAnErrorThatNamesTheEncodingAndTheByte() throws {
        // `["` then a lone high surrogate, little-endian.
        let bytes = Data([0x5B, 0x00, 0x22, 0x00, 0x3D, 0xD8, 0x22, 0x00, 0x5D, 0x00])
        let error = #expect(throws: JSONError.self) { try JSON(parsing: bytes) }
        #expect(error?.code == .invalidEncoding)
        #expect(error?.offset == 4)
        #expect(error?.column == 3)
        #expect(
            error.map(String.init(describing:))?.contains(
                "expected UTF-16 text, found a code unit that is not well formed"
            ) == true
        )
    }

    @Test func aSyntaxErrorInUTF16OrUTF32IsLocatedInTheInputsBytes() throws {
        // `[1,]` little-endian with a mark: the ']' is the fourth character, at byte 2 + 3 * 2 of UTF-16 and
        // byte 4 + 3 * 4 of UTF-32.
        let utf16 = Data([0xFF, 0xFE]) + Data("[1,]".utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })
        let utf32 = Data([0xFF, 0xFE, 0x00, 0x00]) + Data("[1,]".utf8.flatMap { [$0, 0, 0, 0] })
        #expect(#expect(throws: JSONError.self) { try JSON(parsing: utf16) }?.offset == 8)
        #expect(#expect(throws: JSONError.self) { try JSON(parsing: utf32) }?.offset == 16)
        // Three characters that take three bytes each in UTF-8 and two in UTF-16 (found by the fuzzer): the string
        // ends unterminated at the end of the input, not past it.
        let error = #expect(throws: JSONError.self) {
            try JSON(parsing: Data([0x00, 0x22, 0xEF, 0x00, 0x80, 0x04, 0x38, 0xA9]))
        }
        #expect(error?.code == .unexpectedEnd)
        #expect(error?.offset == 8)
        #expect(error?.column == 5)
    }

    @Test func aByteOrderMarkKeepsErrorOffsetsThoseOfTheInput() throws {
        let bytes = Data([0xEF, 0xBB, 0xBF]) + Data("[1,]".utf8)
        let error = #expect(throws: JSONError.self) { try JSON(parsing: bytes) }
        #expect(error?.offset == 6)
    }
}

import Foundation
import SluiceJSON
import TestSupport
import Testing

@Suite struct JSONParserTests {
    /// Documents RFC 8259 accepts, one per rule the parser enforces.
    static let accepted: [(String, String)] = [
        ("empty object", "{}"),
        ("empty array", "[]"),
        ("zero", "0"),
        ("negative zero", "-0"),
        ("fraction and exponent", "-12.5e+10"),
        ("upper-case exponent with sign", "1E-2"),
        ("exponent with leading zeros", "1e007"),
        ("string", #""hello""#),
        ("true", "true"),
        ("false", "false"),
        ("null", "null"),
        ("all four whitespace characters", " \t\n\r[ 1 ,\t2 ]\r\n "),
        ("every simple escape", #""\" \\ \/ \b \f \n \r \t""#),
        ("unicode escape", #""\u00e9\u00C9""#),
        ("surrogate pair escape", #""\uD83D\uDE00""#),
        ("two-byte UTF-8", "\"é\""),
        ("three-byte UTF-8", "\"€\""),
        ("four-byte UTF-8", "\"😀\""),
        ("nested containers", #"{"a": [1, {"b": null}], "c": {"d": [true, false]}}"#),
        ("duplicate keys", #"{"a": 1, "a": 2}"#),
        ("integer beyond 64 bits", "123456789012345678901234567890"),
        ("long string crossing word boundaries", "\"" + String(repeating: "abcdefg", count: 20) + "\""),
        ("DEL is not a control character", "\"\u{7F}\""),
        ("escaped NUL", #""a\u0000b""#),
    ]

    @Test(arguments: accepted)
    func acceptsValidDocument(_ name: String, _ text: String) throws {
        _ = try JSON(parsing: text)
    }

    /// Documents RFC 8259 rejects, with the code, the byte offset and the message the parser gives.
    static let rejected: [(String, [UInt8], JSONError.Code, Int, String)] = [
        ("empty input", [], .emptyInput, 0, "expected a JSON value, found no input"),
        ("only whitespace", Array(" \n ".utf8), .emptyInput, 0, "expected a JSON value, found only whitespace"),
        ("trailing comma in array", Array("[1,]".utf8), .unexpectedCharacter, 3, "expected a value, found ']'"),
        (
            "trailing comma in object", Array(#"{"a":1,}"#.utf8), .unexpectedCharacter, 7,
            "expected a string key, found '}'"
        ),
        ("leading zero", Array("01".utf8), .invalidNumber, 0, "leading zeros are not allowed in a number"),
        ("bare minus", Array("-".utf8), .invalidNumber, 1, "expected a digit after '-', found end of input"),
        ("minus then letter", Array("-a".utf8), .invalidNumber, 1, "expected a digit after '-', found 'a'"),
        (
            "no digit after point", Array("1.".utf8), .invalidNumber, 2,
            "expected a digit after the decimal point, found end of input"
        ),
        (
            "no digit in exponent", Array("1e+".utf8), .invalidNumber, 3,
            "expected a digit in the exponent, found end of input"
        ),
        ("leading point", Array(".5".utf8), .unexpectedCharacter, 0, "expected a value, found '.'"),
        ("leading plus", Array("+1".utf8), .unexpectedCharacter, 0, "expected a value, found '+'"),
        ("NaN", Array("NaN".utf8), .unexpectedCharacter, 0, "expected a value, found 'N'"),
        ("single quotes", Array("'a'".utf8), .unexpectedCharacter, 0, "expected a value, found '''"),
        ("comment", Array("/* c */ 1".utf8), .unexpectedCharacter, 0, "expected a value, found '/'"),
        (
            "unescaped control character", [0x22, 0x61, 0x01, 0x22], .invalidString, 2,
            "control character byte 0x01 must be escaped in a string"
        ),
        (
            "unescaped newline", Array("\"a\nb\"".utf8), .invalidString, 2,
            "control character byte 0x0A must be escaped in a string"
        ),
        (
            "unknown escape", Array(#""\q""#.utf8), .invalidEscape, 1,
            #"invalid escape '\q', expected one of \" \\ \/ \b \f \n \r \t \u"#
        ),
        (
            "bad hex digit", Array(#""\u12G4""#.utf8), .invalidUnicode, 5,
            "expected 4 hexadecimal digits after '\\u', found 'G'"
        ),
        (
            "lone high surrogate", Array(#""\uD800x""#.utf8), .invalidUnicode, 1,
            #"high surrogate \uD800 must be followed by a low surrogate escape"#
        ),
        (
            "high surrogate then non-surrogate", Array(#""\uD800\u0041""#.utf8), .invalidUnicode, 7,
            #"high surrogate \uD800 is followed by \u0041, not a low surrogate"#
        ),
        (
            "lone low surrogate", Array(#""\uDC00""#.utf8), .invalidUnicode, 1,
            #"low surrogate \uDC00 without a preceding high surrogate"#
        ),
        ("invalid UTF-8 byte", [0x22, 0xFF, 0x22], .invalidUTF8, 1, "byte 0xFF cannot start a UTF-8 sequence"),
        ("overlong encoding", [0x22, 0xC0, 0x80, 0x22], .invalidUTF8, 1, "byte 0xC0 cannot start a UTF-8 sequence"),
        (
            "overlong three-byte", [0x22, 0xE0, 0x80, 0x80, 0x22], .invalidUTF8, 1,
            "malformed UTF-8 sequence starting with byte 0xE0"
        ),
        (
            "UTF-8 encoded surrogate", [0x22, 0xED, 0xA0, 0x80, 0x22], .invalidUTF8, 1,
            "malformed UTF-8 sequence starting with byte 0xED"
        ),
        (
            "beyond U+10FFFF", [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], .invalidUTF8, 1,
            "malformed UTF-8 sequence starting with byte 0xF4"
        ),
        (
            "missing continuation byte", [0x22, 0xE2, 0x82, 0x22], .invalidUTF8, 1,
            "malformed UTF-8 sequence starting with byte 0xE2"
        ),
        ("truncated UTF-8", [0x22, 0xE2, 0x82], .unexpectedEnd, 1, "input ends inside a UTF-8 sequence"),
        ("unterminated string", Array(#""abc"#.utf8), .unexpectedEnd, 4, "unterminated string, expected '\"'"),
        (
            "missing comma in array", Array("[1 2]".utf8), .unexpectedCharacter, 3,
            "expected ',' or ']' after an array element, found '2'"
        ),
        (
            "missing colon", Array(#"{"a" 1}"#.utf8), .unexpectedCharacter, 5,
            "expected ':' after an object key, found '1'"
        ),
        ("number key", Array("{1:2}".utf8), .unexpectedCharacter, 1, "expected a string key, found '1'"),
        ("misspelt true", Array("tru".utf8), .unexpectedEnd, 3, "expected 'true', found end of input"),
        ("misspelt null", Array("nulL".utf8), .unexpectedCharacter, 3, "expected 'null', found 'L'"),
        ("two values", Array("1 2".utf8), .trailingContent, 2, "expected end of input after the value, found '2'"),
        (
            "unclosed array", Array("[1".utf8), .unexpectedEnd, 2,
            "expected ',' or ']' after an array element, found end of input"
        ),
        (
            "unclosed object", Array(#"{"a":1"#.utf8), .unexpectedEnd, 6,
            "expected ',' or '}' after an object member, found end of input"
        ),
        (
            "mismatched closer", Array("[1}".utf8), .unexpectedCharacter, 2,
            "expected ',' or ']' after an array element, found '}'"
        ),
        ("letter outside ASCII", Array("[é]".utf8), .unexpectedCharacter, 1, "expected a value, found 'é' (U+00E9)"),
        (
            "invalid byte outside a string", [0x5B, 0xFF, 0x5D], .unexpectedCharacter, 1,
            "expected a value, found byte 0xFF"
        ),
        ("NUL byte", [0x5B, 0x00, 0x5D], .unexpectedCharacter, 1, "expected a value, found byte 0x00"),
        (
            "form feed between tokens", Array("[1,\u{0C}2]".utf8), .unexpectedCharacter, 3,
            "expected a value, found byte 0x0C"
        ),
        (
            "vertical tab between tokens", Array("[1\u{0B},2]".utf8), .unexpectedCharacter, 2,
            "expected ',' or ']' after an array element, found byte 0x0B"
        ),
        (
            "no-break space between tokens", Array("[1,\u{A0}2]".utf8), .unexpectedCharacter, 3,
            "expected a value, found U+00A0"
        ),
        (
            "escape at end of input", Array(#""ab\"#.utf8), .unexpectedEnd, 3,
            "unterminated escape sequence at end of input"
        ),
        (
            "unicode escape at end of input", Array(#""\u12"#.utf8), .unexpectedEnd, 5,
            "expected 4 hexadecimal digits after '\\u', found end of input"
        ),
    ]

    @Test(arguments: rejected)
    func rejectsInvalidDocument(
        _ name: String,
        _ bytes: [UInt8],
        _ code: JSONError.Code,
        _ offset: Int,
        _ reason: String
    ) throws {
        let error = try #require(throws: JSONError.self) { try JSON(parsing: Data(bytes)) }
        #expect(error.code == code, "\(name)")
        #expect(error.offset == offset, "\(name)")
        #expect(error.reason == reason, "\(name)")
    }

    @Test func rendersErrorLikeACompiler() throws {
        let text = """
            {
              "id": 1,
              "name": "Ada",}
            """
        let error = try #require(throws: JSONError.self) { try JSON(parsing: text) }
        #expect(error.line == 3)
        #expect(error.column == 17)
        #expect(
            error.description == """
                error: invalid JSON at line 3, column 17 (byte 29): expected a string key, found '}'
                 3 |   "name": "Ada",}
                   |                 ^
                """
        )
    }

    @Test(arguments: [("\n", "LF"), ("\r", "CR"), ("\r\n", "CRLF")])
    func countsLinesEndedByAnyLineBreak(_ lineBreak: String, _ name: String) throws {
        let text = "[1," + lineBreak + " 2," + lineBreak + " x]"
        let error = try #require(throws: JSONError.self) { try JSON(parsing: text) }
        #expect(error.line == 3, "\(name)")
        #expect(error.column == 2, "\(name)")
        #expect(error.sourceLine == " x]", "\(name)")
    }

    @Test func shortensLongLinesAroundTheError() throws {
        let text = "[" + String(repeating: "1,", count: 100) + "x]"
        let error = try #require(throws: JSONError.self) { try JSON(parsing: text) }
        #expect(error.column == 202)
        #expect(error.sourceLine == "…" + String(repeating: "1,", count: 20) + "x]")
        #expect(error.description.hasSuffix("\n   | " + String(repeating: " ", count: 41) + "^"))
    }

    @Test func countsColumnsInScalars() throws {
        let error = try #require(throws: JSONError.self) { try JSON(parsing: #"["é€😀", x]"#) }
        #expect(error.offset == 14)
        #expect(error.column == 9)
    }

    @Test func rejectsNestingBeyondTheDepthLimit() throws {
        let deserializer = JSONDeserializer(maximumDepth: 10)
        let ok = Data((String(repeating: "[", count: 10) + String(repeating: "]", count: 10)).utf8)
        _ = try deserializer.document(from: ok)
        let deep = Data((String(repeating: "[", count: 11) + String(repeating: "]", count: 11)).utf8)
        let error = try #require(throws: JSONError.self) { try deserializer.document(from: deep) }
        #expect(error.code == .depthLimitExceeded)
        #expect(error.offset == 10)
        #expect(error.reason == "arrays and objects are nested more than 10 deep")
    }

    @Test func rejectsHostileNestingWithoutOverflowingTheStack() throws {
        let hostile = Data(repeating: UInt8(ascii: "["), count: 1_000_000)
        let error = try #require(throws: JSONError.self) { try JSON(parsing: hostile) }
        #expect(error.code == .depthLimitExceeded)
        #expect(error.offset == 512)
    }

    @Test func rejectsDocumentsOverTheSizeLimit() throws {
        let deserializer = JSONDeserializer(maximumSize: 8)
        #expect(try deserializer.document(from: Data("[1,2,34]".utf8)).count == 3, "a document at the limit is parsed")
        let error = try #require(throws: JSONError.self) { try deserializer.document(from: Data("[1,2,3,4,5]".utf8)) }
        #expect(error.code == .sizeLimitExceeded)
        #expect(error.reason == "the document is 11 bytes, more than the limit of 8")
        #expect(error.sourceLine == "[1,2,3,4,5]")
    }

    @Test func emptyBodyIsNullUnlessRejected() throws {
        #expect(try JSONDeserializer().document(from: Data()).isNull)
        let error = try #require(throws: JSONError.self) {
            try JSONDeserializer(emptyBody: .reject).document(from: Data())
        }
        #expect(error.code == .emptyInput)
    }

    @Test func deserializerReturnsTheDocumentThroughAny() throws {
        let object = try JSONDeserializer().deserialize(Data(#"{"a": [1, 2]}"#.utf8))
        let json = try JSON.parse(object)
        #expect(json["a"]?[1]?.int == 2)
    }

    /// The string scan compares sixteen bytes at a time: each byte at the edge of what ends a run of plain text
    /// (a control character, a byte outside ASCII, a quote, a backslash) and each just inside it, at every offset
    /// of the blocks, is read as Foundation reads it, or refused with the error for it.
    @Test(
        arguments: [
            ([0x1F], JSONError.Code.invalidString), ([0x00], .invalidString), ([0x80], .invalidUTF8),
            ([0xFF], .invalidUTF8), ([0x20], nil), ([0x7F], nil), ([0x21], nil), ([0x5B], nil), ([0x5D], nil),
            ([0xC3, 0xA9], nil), ([0x5C, 0x22], nil), ([0x5C, 0x5C], nil),
        ] as [([UInt8], JSONError.Code?)]
    )
    func readsEveryByteOfAStringAtEveryOffsetAsFoundationDoes(_ inserted: [UInt8], _ refusal: JSONError.Code?) throws {
        for offset in 0..<40 {
            let text =
                Array(repeating: UInt8(ascii: "a"), count: offset) + inserted
                + Array(repeating: UInt8(ascii: "b"), count: 40 - offset)
            let document = Data(Array(#"[""#.utf8) + text + Array(#""]"#.utf8))
            if let refusal {
                let error = try #require(throws: JSONError.self) { try JSON(parsing: document) }
                #expect(error.code == refusal, "at \(offset)")
                #expect(error.offset == 2 + offset)
                #expect(throws: (any Error).self) { try JSONDecoder().decode([String].self, from: document) }
            } else {
                let expected = try JSONDecoder().decode([String].self, from: document)
                #expect(try JSONDocumentDecoder().decode([String].self, from: document) == expected, "at \(offset)")
            }
        }
    }

    @Test func stopsAtEveryTruncationOfAValidDocumentWithAnError() throws {
        let text = #"{"a": [1, -2.5e3, "x\u00e9\"y", true, false, null], "b": {"c": "😀"}}"#
        let bytes = Array(text.utf8)
        _ = try JSON(parsing: Data(bytes))
        for length in 0..<bytes.count {
            #expect(throws: JSONError.self) { try JSON(parsing: Data(bytes[0..<length])) }
        }
    }
}

/// Containers with more elements than the tape's 24-bit count holds, and documents past its 32-bit offsets.
@Suite struct JSONTapeLimitTests {
    @Test(arguments: [(1 << 24) - 2, (1 << 24) - 1, (1 << 24) + 1])
    func countsPastTwentyFourBitsAreCountedOnTheTape(count: Int) async throws {
        // 32 MiB of `0,0,…`, made by the standard library's repetition rather than a loop, and parsed on a thread of
        // its own: seconds of work in a debug build, which would hold a thread of the pool the other tests share.
        let (counts, decoded) = try await offThePool {
            let text = #"{"a":[0"# + String(repeating: ",0", count: count - 1) + #"],"b":{"k":[0,0]}}"#
            let json = try JSONDeserializer(maximumSize: .max).document(from: Data(text.utf8))
            let counts = [json["a"]?.elements?.count, json["b"]?.members?.count, json["b"]?["k"]?.elements?.count]
            return (counts, try JSONDocumentDecoder().decode([String: [Int]].self, from: json["b"] ?? .null))
        }
        #expect(counts == [count, 1, 2], "the large array's count, then the values after it, where they were")
        #expect(decoded == ["k": [0, 0]])
    }

    @Test func documentsPastThirtyTwoBitOffsetsAreRefusedWithTheReason() throws {
        // 4 GiB of address space that is never written, so never resident: the size is checked before the bytes are
        // read, and the message's excerpt reads one page.
        let size = 1 << 32
        let pages = try #require(mmap(nil, size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0))
        try #require(pages != MAP_FAILED)
        defer { munmap(pages, size) }
        let huge = Data(bytesNoCopy: pages, count: size, deallocator: .none)
        let error = try #require(throws: JSONError.self) {
            try JSONDeserializer(maximumSize: .max).document(from: huge)
        }
        #expect(error.code == .sizeLimitExceeded)
        #expect(
            error.reason
                == "the document is 4294967296 bytes, more than 4294967231, the most a parsed document can index with "
                + "its 32-bit offsets"
        )
    }
}

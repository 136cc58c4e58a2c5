import Foundation
import SluiceJSON
import Testing

/// Objects that repeat a key, decoded by Sluice's decoder and by Foundation's on the same bytes: the first
/// occurrence wins for every lookup, and `allKeys` lists a repeated key once.
@Suite struct DuplicateKeyFidelityTests {
    /// Decodes with both decoders, expects the same value or both to throw, and returns Sluice's value.
    @discardableResult
    static func expectAlike<T: Decodable & Equatable>(
        _ type: T.Type,
        _ text: String,
        snakeCase: Bool = false,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> T? {
        let (sluice, foundation) = FoundationKeyFidelityTests.both(type, text, snakeCase: snakeCase)
        switch (sluice, foundation) {
        case (.success(let sluice), .success(let foundation)):
            #expect(sluice == foundation, "\(text)", sourceLocation: sourceLocation)
            return sluice
        case (.failure, .failure):
            return nil
        default:
            Issue.record("\(text): Sluice \(sluice), Foundation \(foundation)", sourceLocation: sourceLocation)
            return nil
        }
    }

    struct AB: Decodable, Equatable {
        let a: Int
        let b: Int
    }

    struct BA: Decodable, Equatable {
        let b: Int
        let a: Int
    }

    @Test func theFirstValueWinsInEitherPropertyOrder() throws {
        let text = #"{"a":1,"b":2,"a":3}"#
        #expect(try Self.expectAlike(AB.self, text) == AB(a: 1, b: 2))
        #expect(try Self.expectAlike(BA.self, text) == BA(b: 2, a: 1))
    }

    struct AnyKey: CodingKey {
        let stringValue: String
        let intValue: Int? = nil

        init(stringValue: String) {
            self.stringValue = stringValue
        }

        init?(intValue: Int) {
            nil
        }
    }

    /// Every lookup of a keyed container, in an order that revisits keys: `allKeys` (sorted, as Foundation's
    /// order is its dictionary's), `contains`, `decodeNil`, `decode`, `decodeIfPresent`, and `a` again after `b`.
    struct Lookups: Decodable, Equatable {
        let keys: [String]
        let containsA: Bool
        let aIsNull: Bool
        let a: Int?
        let b: Int?
        let aAgain: Int?

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: AnyKey.self)
            let a = AnyKey(stringValue: "a")
            keys = container.allKeys.map(\.stringValue).sorted()
            containsA = container.contains(a)
            aIsNull = try container.decodeNil(forKey: a)
            self.a = try container.decodeIfPresent(Int.self, forKey: a)
            b = try container.decodeIfPresent(Int.self, forKey: AnyKey(stringValue: "b"))
            aAgain = try? container.decode(Int.self, forKey: a)
        }
    }

    @Test(arguments: [
        #"{"a":1,"b":2,"a":3}"#,
        #"{"a":null,"b":2,"a":3}"#,
        #"{"a":3,"b":2,"a":null}"#,
        #"{"b":2,"a":1,"b":5,"a":3,"a":4}"#,
        #"{"a":1,"a":2}"#,
    ])
    func everyLookupFindsTheFirstValue(_ text: String) throws {
        let lookups = try #require(try Self.expectAlike(Lookups.self, text))
        #expect(Set(lookups.keys).count == lookups.keys.count)
        try Self.expectAlike(Lookups.self, text, snakeCase: true)
    }

    enum Choice: Decodable, Equatable {
        case none
        case some(Int)
    }

    @Test func aSynthesizedEnumReadsARepeatedCaseOnce() throws {
        #expect(try Self.expectAlike(Choice.self, #"{"none":{},"none":{}}"#) == Choice.none)
        #expect(try Self.expectAlike(Choice.self, #"{"some":{"_0":1},"some":{"_0":2}}"#) == .some(1))
        #expect(try Self.expectAlike(Choice.self, #"{"none":{},"some":{"_0":2}}"#) == nil)
    }

    struct Nested: Decodable, Equatable {
        let o: AB
        let list: [Int]
    }

    @Test func nestedContainersComeFromTheFirstValue() throws {
        let text = #"{"o":{"a":1,"b":2,"a":3},"list":[1],"o":{"a":5,"b":6},"list":[2,3]}"#
        #expect(try Self.expectAlike(Nested.self, text) == Nested(o: AB(a: 1, b: 2), list: [1]))
    }

    struct Text: Decodable, Equatable {
        let a: String
    }

    struct OptionalNumber: Decodable, Equatable {
        let a: Int?
    }

    @Test func theFirstValueIsDecodedWhateverTheLaterOnesHold() throws {
        #expect(try Self.expectAlike(Text.self, #"{"a":"x","a":3}"#) == Text(a: "x"))
        #expect(try Self.expectAlike(Text.self, #"{"a":3,"a":"x"}"#) == nil)
        #expect(try Self.expectAlike(OptionalNumber.self, #"{"a":null,"a":3}"#) == OptionalNumber(a: nil))
        #expect(try Self.expectAlike(OptionalNumber.self, #"{"a":3,"a":null}"#) == OptionalNumber(a: 3))
    }

    @Test func aKeyWrittenWithAnEscapeRepeatsTheSameKey() throws {
        #expect(try Self.expectAlike(Text.self, #"{"a":"x","\u0061":"y"}"#) == Text(a: "x"))
        #expect(try Self.expectAlike(Text.self, #"{"\u0061":"y","a":"x"}"#) == Text(a: "y"))
    }

    struct Camel: Decodable, Equatable {
        let aB: Int
    }

    @Test func keysThatConvertToTheSameNameRepeatIt() throws {
        #expect(try Self.expectAlike(Camel.self, #"{"a_b":1,"aB":2}"#, snakeCase: true) == Camel(aB: 1))
        #expect(try Self.expectAlike(Camel.self, #"{"aB":1,"a_b":2}"#, snakeCase: true) == Camel(aB: 1))
        #expect(
            try Self.expectAlike(Camel.self, #"{"x":0,"a__b":1,"_a_b":5,"A_B":2}"#, snakeCase: true) == Camel(aB: 1)
        )
    }

    @Test func keysThatACustomStrategyConvertsToTheSameNameRepeatIt() throws {
        let lowercased: @Sendable ([any CodingKey]) -> any CodingKey = { path in
            AnyKey(stringValue: (path.last?.stringValue ?? "").lowercased())
        }
        let foundation = JSONDecoder()
        foundation.keyDecodingStrategy = .custom(lowercased)
        let sluice = JSONDocumentDecoder(keyDecodingStrategy: .custom(lowercased))
        for text in [#"{"A":1,"b":2,"a":3}"#, #"{"B":2,"a":1,"b":5,"A":3}"#] {
            let bytes = Data(text.utf8)
            let expected = try foundation.decode(BA.self, from: bytes)
            #expect(try sluice.decode(BA.self, from: bytes) == expected, "\(text)")
            #expect(try sluice.decode(Lookups.self, from: bytes) == foundation.decode(Lookups.self, from: bytes))
        }
    }

    @Test func dictionariesKeepTheFirstValue() throws {
        #expect(try Self.expectAlike([String: Int].self, #"{"a":1,"b":2,"a":3}"#) == ["a": 1, "b": 2])
        #expect(try Self.expectAlike([String: Int].self, #"{"a":1,"a":"x"}"#) == ["a": 1])
        #expect(try Self.expectAlike([String: Int].self, #"{"a":"x","a":1}"#) == nil)
        #expect(try Self.expectAlike([String: Int].self, #"{"e\u0301":1,"é":"x","b":2}"#) == ["é": 1, "b": 2])
        #expect(try Self.expectAlike([String: [String: Int]].self, #"{"o":{"a":1,"a":"x"},"o":7}"#) == ["o": ["a": 1]])
        // Under a key decoding strategy Foundation decodes every value and keeps the first.
        #expect(try Self.expectAlike([String: Int].self, #"{"a":1,"a":2}"#, snakeCase: true) == ["a": 1])
        #expect(try Self.expectAlike([String: Int].self, #"{"a":1,"a":"x"}"#, snakeCase: true) == nil)
        #expect(try Self.expectAlike([String: Int].self, #"{"a_b":1,"aB":2}"#, snakeCase: true) == ["a_b": 1, "aB": 2])
    }

    @Test func superDecodersReadTheFirstValue() throws {
        let text = #"{"name":"a","super":1,"extra":2,"super":3,"extra":4}"#
        let derived = try Self.expectAlike(FoundationKeyFidelityTests.Derived.self, text)
        #expect(derived?.base == 1)
        #expect(derived?.extra == 2)
    }

    /// Objects with hundreds of keys, one of them repeated far from its first occurrence, and deeper than the
    /// decoder keeps search positions for.
    @Test(arguments: [false, true])
    func largeAndDeepObjectsKeepTheFirstValue(snakeCase: Bool) throws {
        let members = (0..<600).map { #""key_\#($0)":\#($0)"# }
        let text = "{" + members.joined(separator: ",") + #","key_7":-1,"key_599":-2}"#
        let large = try #require(try Self.expectAlike([String: Int].self, text, snakeCase: snakeCase))
        #expect(large.count == 600)
        #expect(large["key_7"] == 7)
        let deep =
            String(repeating: #"{"o":{"a":1,"b":2,"a":3},"n":"#, count: 20) + "null" + String(repeating: "}", count: 20)
        try Self.expectAlike(Deep.self, deep, snakeCase: snakeCase)
    }

    /// A property whose key is `é`, precomposed.
    struct Accented: Decodable, Equatable {
        let value: Int

        enum CodingKeys: String, CodingKey {
            case value = "\u{E9}"
        }
    }

    /// A property whose key is `K`, which the Kelvin sign is canonically equivalent to.
    struct Kelvin: Decodable, Equatable {
        let value: Int

        enum CodingKeys: String, CodingKey {
            case value = "K"
        }
    }

    /// The keys of an object as its container lists them (sorted, as Foundation's order is its dictionary's), each as
    /// its Unicode scalars, so that two spellings of one name stay apart.
    struct Spellings: Decodable, Equatable {
        let keys: [[UInt32]]

        init(from decoder: any Decoder) throws {
            keys = try decoder.container(keyedBy: AnyKey.self).allKeys
                .map { $0.stringValue.unicodeScalars.map(\.value) }
                .sorted { $0.lexicographicallyPrecedes($1) }
        }
    }

    /// Keys written in other bytes that Swift's `String` holds equal (canonically equivalent) are one key, as in
    /// Foundation's decoder: the first value wins, in the first spelling, whichever spelling the model has.
    @Test(arguments: [
        #"{"e\u0301":1,"é":2}"#, #"{"é":1,"e\u0301":2}"#, #"{"\u212A":1,"K":2}"#, #"{"K":1,"\u212A":2}"#,
        #"{"x":0,"e\u0301":1,"y":0,"é":2,"K":3,"\u212A":4}"#, #"{"x":0,"y":0,"\u212A":3,"K":4,"é":5,"e\u0301":6}"#,
    ])
    func keysThatDifferOnlyInNormalizationAreOneKey(_ text: String) throws {
        for snakeCase in [false, true] {
            try Self.expectAlike(Accented.self, text, snakeCase: snakeCase)
            try Self.expectAlike(Kelvin.self, text, snakeCase: snakeCase)
            try Self.expectAlike([String: Int].self, text, snakeCase: snakeCase)
        }
        try Self.expectAlike(Spellings.self, text)
    }

    final class Deep: Decodable, Equatable {
        let o: BA
        let n: Deep?

        static func == (lhs: Deep, rhs: Deep) -> Bool {
            lhs.o == rhs.o && lhs.n == rhs.n
        }
    }
}

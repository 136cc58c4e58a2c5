import Foundation
import SluiceJSON
import TestSupport
import Testing

/// Random documents decoded by Sluice's decoder and by Foundation's `JSONDecoder`: the same value, or both throwing.
///
/// Each case is generated from a fixed seed, so a failure names the document that differs and reproduces.
@Suite struct DifferentialDecodingTests {
    /// Any JSON value, decoded through the single-value, keyed and unkeyed containers in turn.
    indirect enum Tree: Decodable, Equatable {
        case null
        case bool(Bool)
        case integer(Int64)
        case double(Double)
        case string(String)
        case array([Tree])
        case object([String: Tree])

        init(from decoder: any Decoder) throws {
            if let container = try? decoder.container(keyedBy: AnyKey.self) {
                var members: [String: Tree] = [:]
                for key in container.allKeys {
                    members[key.stringValue] = try container.decode(Tree.self, forKey: key)
                }
                self = .object(members)
                return
            }
            if var container = try? decoder.unkeyedContainer() {
                var elements: [Tree] = []
                while !container.isAtEnd {
                    elements.append(try container.decode(Tree.self))
                }
                self = .array(elements)
                return
            }
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                self = .null
            } else if let bool = try? container.decode(Bool.self) {
                self = .bool(bool)
            } else if let integer = try? container.decode(Int64.self) {
                self = .integer(integer)
            } else if let double = try? container.decode(Double.self) {
                self = .double(double)
            } else {
                self = .string(try container.decode(String.self))
            }
        }
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

    /// Writes a random JSON value: scalars of every kind (integers near every fixed-width bound, decimals,
    /// exponents, escapes, non-ASCII text), and arrays and objects, some of which repeat a key, nested up to `depth`.
    static func value(_ generator: inout SplitMix64, depth: Int) -> String {
        let kind = Int.random(in: 0..<(depth > 0 ? 9 : 7), using: &generator)
        switch kind {
        case 0: return "null"
        case 1: return Bool.random(using: &generator) ? "true" : "false"
        case 2: return number(&generator)
        case 3: return number(&generator)
        case 4, 5: return string(&generator)
        case 6: return String(Int.random(in: -1000...1000, using: &generator))
        case 7:
            let count = Int.random(in: 0...4, using: &generator)
            return "[" + (0..<count).map { _ in value(&generator, depth: depth - 1) }.joined(separator: ",") + "]"
        default:
            let count = Int.random(in: 0...4, using: &generator)
            var keys: [String] = []
            for index in 0..<count {
                // One key in five repeats an earlier one, whose first value both decoders keep.
                let repeated = !keys.isEmpty && Int.random(in: 0..<5, using: &generator) == 0
                keys.append(
                    repeated
                        ? keys[Int.random(in: 0..<keys.count, using: &generator)]
                        : "k\(index)\(Int.random(in: 0...9, using: &generator))"
                )
            }
            let members = keys.map { "\"\($0)\":" + value(&generator, depth: depth - 1) }
            return "{" + members.joined(separator: ",") + "}"
        }
    }

    static let bounds: [String] = [
        "127", "128", "-128", "-129", "255", "256", "32767", "32768", "-32769", "65535", "65536", "2147483647",
        "2147483648", "-2147483649", "4294967295", "4294967296", "9223372036854775807", "9223372036854775808",
        "-9223372036854775808", "-9223372036854775809", "18446744073709551615", "18446744073709551616",
    ]

    static func number(_ generator: inout SplitMix64) -> String {
        switch Int.random(in: 0..<6, using: &generator) {
        case 0: return bounds[Int.random(in: 0..<bounds.count, using: &generator)]
        case 1: return String(Double.random(in: -1e6...1e6, using: &generator))
        case 2: return "\(Int.random(in: -99...99, using: &generator)).\(Int.random(in: 0...999, using: &generator))"
        case 3:
            return "\(Int.random(in: 1...9, using: &generator))e\(Int.random(in: -30...30, using: &generator))"
        case 4: return "\(Int.random(in: -5...5, using: &generator)).0"
        default: return String(Int64.random(in: .min ... .max, using: &generator))
        }
    }

    static func string(_ generator: inout SplitMix64) -> String {
        let pieces = ["a", "Zz", "é", "😀", "\\n", "\\\"", "\\u00e9", "\\ud83d\\ude00", " ", "\\/", "日本"]
        let count = Int.random(in: 0...5, using: &generator)
        return "\"" + (0..<count).map { _ in pieces[Int.random(in: 0..<pieces.count, using: &generator)] }.joined()
            + "\""
    }

    /// Decodes with both; a failure description naming the document when they differ.
    static func compare<T: Decodable & Equatable>(_ type: T.Type, _ text: String) -> String? {
        let bytes = Data(text.utf8)
        let sluice = try? JSONDocumentDecoder().decode(type, from: bytes)
        let foundation = try? JSONDecoder().decode(type, from: bytes)
        guard sluice != foundation else { return nil }
        let found = "Sluice \(String(describing: sluice)), Foundation \(String(describing: foundation))"
        return "\(T.self) from \(text): \(found)"
    }

    @Test func randomDocumentsDecodeToTheSameTree() {
        var generator = SplitMix64(seed: 0xD1FF_0001)
        var differences: [String] = []
        for _ in 0..<3_000 {
            if let difference = Self.compare(Tree.self, Self.value(&generator, depth: 4)) {
                differences.append(difference)
            }
        }
        #expect(differences.isEmpty, "\(differences.count) differ; first: \(differences.prefix(3))")
    }

    @Test func randomNumbersDecodeToEveryNumericTypeAlike() {
        var generator = SplitMix64(seed: 0xD1FF_0002)
        var differences: [String] = []
        for _ in 0..<2_000 {
            let text = Self.number(&generator)
            let results = [
                Self.compare([Int].self, "[\(text)]"), Self.compare([Int8].self, "[\(text)]"),
                Self.compare([Int16].self, "[\(text)]"), Self.compare([Int32].self, "[\(text)]"),
                Self.compare([Int64].self, "[\(text)]"), Self.compare([UInt].self, "[\(text)]"),
                Self.compare([UInt8].self, "[\(text)]"), Self.compare([UInt16].self, "[\(text)]"),
                Self.compare([UInt32].self, "[\(text)]"), Self.compare([UInt64].self, "[\(text)]"),
                Self.compare([Double].self, "[\(text)]"), Self.compare([Float].self, "[\(text)]"),
            ]
            differences.append(contentsOf: results.compactMap { $0 })
        }
        #expect(differences.isEmpty, "\(differences.count) differ; first: \(differences.prefix(3))")
    }

    /// A model that reads its keys in a fixed order, none in the document's, some optional, one nested.
    struct Shuffled: Decodable, Equatable {
        let name: String
        let id: Int
        let tags: [String]?
        let zone: String?
        let child: Child?
        let code: Int?
        let note: String

        struct Child: Decodable, Equatable {
            let id: Int?
            let name: String?
        }
    }

    /// Arrays of objects whose keys come in a different order in each, some missing, some repeated, with a nested
    /// object of the same key names and with more keys than the decoder predicts: each element decoded as Foundation
    /// decodes it, whichever order the lookups found in the objects before it.
    @Test func objectsWithShuffledKeysDecodeAlike() {
        var generator = SplitMix64(seed: 0xD1FF_0003)
        let values: [String: [String]] = [
            "name": [#""ana""#, #""b\u00e9a""#, #""c""#],
            "id": ["7", "-3", "12"],
            "tags": ["[]", #"["x","y"]"#, "null"],
            "zone": [#""eu""#, "null", #""us""#],
            "child": [#"{"name":"c","id":2}"#, #"{"id":3,"note":"n","name":null}"#, "null"],
            "code": ["0", "null", "15"],
            "note": [#""n""#, #""\u006e""#, #""m""#],
        ]
        let required: Set = ["name", "id", "note"]
        var differences: [String] = []
        for _ in 0..<1_000 {
            let elements = (0..<Int.random(in: 1...6, using: &generator)).map { _ in
                // The required keys are nearly always there, so that most elements decode.
                var members = values.keys.filter {
                    required.contains($0) || Int.random(in: 0..<4, using: &generator) != 0
                }
                .shuffled(using: &generator)
                .map { key in (key, Int.random(in: 0..<(values[key]?.count ?? 1), using: &generator)) }
                // A key repeated after its first occurrence, with another value, which only the first may give.
                if !members.isEmpty, Int.random(in: 0..<3, using: &generator) == 0 {
                    let first = Int.random(in: 0..<members.count, using: &generator)
                    let (key, choice) = members[first]
                    let repeated = (key, (choice + 1) % (values[key]?.count ?? 1))
                    members.insert(repeated, at: Int.random(in: (first + 1)...members.count, using: &generator))
                }
                if Int.random(in: 0..<8, using: &generator) == 0 {
                    members += (0..<12).map { ("extra\($0)", 0) }
                }
                if Int.random(in: 0..<20, using: &generator) == 0 {
                    members.removeAll { $0.0 == "note" }
                }
                let written = members.map { key, choice in "\"\(key)\":" + (values[key]?[choice] ?? "0") }
                return "{" + written.joined(separator: ",") + "}"
            }
            for element in elements {
                if let difference = Self.compare([Shuffled].self, "[\(element)]") {
                    differences.append(difference)
                }
            }
            if let difference = Self.compare([Shuffled].self, "[" + elements.joined(separator: ",") + "]") {
                differences.append(difference)
            }
        }
        #expect(differences.isEmpty, "\(differences.count) differ; first: \(differences.prefix(3))")
    }
}

import Foundation
import SluiceJSON
import Testing

/// Keys, coding paths, floats and super decoders: Sluice's decoder and Foundation's on the same bytes.
@Suite struct FoundationKeyFidelityTests {
    static func both<T: Decodable>(
        _ type: T.Type,
        _ text: String,
        snakeCase: Bool = false
    ) -> (sluice: Result<T, any Error>, foundation: Result<T, any Error>) {
        let bytes = Data(text.utf8)
        let foundation = JSONDecoder()
        if snakeCase {
            foundation.keyDecodingStrategy = .convertFromSnakeCase
        }
        let sluice = JSONDocumentDecoder(keyDecodingStrategy: snakeCase ? .convertFromSnakeCase : .useDefaultKeys)
        return (Result { try sluice.decode(type, from: bytes) }, Result { try foundation.decode(type, from: bytes) })
    }

    // MARK: - Float

    @Test(arguments: ["16777217.000000001", "3.4028235677973366e38", "1.00000017881393432617187499", "0.1", "1e-44"])
    func aFloatIsRoundedOnceFromTheText(_ text: String) throws {
        let (sluice, foundation) = Self.both([Float].self, "[\(text)]")
        let expected = try foundation.get()
        #expect(try sluice.get() == expected, "\(text)")
    }

    @Test func halfwayCasesBetweenFloatsRoundAsFoundationRounds() throws {
        // Each float's halfway point to the next, nudged up and down in the last decimal place.
        var texts: [String] = []
        var value: Float = 1
        // Kept below 10^15, so that `%.17g` writes plain digits to which a last digit can be appended.
        for _ in 0..<100 {
            let halfway = (Double(value) + Double(value.nextUp)) / 2
            texts.append(String(format: "%.17g1", halfway))
            texts.append(String(format: "%.17g", halfway))
            value = value * 1.37 + 0.11
        }
        let (sluice, foundation) = Self.both([Float].self, "[" + texts.joined(separator: ",") + "]")
        #expect(try sluice.get() == foundation.get())
    }

    @Test func aNumberBeyondFloatFailsInBoth() {
        let (sluice, foundation) = Self.both([Float].self, "[3.5e38]")
        #expect(throws: DecodingError.self) { try sluice.get() }
        #expect(throws: DecodingError.self) { try foundation.get() }
    }

    // MARK: - Keys

    struct Accented: Decodable, Equatable {
        let accent: Int

        enum CodingKeys: String, CodingKey {
            case accent = "\u{E9}"  // precomposed
        }
    }

    @Test func aDecomposedKeyMatchesAPrecomposedProperty() throws {
        let (sluice, foundation) = Self.both(Accented.self, #"{"e\u0301": 1}"#)
        #expect(try foundation.get() == Accented(accent: 1))
        #expect(try sluice.get() == Accented(accent: 1))
        let written = Self.both(Accented.self, "{\"e\u{301}\": 2}")
        #expect(try written.sluice.get() == written.foundation.get())
    }

    struct Profile: Decodable {
        let userId: Int
        let displayName: String
    }

    struct Envelope: Decodable {
        let profile: Profile
    }

    @Test func codingPathsUnderSnakeCaseHoldTheConvertedKeys() throws {
        let text = #"{"profile": {"user_id": "7", "display_name": "Ada"}}"#
        let (sluice, foundation) = Self.both(Envelope.self, text, snakeCase: true)
        let paths = [sluice, foundation].map { result -> [String] in
            guard case .failure(DecodingError.typeMismatch(_, let context)) = result else { return [] }
            return context.codingPath.map(\.stringValue)
        }
        #expect(paths[1] == ["profile", "userId"])
        #expect(paths[0] == paths[1])
    }

    /// Records the coding path the decoder reports inside a nested model.
    struct PathProbe: Decodable {
        let path: [String]

        init(from decoder: any Decoder) throws {
            path = decoder.codingPath.map(\.stringValue)
        }
    }

    struct ProbeEnvelope: Decodable {
        let innerValue: PathProbe
    }

    @Test func decoderCodingPathUnderSnakeCaseHoldsTheConvertedKey() throws {
        let (sluice, foundation) = Self.both(ProbeEnvelope.self, #"{"inner_value": {}}"#, snakeCase: true)
        #expect(try foundation.get().innerValue.path == ["innerValue"])
        #expect(try sluice.get().innerValue.path == foundation.get().innerValue.path)
    }

    struct MapHolder: Decodable {
        let theMap: [String: Int]
    }

    struct ProbeMapHolder: Decodable {
        let theMap: [String: PathProbe]
    }

    /// A key decoding strategy does not apply to a dictionary's keys, and the coding paths through one hold its keys
    /// as written, in an error and in `decoder.codingPath` alike.
    @Test func codingPathsThroughADictionaryUnderSnakeCaseHoldItsKeysAsWritten() throws {
        let (sluice, foundation) = Self.both(MapHolder.self, #"{"the_map": {"a_b": 1, "c_d": "x"}}"#, snakeCase: true)
        let paths = [sluice, foundation].map { result -> [String] in
            guard case .failure(DecodingError.typeMismatch(_, let context)) = result else { return [] }
            return context.codingPath.map(\.stringValue)
        }
        #expect(paths[1] == ["theMap", "c_d"])
        #expect(paths[0] == paths[1])
        let probed = Self.both(ProbeMapHolder.self, #"{"the_map": {"a_b": {}}}"#, snakeCase: true)
        #expect(try probed.foundation.get().theMap["a_b"]?.path == ["theMap", "a_b"])
        #expect(try probed.sluice.get().theMap["a_b"]?.path == probed.foundation.get().theMap["a_b"]?.path)
    }

    // MARK: - Super decoders

    /// A subclass-style model that reads its superclass's part with `superDecoder()` and a named part with
    /// `superDecoder(forKey:)`; its `CodingKeys` has no `super` case.
    struct Derived: Decodable, Equatable {
        let name: String
        let base: Int?
        let extra: Int?

        enum CodingKeys: String, CodingKey {
            case name
            case extra
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = try container.decode(String.self, forKey: .name)
            base = try container.superDecoder().singleValueContainer().decode(Int?.self)
            extra = try container.superDecoder(forKey: .extra).singleValueContainer().decode(Int?.self)
        }

        init(name: String, base: Int?, extra: Int?) {
            self.name = name
            self.base = base
            self.extra = extra
        }
    }

    @Test(arguments: [
        #"{"name": "a", "super": 1, "extra": 2}"#,
        #"{"name": "a"}"#,
        #"{"name": "a", "super": null}"#,
    ])
    func superDecodersNeedNoSuperKeyAndGiveNullForAMissingKey(_ text: String) throws {
        let (sluice, foundation) = Self.both(Derived.self, text)
        #expect(try sluice.get() == foundation.get())
    }
}

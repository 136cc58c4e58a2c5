import ClientFixtures
import Foundation
import SluiceEndpoints
import Testing

/// The spellings kept from before each concept had one name still compile and still do what their replacements do.
///
/// The only place the tests use them, so the compiler's deprecation warnings stand here alone.
@Suite struct DeprecatedTests {
    @Test func theEffectiveDefaultIsTheDefault() async {
        let scoped = Server([.production: URL(staticString: "https://scoped.example.com")])
        #expect(Server.effectiveDefault === Server.default)
        await Server.withDefault(scoped) {
            #expect(Server.effectiveDefault === scoped)
        }
    }

    @Test func aJSONDocumentDecodersBodyDeserializerParsesWithItsLimitsAndReadsAnEmptyBodyAsNull() throws {
        let decoder = JSONDocumentDecoder(deserializer: JSONDeserializer(maximumDepth: 1))
        #expect(try decoder.bodyDeserializer.deserialize(Data()) as? JSON == .null)
        #expect(try decoder.bodyDeserializer.deserialize(Data("[1]".utf8)) as? JSON == [1])
        #expect(throws: JSONError.self) { try decoder.bodyDeserializer.deserialize(Data("[[1]]".utf8)) }
        #expect(try bodyDeserializer(of: decoder).deserialize(Data()) as? JSON == .null, "also through generic code")
    }

    @Test func anotherDecodersBodyDeserializerHandsTheBytesOn() throws {
        let body = Data(#"{"id": 1, "name": "Ada"}"#.utf8)
        #expect(try JSONDecoder().bodyDeserializer.deserialize(body) as? Data == body)
        #expect(try bodyDeserializer(of: PropertyListDecoder()).deserialize(body) as? Data == body)
    }

    @Test func decodingFromTheDeserializedObjectDecodesAsTheStagesDid() throws {
        let body = Data(#"{"id": 1, "name": "Ada"}"#.utf8)
        let ada = User(id: 1, name: "Ada")
        let document = JSONDocumentDecoder()
        #expect(try document.decode(User.self, fromDeserialized: document.bodyDeserializer.deserialize(body)) == ada)
        #expect(try document.decode(User.self, fromDeserialized: body) == ada)
        #expect(try JSONDecoder().decode(User.self, fromDeserialized: body) == ada)
        #expect(throws: DecodingError.self, "a decoder that reads bytes is handed a document") {
            try JSONDecoder().decode(User.self, fromDeserialized: JSON(parsing: body))
        }
    }

    @Test func aDecodersOwnStageMembersAreNoLongerTheEndpointsStages() async throws {
        struct TextFirstDecoder: DataDecoder {
            var bodyDeserializer: any Deserializer { TextDeserializer() }

            func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
                try JSONDecoder().decode(type, from: data)
            }

            func decode<T: Decodable>(_ type: T.Type, fromDeserialized object: Any) throws -> T {
                throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "not called"))
            }
        }
        struct GetUser: Endpoint {
            static let definition = Definition<GetUser>(method: .get, path: "users/1")
            typealias Response = User
            var responseDecoder: TextFirstDecoder { TextFirstDecoder() }
        }
        #expect(GetUser().deserializer is DataDeserializer)
        let body = Data(#"{"id": 1, "name": "Ada"}"#.utf8)
        #expect(try GetUser().responseObject(from: body) == User(id: 1, name: "Ada"))
    }
}

/// The deserializer a decoder names, read where only its conformance is known.
private func bodyDeserializer(of decoder: some DataDecoder) -> any Deserializer {
    decoder.bodyDeserializer
}

/// Text, so that a decoder's own deserializer would show if it ran.
private struct TextDeserializer: Deserializer {
    func deserialize(_ data: Data) -> Any { String(decoding: data, as: UTF8.self) }
}

import ClientFixtures
import Foundation
import SluiceEndpoints
import SluiceTesting
import Testing

/// A declarative endpoint decoding with the default `JSONDocumentDecoder`.
private struct DocumentUsers: Endpoint {
    static let definition = Definition<DocumentUsers>(server: dialectServer, method: .get, path: "users")
    typealias Response = [User]
}

/// A declarative endpoint decoding with Foundation's `JSONDecoder`, which has no deserialize step of its own.
private struct FoundationUsers: Endpoint {
    static let definition = Definition<FoundationUsers>(server: dialectServer, method: .get, path: "users")
    typealias Response = [User]
    var responseDecoder: JSONDecoder { JSONDecoder() }
}

/// A declarative endpoint whose decoder reads the bytes with `JSONDocumentDecoder` in one go, as a decoder that first
/// strips a prefix does, so that the JSON is parsed in the parse stage.
private struct WholeBodyUsers: Endpoint {
    struct WholeBodyDecoder: DataDecoder {
        func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
            try JSONDocumentDecoder().decode(type, from: data)
        }
    }

    static let definition = Definition<WholeBodyUsers>(server: dialectServer, method: .get, path: "users")
    typealias Response = [User]
    var responseDecoder: WholeBodyDecoder { WholeBodyDecoder() }
}

/// A declarative endpoint generic over its decoder: its stages are those of the decoder it is given.
private struct AnyDecoderUser<Decoder: DataDecoder & Sendable>: Endpoint {
    static var definition: Definition<AnyDecoderUser> {
        Definition(server: dialectServer, method: .get, path: "users/1")
    }
    typealias Response = User?
    let responseDecoder: Decoder
}

/// A repository endpoint returning the same users.
private struct RepositoryUsers: EndpointDefinition {
    typealias Response = ArrayResponse<User>
    static let path = "users"
    var method: HTTPMethod { .get }
}

/// One dialect's request for the users, run through a client whose performer answers with a given body.
struct StageCase: Sendable, CustomTestStringConvertible {
    let testDescription: String
    let run: @Sendable (Data) async throws -> PipelineMetrics

    static func of<R: Request>(_ name: String, _ request: R) -> StageCase {
        StageCase(testDescription: name) { body in
            let client = APIClient(requestPerformer: StubPerformer(always: HTTPResponse(status: .ok, body: body)))
            return try await client.response(for: request).metrics
        }
    }
}

private let dialects: [StageCase] = [
    .of("Endpoint", DocumentUsers()),
    .of("APIDefinition", APIDefinitionRequest(RowAPI(path: "users", method: .GET), expecting: [User].self)),
    .of("Repository", GenericRequest(RepositoryUsers(), baseURL: dialectBaseURL)),
    .of("Request", ListUsers()),
]

/// Five hundred users, a body whose stages take measurable time.
private let manyUsers = Data(
    ("[" + (1...500).map { #"{"id": \#($0), "name": "User number \#($0)"}"# }.joined(separator: ",") + "]").utf8
)

@Suite struct DialectStageTests {
    @Test(arguments: dialects)
    func aMalformedBodyFailsInTheDeserializeStage(_ dialect: StageCase) async throws {
        let error = try await #require(throws: SluiceError.self) {
            try await dialect.run(Data(#"[{"id": 1,"#.utf8))
        }
        #expect(error.code == .deserialize)
        #expect(error.jsonError != nil)
        #expect(String(describing: error).contains("[stage: deserialize]"))
    }

    @Test(arguments: dialects)
    func aBodyOfAnotherShapeFailsInTheParseStage(_ dialect: StageCase) async throws {
        let error = try await #require(throws: SluiceError.self) {
            try await dialect.run(Data(#"[{"id": "one", "name": "Ada"}]"#.utf8))
        }
        #expect(error.code == .parse)
        #expect(error.jsonPath == "$[0].id")
        #expect(String(describing: error).contains("at $[0].id [stage: parse]"))
    }

    @Test(arguments: dialects)
    func eachStageIsTimedWhereItsWorkIsDone(_ dialect: StageCase) async throws {
        let metrics = try await dialect.run(manyUsers)
        #expect(metrics.deserialize > .zero)
        #expect(metrics.parse > .zero)
    }

    @Test func anEndpointParsesItsJSONWithTheDecodersOwnLimits() async throws {
        struct Shallow: Endpoint {
            static let definition = Definition<Shallow>(server: dialectServer, method: .get, path: "users")
            typealias Response = [User]
            var responseDecoder: JSONDocumentDecoder {
                JSONDocumentDecoder(deserializer: JSONDeserializer(maximumDepth: 1))
            }
        }
        let client = APIClient(requestPerformer: StubPerformer(always: HTTPResponse(status: .ok, body: manyUsers)))
        let error = try await #require(throws: SluiceError.self) { try await client.perform(Shallow()) }
        #expect(error.code == .deserialize)
        #expect(String(describing: error).contains("[stage: deserialize]"))
    }

    @Test func anAPIDefinitionParsesItsJSONWithTheDecodersOwnLimits() async throws {
        struct Shallow: APIDefinition {
            var baseURL: URL { dialectBaseURL }
            var path: String { "users" }
            var method: HTTPMethod { .GET }
            var responseDecoder: JSONDocumentDecoder {
                JSONDocumentDecoder(deserializer: JSONDeserializer(maximumDepth: 1))
            }
        }
        let client = APIClient(requestPerformer: StubPerformer(always: HTTPResponse(status: .ok, body: manyUsers)))
        let error = try await #require(throws: SluiceError.self) {
            try await client.perform(Shallow(), expecting: [User].self)
        }
        #expect(error.code == .deserialize)
        #expect(String(describing: error).contains("[stage: deserialize]"))
    }

    @Test func aFoundationDecoderDoesItsWholeWorkInTheParseStage() async throws {
        let metrics = try await StageCase.of("JSONDecoder", FoundationUsers()).run(manyUsers)
        #expect(metrics.parse > .zero)
        let client = APIClient(
            requestPerformer: StubPerformer(always: HTTPResponse(status: .ok, body: Data(#"[{"id": 1,"#.utf8)))
        )
        let error = try await #require(throws: SluiceError.self) { try await client.perform(FoundationUsers()) }
        #expect(error.code == .parse)
        #expect(error.underlyingError is DecodingError)
        #expect(String(describing: error).contains("[stage: parse]"))
    }

    @Test func aMalformedBodyParsedInTheParseStageIsLocatedInTheBody() async throws {
        let client = APIClient(
            requestPerformer: StubPerformer(always: HTTPResponse(status: .ok, body: Data("[{\"id\": 1,\n  ]".utf8)))
        )
        let error = try await #require(throws: SluiceError.self) { try await client.perform(WholeBodyUsers()) }
        #expect(error.code == .parse)
        #expect(error.underlyingError is DecodingError, "what JSONDecoder throws for bytes that are not JSON")
        #expect(error.jsonError?.offset == 13)
        #expect(
            error.description == """
                error: cannot parse the response: expected a string key, found ']'
                  --> GET https://api.example.com/v1/users, body line 2, column 3 (byte 13) [stage: parse]
                   |
                 2 |   ]
                   |   ^
                   | status: 200 OK
                   | body: [{"id": 1,   ]
                """
        )
    }

    @Test func anEndpointGenericOverItsDecoderRunsTheStagesOfTheDecoderItHolds() async throws {
        let json = AnyDecoderUser(responseDecoder: JSONDocumentDecoder())
        #expect(pipelineDeserializer(of: json) is JSONDeserializer, "the conformance's member sees the decoder held")
        let malformed = try await #require(throws: SluiceError.self) {
            try await StageCase.of("generic", json).run(Data(#"{"id": 1,"#.utf8))
        }
        #expect(malformed.code == .deserialize)
        #expect(malformed.jsonError?.offset == 9)
        #expect(String(describing: malformed).contains("[stage: deserialize]"))
        let empty = APIClient(requestPerformer: StubPerformer(always: HTTPResponse(status: .ok, body: Data())))
        #expect(try await empty.perform(json) == nil, "an empty body reads as null, as for a concrete endpoint")

        let bytes = AnyDecoderUser(responseDecoder: JSONDecoder())
        #expect(pipelineDeserializer(of: bytes) is DataDeserializer)
        let wrong = try await #require(throws: SluiceError.self) {
            try await StageCase.of("generic", bytes).run(Data(#"{"id": 1,"#.utf8))
        }
        #expect(wrong.code == .parse, "a decoder that reads bytes decodes them in the parse stage")
    }

    @Test func theDecodersTypeChoosesTheParserWhenTheEndpointConforms() throws {
        #expect(DocumentUsers.ResponseParser.self == JSON.self)
        #expect(FoundationUsers.ResponseParser.self == Data.self)
        #expect(AnyDecoderUser<JSONDocumentDecoder>.ResponseParser.self == JSON.self)
        #expect(AnyDecoderUser<JSONDecoder>.ResponseParser.self == Data.self)
        #expect(try Data.parse(Data("[1]".utf8)) == Data("[1]".utf8))
        #expect(throws: DecodingError.self) { try Data.parse(JSON.null) }
    }

    @Test func emptyVoidAndDataResponsesPassThroughWithoutStages() async throws {
        struct Bytes: Endpoint {
            static let definition = Definition<Bytes>(server: dialectServer, method: .get, path: "avatar")
            typealias Response = Data
        }
        let body = Data("not json".utf8)
        let client = APIClient(requestPerformer: StubPerformer(always: HTTPResponse(status: .ok, body: body)))
        let response = try await client.response(for: Bytes())
        #expect(response.value == body)
        #expect(response.metrics.deserialize == .zero)
        #expect(response.metrics.parse == .zero)
    }
}

/// The deserializer the pipeline runs for a request: the member its conformance picked.
private func pipelineDeserializer(of request: some Request) -> (any Deserializer)? {
    request.deserializer
}

/// An empty body, as servers send with 204, in the dialects that decode with a `JSONDocumentDecoder`.
@Suite struct DialectEmptyBodyTests {
    struct OptionalUser: Endpoint {
        static let definition: Definition<OptionalUser> = Definition(
            server: Server([.production: dialectBaseURL]),
            method: .get,
            path: "users/1"
        )
        typealias Response = User?
    }

    struct OptionalUserDefinition: APIDefinition {
        var baseURL: URL { dialectBaseURL }
        var path: String { "users/1" }
        var method: HTTPMethod { .GET }
    }

    let client = APIClient(requestPerformer: StubPerformer(always: HTTPResponse(status: .noContent, body: Data())))

    @Test func anOptionalResponseDecodesToNilFromAnEmptyBodyInEveryDialect() async throws {
        #expect(try await client.perform(OptionalUser()) == nil)
        #expect(try await client.perform(OptionalUserDefinition(), expecting: User?.self) == nil)
    }

    @Test func aRequiredResponseFailsInTheParseStageSayingItFoundNull() async throws {
        let error = try await #require(throws: SluiceError.self) {
            try await client.perform(OptionalUserDefinition(), expecting: User.self)
        }
        #expect(error.code == .parse)
        #expect(String(describing: error).contains("found null"))
    }
}

import ClientFixtures
import Foundation
import SluiceCore
import SluiceTesting
import Testing

/// A service that answers in plain text, one `key=value` pair per line.
struct KeyValueDeserializer: Deserializer {
    func deserialize(_ data: Data) throws -> Any {
        guard let text = String(data: data, encoding: .utf8) else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "the body is not UTF-8"))
        }
        return text
    }
}

enum KeyValueParser: Parser {
    static func parse(_ object: Any) throws -> [String: String] {
        guard let text = object as? String else {
            throw DecodingError.typeMismatch(
                String.self,
                .init(codingPath: [], debugDescription: "expected text, found \(type(of: object))")
            )
        }
        var pairs: [String: String] = [:]
        for (number, line) in text.split(separator: "\n").enumerated() {
            let parts = line.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else {
                throw DecodingError.dataCorrupted(
                    .init(codingPath: [], debugDescription: "line \(number + 1) has no '=': \(line)")
                )
            }
            pairs[String(parts[0])] = String(parts[1])
        }
        return pairs
    }
}

struct ServerStatus: Request {
    typealias ResponseParser = KeyValueParser
    typealias ResponseObject = Int

    var deserializer: (any Deserializer)? { KeyValueDeserializer() }

    func build() throws -> URLRequest {
        URLRequest(url: try testURL("https://status.example.com/"))
    }

    func parse(_ pairs: [String: String]) throws -> Int {
        guard let load = pairs["load"].flatMap(Int.init) else {
            throw DecodingError.valueNotFound(Int.self, .init(codingPath: [], debugDescription: "no load= line"))
        }
        return load
    }
}

@Suite struct CustomStageTests {
    @Test func runsARequestsOwnDeserializerAndParser() async throws {
        let stub = StubPerformer(always: HTTPResponse(status: .ok, body: Data("uptime=3d\nload=42".utf8)))
        #expect(try await APIClient(requestPerformer: stub).perform(ServerStatus()) == 42)
    }

    /// A client deserializer that fails every body, to show which deserializer ran.
    struct RejectingDeserializer: Deserializer {
        func deserialize(_ data: Data) throws -> Any {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "the client's deserializer ran"))
        }
    }

    @Test func prefersTheRequestsDeserializerToTheClients() async throws {
        let stub = StubPerformer(always: HTTPResponse(status: .ok, body: Data("load=7".utf8)))
        let client = APIClient(requestPerformer: stub, deserializer: RejectingDeserializer())
        #expect(try await client.perform(ServerStatus()) == 7)
        // A request that names none gets the client's.
        let error = try await #require(throws: SluiceError.self) { try await client.perform(ListUsers()) }
        #expect(error.code == .deserialize)
        #expect(error.message == "cannot deserialize the response body: the client's deserializer ran")
    }

    @Test func wrapsACustomParserFailureAsTheParseStage() async throws {
        let stub = StubPerformer(always: HTTPResponse(status: .ok, body: Data("uptime".utf8)))
        let error = try await #require(throws: SluiceError.self) {
            try await APIClient(requestPerformer: stub).perform(ServerStatus())
        }
        #expect(error.code == .parse)
        #expect(error.message == "cannot parse the response: line 1 has no '=': uptime")
    }

    @Test func runsTheResponseStagesWithoutANetwork() throws {
        let users = try ListUsers().responseObject(from: Data(#"[{"id": 1, "name": "Ada"}]"#.utf8))
        #expect(users == [User(id: 1, name: "Ada")])
        #expect(try ServerStatus().responseObject(from: Data("load=7".utf8)) == 7)
        let error = try #require(throws: SluiceError.self) { try ListUsers().responseObject(from: Data("[1,".utf8)) }
        #expect(error.code == .deserialize)
        #expect(error.request == nil)
    }

    @Test func readsJSONDirectlyInACustomParse() throws {
        struct Count: Request {
            typealias ResponseObject = Int
            func build() throws -> URLRequest { URLRequest(url: try testURL("https://example.com")) }
            func parse(_ json: JSON) throws -> Int {
                guard let count = json["meta"]?["total"]?.int else {
                    throw DecodingError.valueNotFound(Int.self, .init(codingPath: [], debugDescription: "no total"))
                }
                return count
            }
        }
        #expect(try Count().responseObject(from: Data(#"{"meta": {"total": 12}}"#.utf8)) == 12)
    }

    @Test func acceptsFoundationObjectTreesFromACustomDeserializer() throws {
        struct FoundationDeserializer: Deserializer {
            func deserialize(_ data: Data) throws -> Any { try JSONSerialization.jsonObject(with: data) }
        }
        let users = try ListUsers().responseObject(
            from: Data(#"[{"id": 1, "name": "Ada"}]"#.utf8),
            deserializer: FoundationDeserializer()
        )
        #expect(users == [User(id: 1, name: "Ada")])
    }
}

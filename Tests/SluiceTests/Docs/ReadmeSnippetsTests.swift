// swift-format-ignore-file: NeverForceUnwrap

// The README's snippets, verbatim, so that they keep compiling. Force unwraps of literal URLs are as a reader
// would write them.
import Foundation
import Sluice
import SluiceTesting
import Testing

private enum Readme {
    struct User: Decodable {
        let id: Int
        let name: String
    }

    struct ListUsers: Request {
        typealias ResponseObject = [User]

        func build() throws -> URLRequest {
            URLRequest(url: URL(string: "https://api.example.com/users")!)
        }
    }

    static func performList() async throws -> [User] {
        let client = APIClient()
        let users = try await client.perform(ListUsers())
        return users
    }

    struct TextDeserializer: Deserializer {
        func deserialize(_ data: Data) throws -> Any {
            guard let text = String(data: data, encoding: .utf8) else {
                throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "the body is not UTF-8"))
            }
            return text
        }
    }

    enum Lines: Parser {
        static func parse(_ object: Any) throws -> [Substring] {
            guard let text = object as? String else {
                throw DecodingError.typeMismatch(String.self, .init(codingPath: [], debugDescription: "expected text"))
            }
            return text.split(separator: "\n")
        }
    }

    struct ServerLog: Request {
        typealias ResponseParser = Lines
        typealias ResponseObject = [String]

        var deserializer: (any Deserializer)? { TextDeserializer() }

        func build() throws -> URLRequest {
            URLRequest(url: URL(string: "https://api.example.com/log")!)
        }

        func parse(_ lines: [Substring]) throws -> [String] {
            lines.map(String.init)
        }
    }

    struct UserAgentPerformer: RequestPerformer {
        let base: any RequestPerformer

        func perform(_ request: URLRequest) async throws -> HTTPResponse {
            var request = request
            request.setValue("MyApp/1.0", forHTTPHeaderField: "User-Agent")
            return try await base.perform(request)
        }
    }

    static func composedClient() -> APIClient {
        let client = APIClient(requestPerformer: UserAgentPerformer(base: NetworkRequestPerformer()))
        return client
    }

    static func production(tokens: CredentialStore) -> APIClient {
        let client = APIClient(
            requestPerformer: NetworkRequestPerformer()
                .retrying(RetryPolicy(maximumAttempts: 3))  // full jitter, Retry-After, idempotent methods only
                .authenticated(by: tokens)  // one shared refresh on 401, never loops
                .deduplicated()  // identical GETs in flight share one call
                .logged(redacting: .default),  // Authorization and cookies hidden
            deadline: .seconds(30)
        )
        return client
    }

    static func stubbed() async throws -> [User] {
        let mock = MockClient()
        mock.stub(ListUsers.self, .json(#"[{"id": 1, "name": "Ada"}]"#))
        let users = try await mock.perform(ListUsers())
        try mock.verify()
        return users
    }
}

@Suite struct ReadmeSnippetsTests {
    @Test func stubbedSnippetRuns() async throws {
        #expect(try await Readme.stubbed().map(\.name) == ["Ada"])
    }

    @Test func customStagesSnippetRuns() throws {
        let lines = try Readme.ServerLog().responseObject(from: Data("a\nb".utf8))
        #expect(lines == ["a", "b"])
    }

    @Test func userAgentPerformerAddsItsHeader() async throws {
        let stub = StubPerformer(always: HTTPResponse(status: .ok, body: Data("[]".utf8)))
        let client = APIClient(requestPerformer: Readme.UserAgentPerformer(base: stub))
        _ = try await client.perform(Readme.ListUsers())
        #expect(stub.requests.first?.value(forHTTPHeaderField: "User-Agent") == "MyApp/1.0")
        _ = Readme.composedClient()
        _ = Readme.production(
            tokens: CredentialStore(credential: nil, hosts: []) { _ in Credential(authorization: "x") }
        )
    }
}

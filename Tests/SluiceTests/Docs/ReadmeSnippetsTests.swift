// swift-format-ignore-file: NeverForceUnwrap

import ClientFixtures
// The README's snippets, verbatim, so that they keep compiling. Force unwraps of literal URLs are as a reader
// would write them.
import Foundation
import Sluice
import SluiceTesting
import Testing

private enum Readme {
    static func ownTransport() -> APIClient {
        let client = APIClient(requestPerformer: SocketRequestPerformer())
        return client
    }

    static func dockerClient() -> APIClient {
        let engine = SocketRequestPerformer(configuration: .init(unixSocketPath: "/var/run/docker.sock"))
        let docker = APIClient(requestPerformer: engine)
        return docker
    }

    struct PriceFeed: Request {
        typealias ResponseObject = Data
        let symbol: String

        func build() throws -> URLRequest {
            URLRequest(url: URL(string: "https://api.example.com/prices/\(symbol)")!)
        }
    }

    static func printEvents(using client: APIClient) async throws {
        for try await event in try await client.events(PriceFeed(symbol: "ACME")) {
            print(event.type, event.data)
        }
    }

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

    struct TokenResponse: Decodable {
        let accessToken: String

        enum CodingKeys: String, CodingKey {
            case accessToken = "access_token"
        }
    }

    struct RefreshToken: Request {
        typealias ResponseObject = TokenResponse
        let refreshToken: String

        func build() throws -> URLRequest {
            var request = URLRequest(url: URL(string: "https://auth.example.com/token")!)
            request.httpMethod = "POST"
            request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data("grant_type=refresh_token&refresh_token=\(refreshToken)".utf8)
            return request
        }
    }

    static func makeClient(refreshToken: String) -> APIClient {
        let signIn = APIClient()
        let tokens = CredentialStore(credential: nil, hosts: ["api.example.com"]) { _ in
            let token = try await signIn.perform(RefreshToken(refreshToken: refreshToken))
            return Credential(authorization: "Bearer \(token.accessToken)")
        }
        return APIClient(
            requestPerformer: NetworkRequestPerformer()
                .retrying(RetryPolicy(maximumAttempts: 3))  // full jitter, Retry-After, idempotent methods only
                .authenticated(by: tokens)  // one shared refresh on 401, never loops
                .deduplicated()  // identical GETs in flight share one call
                .logged(redacting: .default),  // credentials hidden wherever they appear
            deadline: .seconds(30)
        )
    }

    static func loadUsers(with client: APIClient) async -> Result<[User], SluiceError> {
        do {
            return .success(try await client.perform(ListUsers()))
        } catch {
            return .failure(error)  // error: SluiceError
        }
    }

    static func loadUsersInATask(with client: APIClient) -> Task<Result<[User], SluiceError>, Never> {
        let task = Task { () -> Result<[User], SluiceError> in
            do throws(SluiceError) {
                return .success(try await client.perform(ListUsers()))
            } catch {
                return .failure(error)  // error: SluiceError again
            }
        }
        return task
    }

    static func decodeWithTheEngineAlone() throws -> [User] {
        let document = try JSON(parsing: Data(#"{"users": [{"id": 1, "name": "Ada"}]}"#.utf8))
        let users = try JSONDocumentDecoder().decode([User].self, from: document["users"] ?? .null)
        return users
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
    @Test func streamingSnippetPrintsEachEventAndReconnects() async throws {
        // The feed sets a reconnection time of 1 ms; the reconnection is answered with 204, which ends the stream.
        let feed = HTTPResponse(
            status: .ok,
            headers: [.contentType: "text/event-stream"],
            body: Data("retry: 1\nevent: price\ndata: 41.5\n\ndata: closing\n\n".utf8)
        )
        let stub = StubPerformer(responses: [feed, HTTPResponse(status: .noContent)])
        let printed = try await SnippetOutput.collect {
            try await Readme.printEvents(using: APIClient(requestPerformer: stub))
        }
        #expect(printed == ["price 41.5", "message closing"])
        #expect(stub.requests.count == 2)
    }

    @Test func ownTransportSnippetsMakeClientsOnSluicesTransport() throws {
        #expect(Readme.ownTransport().requestPerformer is SocketRequestPerformer)
        let engine = try #require(Readme.dockerClient().requestPerformer as? SocketRequestPerformer)
        #expect(engine.configuration.unixSocketPath == "/var/run/docker.sock")
    }

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
        #expect(Readme.composedClient().requestPerformer is Readme.UserAgentPerformer)
    }

    @Test func productionClientComposesTheDecoratorsInOrder() throws {
        let client = Readme.makeClient(refreshToken: "r1")
        let logged = try #require(client.requestPerformer as? ObservingPerformer)
        let deduplicated = try #require(logged.base as? DeduplicatingPerformer)
        let authenticated = try #require(deduplicated.base as? AuthenticatingPerformer)
        #expect(authenticated.store.hosts == ["api.example.com"])
        #expect(authenticated.base is RetryingPerformer)
        #expect(client.deadline == .seconds(30))
        let refresh = try Readme.RefreshToken(refreshToken: "r1").build()
        #expect(refresh.httpMethod == "POST")
        #expect(refresh.httpBody == Data("grant_type=refresh_token&refresh_token=r1".utf8))
        let token = try Readme.RefreshToken(refreshToken: "r1")
            .responseObject(from: Data(#"{"access_token":"t"}"#.utf8))
        #expect(token.accessToken == "t")
    }

    @Test func typedErrorsAreCaughtAsSluiceErrorInAFunctionAndInATask() async throws {
        let stub = StubPerformer(always: HTTPResponse(status: .internalServerError, body: Data()))
        let client = APIClient(requestPerformer: stub)
        guard case .failure(let direct) = await Readme.loadUsers(with: client) else {
            Issue.record("a 500 must fail")
            return
        }
        #expect(direct.code == .status)
        guard case .failure(let inTask) = await Readme.loadUsersInATask(with: client).value else {
            Issue.record("a 500 must fail")
            return
        }
        #expect(inTask.code == .status)
    }

    @Test func theEngineAloneDecodesTheSnippetsDocument() throws {
        #expect(try Readme.decodeWithTheEngineAlone().map(\.name) == ["Ada"])
    }

    /// The package snippet cannot be compiled here (it is a manifest), so its product names are checked against
    /// the manifest's own.
    @Test func packageSnippetNamesProductsTheManifestDeclares() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let named = readme.matches(of: /\.product\(name: "(\w+)", package: "sluice"\)/).map { String($0.output.1) }
        let declared = Set(manifest.matches(of: /\.library\(name: "(\w+)"/).map { String($0.output.1) })
        #expect(Set(named) == ["Sluice", "SluiceTesting"])
        #expect(declared == ["Sluice", "SluiceCore", "SluiceEndpoints", "SluiceJSON", "SluiceTesting"])
        #expect(Set(named).isSubset(of: declared))
        for product in declared {
            #expect(readme.contains("| `\(product)` |"), "the README's product table lists \(product)")
        }
    }
}

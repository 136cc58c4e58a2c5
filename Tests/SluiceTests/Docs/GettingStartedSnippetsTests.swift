// swift-format-ignore-file: NeverForceUnwrap

import ClientFixtures
// The snippets of the DocC catalog (Getting Started) and of the public API's documentation comments, verbatim,
// so that they keep compiling.
import Foundation
import Sluice
import SluiceTesting
import Testing

private enum GettingStarted {
    struct User: Decodable {
        let id: Int
        let name: String
    }

    struct GetUser: Request {
        typealias ResponseObject = User
        let id: Int

        func build() throws -> URLRequest {
            URLRequest(url: URL(string: "https://api.example.com/users/\(id)")!)
        }
    }

    struct DeleteUser: Request {
        typealias ResponseObject = Void
        let id: Int

        func build() throws -> URLRequest {
            var request = URLRequest(url: URL(string: "https://api.example.com/users/\(id)")!)
            request.httpMethod = "DELETE"
            return request
        }
    }

    static func perform(client: APIClient) async throws {
        let user = try await client.perform(GetUser(id: 42))
        try await client.perform(DeleteUser(id: 42))
        _ = user
    }

    static func performWithResponse(client: APIClient) async throws {
        let response = try await client.response(for: GetUser(id: 42))
        print(response.http.status, response.metrics)
    }

    static func handleErrors(client: APIClient) async {
        do {
            _ = try await client.perform(GetUser(id: 42))
        } catch {
            switch error.code {
            case .status where error.status == .notFound:
                print("no such user")
            case .cancelled:
                break
            default:
                print(error)
            }
        }
    }

    struct Problem: Decodable, Sendable {
        let message: String
    }

    struct GetAccount: Request {
        typealias ResponseObject = User

        func build() throws -> URLRequest {
            URLRequest(url: URL(string: "https://api.example.com/account")!)
        }

        func errorResponse(from response: HTTPResponse) throws -> (any Sendable)? {
            try JSONDocumentDecoder().decode(Problem.self, from: response.body)
        }
    }

    struct Event: Decodable {
        let eventId: Int
        let startsAt: Date
    }

    struct GetEvent: Request {
        typealias ResponseObject = Event

        func build() throws -> URLRequest {
            URLRequest(url: URL(string: "https://api.example.com/event")!)
        }

        func parse(_ json: JSON) throws -> Event {
            try JSONDocumentDecoder(dateDecodingStrategy: .iso8601, keyDecodingStrategy: .convertFromSnakeCase)
                .decode(Event.self, from: json)
        }
    }

    static func offline() throws -> User {
        let user = try GetUser(id: 1).responseObject(from: Data(#"{"id": 1, "name": "Ada"}"#.utf8))
        return user
    }
}

/// Snippets from the documentation comments of the public API.
private enum APIDocs {
    /// `Request.responseObject(passingThrough:)`.
    struct Readme: Request {
        typealias ResponseObject = String

        func build() throws -> URLRequest {
            URLRequest(url: URL(string: "https://example.com/README")!)
        }

        func responseObject(passingThrough body: Data) -> String? {
            String(decoding: body, as: UTF8.self)
        }
    }

    struct User: Decodable {
        let id: Int
        let name: String
    }

    struct GetUser: Request {
        typealias ResponseObject = User
        let id: Int

        func build() throws -> URLRequest {
            URLRequest(url: URL(string: "https://api.example.com/users/\(id)")!)
        }
    }

    static func loadProfile(using client: any Client) async throws -> User {
        try await client.perform(GetUser(id: 42))
    }

    static func json() throws {
        let json = try JSON(parsing: #"{"user": {"name": "Ada", "langs": ["en", "fr"]}}"#)
        _ = json["user"]?["name"]?.string  // "Ada"
        _ = json["user"]?["langs"]?[1]?.string  // "fr"
        if let user = json["user"]?.members {
            for (key, value) in user {
                print(key, value.kind)
            }
        }
        switch json.value {
        case .string(let text): print("a string:", text)
        case .number(let number): print("a number:", number.double)
        case .array(let elements): print(elements.count, "elements")
        case .object(let members): print(members.map(\.key))
        case .bool, .null: break
        }
        let body: JSON = ["name": "Ada", "tags": ["admin"], "age": 36, "active": true, "manager": .null]
        _ = body
    }

    struct Event: Decodable {
        let eventId: Int
        let startsAt: Date
    }

    static func decoder() throws -> Event {
        var decoder = JSONDocumentDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        decoder.dateDecodingStrategy = .iso8601
        let event = try decoder.decode(
            Event.self,
            from: Data(#"{"event_id": 7, "starts_at": "2026-03-01T09:30:00Z"}"#.utf8)
        )
        return event
    }

    static func headers() {
        var headers: HTTPHeaders = ["Accept": "application/json"]
        headers[.authorization] = "Bearer token"
        _ = headers["content-type"]  // the value of Content-Type, if any
    }

    static func status(response: HTTPResponse) {
        switch response.status {
        case .ok, .created: print("done")
        case .notFound: print("missing")
        default: print(response.status.kind == .serverError ? "try later" : "\(response.status)")
        }
    }

    static func validation() -> APIClient {
        let client = APIClient(acceptableStatus: .codes(200..<300, 304))
        return client
    }

    static func performer() -> APIClient {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 16
        let client = APIClient(requestPerformer: NetworkRequestPerformer(configuration: configuration))
        return client
    }

    static func clientResponse(client: APIClient) async throws {
        let response = try await client.response(for: GetUser(id: 42))
        print(response.value.name, response.http.headers[.eTag] ?? "", response.metrics)
    }

    struct ListUsers: Request {
        typealias ResponseObject = [User]
        func build() throws -> URLRequest { URLRequest(url: URL(string: "https://api.example.com/users")!) }
    }

    static func offline() throws -> [User] {
        let users = try ListUsers().responseObject(from: Data(#"[{"id": 1, "name": "Ada"}]"#.utf8))
        return users
    }

    static func stub() async throws {
        let stub = StubPerformer.json(#"[{"id": 1, "name": "Ada"}]"#)
        let client = APIClient(requestPerformer: stub)
        let users = try await client.perform(ListUsers())
        #expect(stub.requests.first?.url?.path == "/users")
        _ = users
    }

    struct UserAgentPerformer: RequestPerformer {
        let base: any RequestPerformer
        let userAgent: String

        func perform(_ request: URLRequest) async throws -> HTTPResponse {
            var request = request
            request.setValue(userAgent, forHTTPHeaderField: "User-Agent")
            return try await base.perform(request)
        }
    }

    /// Lines of text, from a deserializer that produces a `String`.
    enum Lines: Parser {
        static func parse(_ object: Any) throws -> [Substring] {
            guard let text = object as? String else {
                throw DecodingError.typeMismatch(
                    String.self,
                    .init(codingPath: [], debugDescription: "expected text, found \(type(of: object))")
                )
            }
            return text.split(separator: "\n")
        }
    }

    struct TextDeserializer: Deserializer {
        func deserialize(_ data: Data) throws -> Any {
            guard let text = String(data: data, encoding: .utf8) else {
                throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "the body is not UTF-8"))
            }
            return text
        }
    }
}

@Suite struct DocumentationSnippetsTests {
    @Test func gettingStartedRunsAgainstAStub() async throws {
        let stub = StubPerformer { request in
            switch request.httpMethod {
            case "DELETE": HTTPResponse(status: .noContent)
            default: HTTPResponse(status: .ok, body: Data(#"{"id": 42, "name": "Ada"}"#.utf8))
            }
        }
        let client = APIClient(requestPerformer: stub)
        try await GettingStarted.perform(client: client)
        let printed = try await SnippetOutput.collect {
            try await GettingStarted.performWithResponse(client: client)
            await GettingStarted.handleErrors(client: client)
        }
        #expect(printed.count == 1)
        #expect(printed.first?.hasPrefix("200 OK ") == true, "\(printed)")
        let missing = APIClient(requestPerformer: StubPerformer(always: HTTPResponse(status: .notFound)))
        #expect(await SnippetOutput.collect { await GettingStarted.handleErrors(client: missing) } == ["no such user"])
        #expect(try GettingStarted.offline().name == "Ada")
        let event = try GettingStarted.GetEvent().responseObject(
            from: Data(#"{"event_id": 1, "starts_at": "2026-01-01T00:00:00Z"}"#.utf8)
        )
        #expect(event.eventId == 1)
    }

    @Test func apiDocumentationSnippetsRun() async throws {
        let json = try await SnippetOutput.collect { try APIDocs.json() }
        #expect(json == ["name string", "langs array", #"["user"]"#])
        #expect(try APIDocs.decoder().eventId == 7)
        APIDocs.headers()
        let status = await SnippetOutput.collect { APIDocs.status(response: HTTPResponse(status: .notFound)) }
        #expect(status == ["missing"])
        _ = APIDocs.validation()
        _ = APIDocs.performer()
        #expect(try APIDocs.offline().count == 1)
        try await APIDocs.stub()
        let stub = StubPerformer.json(#"{"id": 42, "name": "Ada"}"#)
        #expect(try await APIDocs.loadProfile(using: APIClient(requestPerformer: stub)).id == 42)
        let printed = try await SnippetOutput.collect {
            try await APIDocs.clientResponse(client: APIClient(requestPerformer: stub))
        }
        #expect(printed.count == 1)
        #expect(printed.first?.hasPrefix("Ada  ") == true, "\(printed)")
    }

    @Test func aRequestPassesItsOwnResponseObjectThrough() async throws {
        let client = APIClient(
            requestPerformer: StubPerformer(always: HTTPResponse(status: .ok, body: Data("# Hi".utf8)))
        )
        #expect(try await client.perform(APIDocs.Readme()) == "# Hi")
    }
}

// swift-format-ignore-file: NeverForceUnwrap

import ClientFixtures
// The snippets of the "Enum-based API definitions" and "The repository layer" articles and of those dialects' API
// documentation, verbatim where whole, completed where they are fragments.
import Foundation
import Sluice
import SluiceTesting
import Testing

private enum EnumArticle {
    struct Account: Decodable, Sendable {
        let name: String
        let email: String
    }

    struct EditableAccountDetails: Encodable, JSONRepresentable {
        let name: String
        let email: String
    }

    struct AccountSearch: JSONRepresentable {
        let text: String
        let tags: [String]
    }

    enum AccountsAPI {
        case details
        case search(AccountSearch)
        case update(details: EditableAccountDetails)
    }

    static func perform() async throws -> Account {
        let client = APIClient()
        let account = try await client.perform(AccountsAPI.details, expecting: Account.self)
        return account
    }

    protocol MyAPIDefinition: APIDefinition {}

    enum BetsAPI: MyAPIDefinition {
        case open

        var path: String { "/bets" }
        var method: HTTPMethod { .GET }
    }

    static func preview() async throws -> Account {
        let preview = SampleDataClient(behavior: .delayed(.milliseconds(300)), fallback: APIClient())
        let sample = try await preview.perform(AccountsAPI.details, expecting: Account.self)
        return sample
    }
}

extension EnumArticle.AccountsAPI: APIDefinition {
    var baseURL: URL { URL(string: "https://myapi.com")! }

    var path: String {
        switch self {
        case .details, .update: "/accounts/me"
        case .search: "/accounts"
        }
    }

    var method: HTTPMethod {
        switch self {
        case .details, .search: .GET
        case .update: .PUT
        }
    }

    var encoding: EncodingStrategy {
        switch self {
        case .details: .ignore
        case .search(let query): .queryParameters(parameters: query)
        case .update(let details): .jsonBody(parameters: details)
        }
    }
}

extension EnumArticle.MyAPIDefinition {
    var baseURL: URL { URL(string: "https://myapi.com")! }
    var headers: [String: String]? { ["Accept": "application/json"] }
}

extension EnumArticle.AccountsAPI {
    var sampleData: Data? {
        switch self {
        case .details: Data(#"{"name": "Ada", "email": "ada@example.com"}"#.utf8)
        default: nil
        }
    }
}

private enum EnumDocs {
    struct Account: Decodable, Sendable {
        let name: String
    }

    enum AccountsAPIDefinition {
        case details
        case update(details: any JSONRepresentable)
    }

    protocol MyAPIDefinition: APIDefinition {}

    enum Query: MyAPIDefinition {
        case details
        case search(query: JSON)
        case update(details: JSON)

        var path: String { "/q" }
        var method: HTTPMethod { .GET }
        var encoding: EncodingStrategy {
            switch self {
            case .details: .ignore
            case .search(let query): .queryParameters(parameters: query)
            case .update(let details): .jsonBody(parameters: details)
            }
        }
    }

    struct EditableAccountDetails: Encodable, JSONRepresentable {
        let name: String
        let email: String
    }

    static func perform(client: APIClient) async throws -> Account {
        let account = try await client.perform(AccountsAPIDefinition.details, expecting: Account.self)
        return account
    }

    static func preview() async throws -> Account {
        let preview = SampleDataClient(behavior: .delayed(.milliseconds(300)))
        let account = try await preview.perform(AccountsAPIDefinition.details, expecting: Account.self)
        return account
    }
}

extension EnumDocs.AccountsAPIDefinition: APIDefinition {
    var baseURL: URL { URL(string: "https://myapi.com")! }
    var path: String { "/accounts" }
    var method: HTTPMethod {
        switch self {
        case .details: .GET
        case .update: .PUT
        }
    }
    var encoding: EncodingStrategy {
        switch self {
        case .details: .ignore
        case .update(let details): .jsonBody(parameters: details)
        }
    }
    var headers: [String: String]? { ["Content-Type": "application/json"] }
    var sampleData: Data? { Data(#"{"name": "Sample"}"#.utf8) }
}

extension EnumDocs.MyAPIDefinition {
    var baseURL: URL { URL(string: "https://myapi.com")! }
    var headers: [String: String]? { ["Content-Type": "application/json"] }
}

enum RepositoryArticle {
    struct User: Decodable, Sendable {
        let id: Int
        let login: String
    }

    static func makeRepository() -> Repository {
        let repository = Repository(
            server: Server([
                .production: URL(string: "https://api.example.com")!,
                .staging: URL(string: "https://staging.example.com")!,
            ])
        )
        return repository
    }

    static func following(_ repository: Repository) async throws -> [User] {
        let following = try await repository.perform(Endpoints.Following())
        return following
    }

    static func staged(_ repository: Repository) async throws -> [User] {
        repository.server.environment = .staging
        let staged = try await repository.perform(Endpoints.Following())  // from https://staging.example.com
        return staged
    }

    struct SearchUsers: EndpointDefinition {
        struct Query: Encodable, Sendable {
            let q: String
            let tags: [String]
        }

        typealias Response = ArrayResponse<User>
        static let path = "/search/users"
        var method: HTTPMethod { .get }
        let text: String

        var query: (any Encodable & Sendable)? { Query(q: text, tags: ["swift", "linux"]) }
        var headers: [String: String] { ["Accept": "application/vnd.github+json"] }
        var timeout: Duration? { .seconds(10) }
    }

    struct Recommendations: EndpointDefinition {
        typealias Response = ArrayResponse<User>
        static let path = "/recommendations"
        static var environment: Environment { .mock }  // not on the server yet
        var method: HTTPMethod { .get }
    }

    static func recommended(_ repository: Repository) async throws -> [User] {
        repository.register(json: #"[{"id": 1, "login": "ada"}]"#, for: Recommendations.self)
        let recommended = try await repository.perform(Recommendations())
        return recommended
    }

    static func listen(_ repository: Repository) -> Task<Void, Never> {
        let events = repository.events
        return Task {
            for await event in events {
                print(event)  // #1 request 1 GET Following [production] started
            }
        }
    }

    /// A page of results: `{"data": [...], "next": "..."}`.
    struct PagedResponse<T: Decodable>: ResponseDefinition {
        let result: [T]

        init(json: Any) throws {
            let document = try JSON.parse(json)
            guard let data = document["data"] else {
                throw DecodingError.keyNotFound(
                    JSONKey("data"),
                    .init(codingPath: [], debugDescription: "no \"data\" envelope")
                )
            }
            result = try data.decode([T].self)
        }
    }

    struct Following: EndpointDefinition {
        typealias Response = ArrayResponse<User>
        static let path = "/user/following"
        var method: HTTPMethod { .get }
        var parameters: [String: Any] { ["per_page": 50] }
    }

    static func documented() async throws {
        let repository = Repository(server: Server([.production: URL(string: "https://api.example.com")!]))
        let users = try await repository.perform(Following())

        Task {
            for await event in repository.events {
                print(event)  // #1 request 1 GET Following [production] started, …
            }
        }
        _ = users
    }
}

extension Endpoints {
    struct Following: EndpointDefinition {
        typealias Response = ArrayResponse<RepositoryArticle.User>
        static let path = "/user/following"
        var method: HTTPMethod { .get }
        var parameters: [String: Any] { ["per_page": 50] }
    }
}

@Suite struct DialectSnippetsTests {
    @Test func enumArticleRunsOffline() async throws {
        #expect(try await EnumArticle.preview().name == "Ada")
        let search = try APIDefinitionRequest(
            EnumArticle.AccountsAPI.search(.init(text: "a", tags: ["x"])),
            expecting: EnumArticle.Account.self
        ).build()
        #expect(search.url?.absoluteString == "https://myapi.com/accounts?tags=x&text=a")
        let bets = try APIDefinitionRequest(EnumArticle.BetsAPI.open, expecting: Data.self).build()
        #expect(bets.value(forHTTPHeaderField: "Accept") == "application/json")
        _ = EnumArticle.perform
    }

    @Test func enumDocsRunOffline() async throws {
        #expect(try await EnumDocs.preview().name == "Sample")
        let update = try APIDefinitionRequest(
            EnumDocs.Query.update(details: ["a": 1]),
            expecting: EmptyResponse.self
        ).build()
        #expect(update.httpBody == Data(#"{"a":1}"#.utf8))
        let stub = StubPerformer.json(#"{"name": "MockClient.Stub"}"#)
        #expect(try await EnumDocs.perform(client: APIClient(requestPerformer: stub)).name == "MockClient.Stub")
        _ = EnumDocs.EditableAccountDetails(name: "n", email: "e")
    }

    @Test func repositoryArticleRunsAgainstFixtures() async throws {
        let repository = RepositoryArticle.makeRepository()
        let listener = RepositoryArticle.listen(repository)
        #expect(try await RepositoryArticle.recommended(repository).map(\.login) == ["ada"])
        repository.forcedEnvironment = .mock
        repository.register(json: #"[{"id": 2, "login": "grace"}]"#, for: Endpoints.Following.self)
        #expect(try await RepositoryArticle.following(repository).map(\.login) == ["grace"])
        listener.cancel()
        let paged = try RepositoryArticle.PagedResponse<RepositoryArticle.User>(
            json: JSON(parsing: #"{"data": [{"id": 3, "login": "linus"}]}"#)
        )
        #expect(paged.result.map(\.id) == [3])
        #expect(throws: DecodingError.self) {
            try RepositoryArticle.PagedResponse<RepositoryArticle.User>(json: JSON(parsing: "{}"))
        }
        _ = RepositoryArticle.documented
    }

    @Test func repositoryArticleSendsTypedParametersHeadersAndATimeout() throws {
        let request = try GenericRequest(
            RepositoryArticle.SearchUsers(text: "ada"),
            baseURL: URL(string: "https://api.example.com")!
        )
        .build()
        #expect(request.url?.absoluteString == "https://api.example.com/search/users?q=ada&tags=swift&tags=linux")
        #expect(request.value(forHTTPHeaderField: "Accept") == "application/vnd.github+json")
        #expect(request.timeoutInterval == 10)
    }

    @Test func repositoryArticleSwitchesTheEnvironmentAtRunTime() async throws {
        let staging = try LoopbackServer()
        staging.route("GET", "/user/following", response: .json(#"[{"id": 4, "login": "barbara"}]"#))
        let repository = Repository(
            server: Server([.production: URL(string: "http://production.invalid")!, .staging: staging.baseURL])
        )
        #expect(try await RepositoryArticle.staged(repository).map(\.login) == ["barbara"])
        #expect(staging.receivedRequests.map(\.target) == ["/user/following?per_page=50"])
    }
}

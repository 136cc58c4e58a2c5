import ClientFixtures
import Foundation
import SluiceEndpoints
import SluiceTesting
import Testing

private struct Account: Codable, Equatable, Sendable {
    var name: String
    var email: String
    var createdAt: Date?
}

private struct AccountQuery: JSONRepresentable {
    struct Filter: Encodable, Sendable {
        var status: String
        var minAge: Int?
    }
    var text: String
    var tags: [String]
    var filter: Filter
    var page: Int?
}

private struct NewAccount: JSONRepresentable {
    var name: String
    var createdAt: Date
}

/// Shared requirements of one API, written once.
private protocol TestAPIDefinition: APIDefinition {
    var server: URL { get }
}

extension TestAPIDefinition {
    var baseURL: URL { server.appendingPathComponent("api") }
    var headers: [String: String]? { ["Accept": "application/json", "X-Client": "tests"] }
}

private enum AccountsAPI: TestAPIDefinition {
    case details(server: URL)
    case search(server: URL, query: AccountQuery)
    case create(server: URL, account: NewAccount)
    case createWithDates(server: URL, account: NewAccount)
    case broken(server: URL)

    var server: URL {
        switch self {
        case .details(let server), .search(let server, _), .create(let server, _), .createWithDates(let server, _),
            .broken(let server):
            server
        }
    }

    var path: String {
        switch self {
        case .details: "/accounts/me"
        case .search: "/accounts"
        case .create, .createWithDates, .broken: "/accounts"
        }
    }

    var method: HTTPMethod {
        switch self {
        case .details, .search: .GET
        case .create, .createWithDates, .broken: .POST
        }
    }

    var encoding: EncodingStrategy {
        switch self {
        case .details: .ignore
        case .search(_, let query): .queryParameters(parameters: query)
        case .create(_, let account): .jsonBody(parameters: account)
        case .createWithDates(_, let account):
            .jsonBodyUsingCustomEncoder(parameters: account, encoder: AccountsAPI.isoEncoder)
        case .broken: .queryParameters(parameters: ["not", "an", "object"] as JSON)
        }
    }

    var sampleData: Data? {
        switch self {
        case .details: Data(#"{"name": "Sample", "email": "sample@example.com"}"#.utf8)
        default: nil
        }
    }

    static var isoEncoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.keyEncodingStrategy = .convertToSnakeCase
        return encoder
    }
}

/// A definition's request that says when a client builds it: ``SampleDataClient`` builds a request just before it
/// waits out its delay.
private struct Announced: Request, SampleDataClient.Providing {
    typealias ResponseObject = Account
    let request: APIDefinitionRequest<AccountsAPI, Account>
    let built: Signal

    var sampleData: Data? { request.sampleData }
    var deserializer: (any Deserializer)? { request.deserializer }

    func build() throws -> URLRequest {
        built.fire()
        return try request.build()
    }

    func parse(_ json: JSON) throws -> Account {
        try request.parse(json)
    }
}

@Suite struct APIDefinitionTests {
    let loopback: LoopbackServer
    let client = APIClient()

    init() throws {
        loopback = try LoopbackServer()
        loopback.route("/api/*") { request in
            if request.method == "POST" {
                return .json(#"{"name": "created", "email": "c@example.com"}"#, status: 201)
            }
            return .json(#"{"name": "Ada", "email": "ada@example.com"}"#)
        }
    }

    @Test func performsWithoutParameters() async throws {
        let account = try await client.perform(AccountsAPI.details(server: loopback.baseURL), expecting: Account.self)
        #expect(account == Account(name: "Ada", email: "ada@example.com"))
        let received = try #require(loopback.receivedRequests.last)
        #expect(received.method == "GET")
        #expect(received.target == "/api/accounts/me")
        #expect(received.header("Accept") == "application/json")
        #expect(received.header("X-Client") == "tests")
        #expect(received.body.isEmpty)
    }

    @Test func sendsQueryParametersByTheNestingRule() async throws {
        let query = AccountQuery(
            text: "ada lovelace",
            tags: ["a", "b&c"],
            filter: .init(status: "active", minAge: nil),
            page: nil
        )
        _ = try await client.perform(
            AccountsAPI.search(server: loopback.baseURL, query: query),
            expecting: Account.self
        )
        let received = try #require(loopback.receivedRequests.last)
        #expect(received.query == "filter%5Bstatus%5D=active&tags=a&tags=b%26c&text=ada%20lovelace")
        #expect(received.queryItems.map(\.name) == ["filter[status]", "tags", "tags", "text"])
    }

    @Test func sendsAJSONBody() async throws {
        let account = NewAccount(name: "Grace", createdAt: Date(timeIntervalSince1970: 0))
        _ = try await client.perform(
            AccountsAPI.create(server: loopback.baseURL, account: account),
            expecting: Account.self
        )
        let received = try #require(loopback.receivedRequests.last)
        #expect(received.method == "POST")
        #expect(received.header("Content-Type") == "application/json")
        #expect(try JSON(parsing: received.body) == ["name": "Grace", "createdAt": -978_307_200])
    }

    @Test func sendsAJSONBodyWithACustomEncoder() async throws {
        let account = NewAccount(name: "Grace", createdAt: Date(timeIntervalSince1970: 0))
        _ = try await client.perform(
            AccountsAPI.createWithDates(server: loopback.baseURL, account: account),
            expecting: EmptyResponse.self
        )
        let received = try #require(loopback.receivedRequests.last)
        #expect(try JSON(parsing: received.body) == ["name": "Grace", "created_at": "1970-01-01T00:00:00Z"])
    }

    @Test func setsTheDefinitionsTimeout() throws {
        struct Reports: APIDefinition {
            var baseURL: URL
            var path: String { "reports" }
            var method: HTTPMethod { .get }
            var timeout: Duration? { .milliseconds(1_500) }
        }
        let request = try APIDefinitionRequest(Reports(baseURL: loopback.baseURL), expecting: Account.self).build()
        #expect(request.timeoutInterval == 1.5)
    }

    @Test func rejectsQueryParametersThatAreNotAnObject() async throws {
        let error = try await #require(throws: SluiceError.self) {
            try await client.perform(AccountsAPI.broken(server: loopback.baseURL), expecting: Account.self)
        }
        #expect(error.code == .build)
        #expect(
            error.message
                == "cannot build the request: AccountsAPI.broken.encoding: query parameters must encode to a JSON object, not array"
        )
        #expect(loopback.receivedRequests.isEmpty)
    }

    @Test func servesSampleDataWithoutTheNetwork() async throws {
        let offline = SampleDataClient()
        let account = try await offline.perform(AccountsAPI.details(server: loopback.baseURL), expecting: Account.self)
        #expect(account.name == "Sample")
        #expect(loopback.acceptedConnections == 0)
        let missing = try await #require(throws: SluiceError.self) {
            try await offline.perform(
                AccountsAPI.search(
                    server: loopback.baseURL,
                    query: .init(text: "", tags: [], filter: .init(status: "x"))
                ),
                expecting: Account.self
            )
        }
        #expect(
            missing.message
                == "APIDefinitionRequest<AccountsAPI, Account> has no sample data, and the SampleDataClient has no fallback client"
        )
    }

    @Test func servesSampleDataAfterADelayAndFallsBack() async throws {
        let offline = SampleDataClient(behavior: .delayed(.milliseconds(200)), fallback: client)
        let start = ContinuousClock.now
        let account = try await offline.perform(AccountsAPI.details(server: loopback.baseURL), expecting: Account.self)
        #expect(ContinuousClock.now - start >= .milliseconds(200))
        #expect(account.name == "Sample")
        let fromNetwork = try await offline.perform(
            AccountsAPI.create(server: loopback.baseURL, account: NewAccount(name: "x", createdAt: Date())),
            expecting: Account.self
        )
        #expect(fromNetwork.name == "created")
        #expect(loopback.receivedRequests.count == 1)
    }

    @Test func cancelsADelayedSampleAtOnce() async throws {
        // Longer than any run: only the cancellation can end it, which the error's code shows (the sample would
        // have made it succeed).
        let offline = SampleDataClient(behavior: .delayed(.seconds(3_600)))
        let built = Signal("the sample request built, its delay next")
        let details = APIDefinitionRequest(AccountsAPI.details(server: loopback.baseURL), expecting: Account.self)
        let request = Announced(request: details, built: built)
        let task = Task { try await offline.perform(request) }
        try await built.wait()
        task.cancel()
        let error = try await #require(throws: SluiceError.self) { try await task.value }
        #expect(error.code == .cancelled)
    }

    @Test func runsSampleDataThroughTheRealParseStages() async throws {
        struct Strict: Decodable, Sendable {
            var missing: Int
        }
        let error = try await #require(throws: SluiceError.self) {
            try await SampleDataClient().perform(AccountsAPI.details(server: loopback.baseURL), expecting: Strict.self)
        }
        #expect(error.code == .parse)
        #expect(error.jsonPath == "$.missing")
    }
}

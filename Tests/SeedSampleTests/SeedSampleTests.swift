import Foundation
import Sluice
import SluiceTesting
import Testing

@Suite struct SeedSampleTests {
    @Test func accountsDefinitionBuildsBothCases() throws {
        let details = try APIDefinitionRequest(AccountsAPIDefinition.details, expecting: EmptyResponse.self).build()
        #expect(details.url?.absoluteString == "https://myapi.com/accounts")
        #expect(details.httpMethod == "GET")
        #expect(details.httpBody == nil)
        let update = AccountsAPIDefinition.update(
            details: EditableAccountDetails(name: "Ada", email: "ada@example.com")
        )
        let request = try APIDefinitionRequest(update, expecting: EmptyResponse.self).build()
        #expect(request.httpMethod == "PUT")
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/json")
        let body = try JSON(parsing: request.httpBody ?? Data())
        #expect(body == ["name": "Ada", "email": "ada@example.com"])
    }

    @Test func seedParametersBuildTheQueryAndTheFormOfARequest() throws {
        let server = Server([.production: try #require(URL(string: "https://api.example.com"))])
        let search = SeedSearch(parameters: .init(text: "ada lovelace", page: 2))
        let request = try search.build(on: server)
        #expect(request.url?.absoluteString == "https://api.example.com/search?q=ada%20lovelace&per_page=50")
        #expect(request.httpMethod == "POST")
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/x-www-form-urlencoded")
        #expect(request.httpBody.map { String(decoding: $0, as: UTF8.self) } == "name=ada+lovelace&page=2")
    }

    @Test func refiningProtocolSuppliesTheSharedRequirements() throws {
        let request = try APIDefinitionRequest(TABAccountsAPIDefinition.details, expecting: Data.self).build()
        #expect(request.url?.absoluteString == "https://myapi.com/accounts")
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/json")
    }

    @Test func followingEndpointRunsThroughARepository() async throws {
        let repository = Repository(server: Server([.production: URL(fileURLWithPath: "/")]))
        repository.forcedEnvironment = .mock
        repository.register(json: #"[{"id": 1, "login": "ada"}]"#, for: FollowingEndpoint.self)
        let users = try await repository.perform(FollowingEndpoint())
        #expect(users == [User(id: 1, login: "ada")])
        #expect(FollowingEndpoint.environment == .production)
        #expect(Endpoints.Followers.environment == .staging)
    }
}

/// An endpoint whose parameters are written with the seed's `Parameter`, each case converted to Sluice's.
private struct SeedSearch: Endpoint {
    struct Parameters {
        var text: String
        var page: Int
    }

    /// One parameter of each of the seed's four cases.
    static let seedParameters: [Parameter<Parameters>] = [
        .form("name", path: \Parameters.text), .formValue("page", value: 2),
        .query("q", path: \Parameters.text), .queryValue("per_page", value: 50),
    ]

    static var definition: Definition<SeedSearch> {
        Definition(method: .post, path: "search", parameters: seedParameters.map(\.sluiceParameter))
    }

    typealias Response = Data

    let parameters: Parameters
}

extension Parameter {
    /// The seed's parameter as Sluice's: the same case, with the same name and key path or value.
    fileprivate var sluiceParameter: Sluice.Parameter<T> {
        switch self {
        case .form(let name, let path): .form(name, path: path)
        case .formValue(let name, let value): .formValue(name, value: value)
        case .query(let name, let path): .query(name, path: path)
        case .queryValue(let name, let value): .queryValue(name, value: value)
        }
    }
}

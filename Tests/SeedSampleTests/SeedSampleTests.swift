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

    @Test func seedParameterHasSluicesFourCases() {
        struct Search {
            var text: String
        }
        let seed: [Parameter<Search>] = [
            .form("q", path: \Search.text), .formValue("page", value: 2),
            .query("q", path: \Search.text), .queryValue("per_page", value: "50"),
        ]
        let names = seed.map { parameter -> String in
            switch parameter {
            case .form(let name, _), .formValue(let name, _), .query(let name, _), .queryValue(let name, _): name
            }
        }
        #expect(names == ["q", "page", "q", "per_page"])
        let sluice: [Sluice.Parameter<Search>] = [
            .form("q", path: \Search.text), .formValue("page", value: 2),
            .query("q", path: \Search.text), .queryValue("per_page", value: "50"),
        ]
        #expect(sluice.count == seed.count)
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

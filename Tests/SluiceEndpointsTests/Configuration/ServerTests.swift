import ClientFixtures
import Foundation
import SluiceEndpoints
import Testing

@Suite struct ServerTests {
    @Test func theDefaultIsTheScopedServerWithinAScopeAndTheSharedOneOutside() async {
        let shared = Server.default
        let scoped = Server([.production: URL(staticString: "https://scoped.example.com")])
        await Server.withDefault(scoped) {
            #expect(Server.default === scoped)
            let inner = Server()
            await Server.withDefault(inner) { #expect(Server.default === inner) }
            // Configuring the default within a scope configures the scoped server, and no other task's.
            Server.default.setBaseURL(URL(staticString: "https://moved.example.com"), for: .staging)
            #expect(scoped.baseURLs[.staging] == URL(staticString: "https://moved.example.com"))
            await Task { #expect(Server.default === scoped) }.value
        }
        #expect(Server.default === shared)
        #expect(shared.baseURLs[.staging] == nil)
    }

    @Test func aMissingEnvironmentNamesTheOnesConfigured() throws {
        let server = Server([.production: URL(staticString: "https://api.example.com")])
        let error = try #require(throws: Server.MissingBaseURL.self) { try server.baseURL(for: .staging) }
        #expect(error.description == "no base URL for the staging environment; configured: production")
    }
}

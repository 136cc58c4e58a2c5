// The snippet of Integrations/SluiceObservability/README.md, verbatim, compiled, and run against a loopback server:
// its request's URL comes from the running test's server. Its first three lines are also the example of
// ObservabilityInstrumentation's documentation.
import Foundation
import InMemoryTracing
import Logging
import Sluice
import SluiceObservability
import SluiceTesting
import Testing
import Tracing

@Suite struct ReadmeSnippetsTests {
    /// The README's own names.
    enum Readme {
        /// The server the README's request goes to, in a test.
        @TaskLocal static var server: URL?

        struct User: Decodable {
            var id: Int
        }

        /// The README's request, for a user by id.
        struct GetUser: Request {
            typealias ResponseObject = User
            var id: Int

            func build() throws -> URLRequest {
                let base = Readme.server ?? URL(fileURLWithPath: "/")
                return URLRequest(url: base.appending(path: "users/\(id)"))
            }

            var urlTemplate: String? { "/users/{id}" }
        }

        /// The README's first snippet.
        static func firstExample() async throws -> User {
            let instrumentation = ObservabilityInstrumentation(logger: Logger(label: "api"))
            let transport = SocketRequestPerformer(instrumentation: instrumentation)
            let client = APIClient(requestPerformer: transport.retrying(), instrumentation: instrumentation)

            let user = try await client.perform(GetUser(id: 7))
            return user
        }
    }

    @Test func performsTheFirstExample() async throws {
        let server = try LoopbackServer()
        server.route("GET", "/users/7") { _ in .json(#"{"id": 7}"#) }
        let user = try await Readme.$server.withValue(server.baseURL) {
            try await Readme.firstExample()
        }
        #expect(user.id == 7)
        #expect(server.receivedRequests.map(\.path) == ["/users/7"])
    }
}

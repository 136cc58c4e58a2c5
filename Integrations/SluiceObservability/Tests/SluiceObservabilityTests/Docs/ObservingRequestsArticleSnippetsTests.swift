// swift-format-ignore-file: NeverForceUnwrap

// The snippet of the "Observing requests" article in Sluice's DocC catalog that uses this package, verbatim and
// compiled: the root package cannot import the adapter, so it is compiled here. Its endpoint's server is the article's,
// where nothing listens in a test, so the test runs the same code against a loopback server instead.
import Foundation
import InMemoryTracing
import Logging
import Sluice
import SluiceObservability
import SluiceTesting
import Testing
import Tracing

@Suite struct ObservingRequestsArticleSnippetsTests {
    /// The article's own names.
    enum Article {
        struct User: Decodable, Sendable {
            var id: Int
        }

        struct GetUser: Endpoint {
            static let definition: Definition<GetUser> = Definition(
                server: Server([.production: URL(string: "https://api.example.com/v2")!]),
                method: .get,
                path: "users/\(path: \.id)"
            )
            typealias Response = User
            struct PathComponents { var id: Int }
            var pathComponents: PathComponents
        }

        /// "Send them to a tracer, a metrics backend and a logger".
        static func adapter() async throws {
            let instrumentation = ObservabilityInstrumentation(logger: Logger(label: "api"))
            let client = APIClient(
                requestPerformer: SocketRequestPerformer(instrumentation: instrumentation),
                instrumentation: instrumentation
            )
            try await InstrumentationSystem.tracer.withSpan("refresh profile") { _ in
                // The request's span is a child of "refresh profile".
                _ = try await client.perform(GetUser(pathComponents: .init(id: 7)))
            }
        }
    }

    /// The snippet's shape with an in-memory tracer and a loopback server: the request's span is the child of the
    /// span around it, named by the endpoint's template.
    @Test func putsTheRequestsSpanUnderTheSpanAroundIt() async throws {
        let server = try LoopbackServer()
        server.route("GET", "/v2/users/7") { _ in .json(#"{"id": 7}"#) }
        let tracer = InMemoryTracer()
        let instrumentation = ObservabilityInstrumentation(tracer: tracer)
        let client = APIClient(
            requestPerformer: SocketRequestPerformer(instrumentation: instrumentation),
            instrumentation: instrumentation
        )
        struct LocalUser: Request {
            typealias ResponseObject = Article.User
            var url: URL
            func build() throws -> URLRequest { URLRequest(url: url) }
            var urlTemplate: String? { Article.GetUser(pathComponents: .init(id: 7)).urlTemplate }
        }
        try await tracer.withSpan("refresh profile") { _ in
            _ = try await client.perform(LocalUser(url: server.url("/v2/users/7")))
        }
        let outer = try #require(tracer.finishedSpans.first { $0.operationName == "refresh profile" })
        let request = try #require(tracer.finishedSpans.first { $0.parentSpanID == outer.spanID })
        #expect(request.operationName == "GET /v2/users/{id}")
    }
}

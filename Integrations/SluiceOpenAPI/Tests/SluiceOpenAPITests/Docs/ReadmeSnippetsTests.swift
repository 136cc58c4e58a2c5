// The snippets of Integrations/SluiceOpenAPI/README.md, verbatim, compiled, and run where they need no server of
// their own: the first sends to the document's server URL, where no server listens in a test.
import AsyncHTTPClient
import Foundation
import OpenAPIAsyncHTTPClient
import OpenAPIRuntime
import Sluice
import SluiceOpenAPI
import Testing

@Suite struct ReadmeSnippetsTests {
    /// What the snippet's app signs in with.
    static func signIn() async throws -> String { "token-2" }

    /// The README's first snippet.
    static func firstExample() async throws -> Components.Schemas.Item {
        let tokens = CredentialStore(credential: nil, hosts: ["api.example.com"]) { _ in
            CredentialStore.Credential(authorization: "Bearer \(try await signIn())")
        }
        let performer = SocketRequestPerformer()
            .retrying()
            .cached(in: HTTPCache())
            .authenticated(by: tokens)
        let client = Client(serverURL: try Servers.Server1.url(), transport: SluiceClientTransport(performer))

        let item = try await client.getItem(path: .init(itemId: "42")).ok.body.json
        return item
    }

    /// The README's second snippet, what it prints returned.
    static func errors(_ client: Client) async throws -> String? {
        var printed: String?
        func print(_ items: Any...) { printed = items.map { "\($0)" }.joined(separator: " ") }
        do {
            _ = try await client.getItem(path: .init(itemId: "42"))
        } catch let error as ClientError {
            if let failure = error.underlyingError as? SluiceError {
                print(failure.code, failure.attemptFailures)  // what Sluice's pipeline knew
            }
        }
        return printed
    }

    /// The README's third snippet.
    static func reverse() -> APIClient {
        let overAsyncHTTPClient = APIClient(requestPerformer: OpenAPITransportPerformer(AsyncHTTPClientTransport()))
        return overAsyncHTTPClient
    }

    @Test func reportsASluiceErrorInsideTheClientError() async throws {
        let closed = try #require(URL(string: "http://127.0.0.1:1/v1"))
        let printed = try await Self.errors(Client(serverURL: closed, transport: SluiceClientTransport()))
        #expect(printed == "transport []")
    }

    @Test func runsASluiceClientOverTheReference() async throws {
        struct Fetch: Request {
            typealias ResponseObject = Data
            let url: URL
            func build() throws -> URLRequest { URLRequest(url: url) }
        }
        try await CatalogServer.with(CatalogService()) { serverURL in
            let body = try await Self.reverse().perform(Fetch(url: serverURL.appending(path: "items/43")))
            #expect(String(decoding: body, as: UTF8.self).contains(#""name" : "Desk""#))
        }
    }
}

// The snippets of the "Generated OpenAPI clients" article in Sluice's DocC catalog, verbatim, compiled, and run
// against the test API's server where they need no server of their own.
import AsyncHTTPClient
import Foundation
import HTTPTypes
import OpenAPIAsyncHTTPClient
import OpenAPIRuntime
import Sluice
import SluiceOpenAPI
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite struct OpenAPIArticleSnippetsTests {
    /// What the snippet's app signs in with.
    static func signIn() async throws -> String { "token-2" }

    /// The overview's snippet: it sends to the document's server URL, where no server listens in a test.
    static func overview() async throws -> Components.Schemas.Item {
        let tokens = CredentialStore(credential: nil, hosts: ["api.example.com"]) { _ in
            CredentialStore.Credential(authorization: "Bearer \(try await signIn())")
        }
        let transport = SluiceClientTransport(
            SocketRequestPerformer()
                .retrying()
                .cached(in: HTTPCache())
                .authenticated(by: tokens)
        )
        let client = Client(serverURL: try Servers.Server1.url(), transport: transport)
        let item = try await client.getItem(path: .init(itemId: "42")).ok.body.json
        return item
    }

    /// "Bodies that stream", what it prints returned.
    static func streaming(_ client: Client) async throws -> [String] {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }
        let body = try await client.streamEvents(query: .init(count: 100)).ok.body.applicationJsonl
        for try await event in body.asDecodedJSONLines(of: Components.Schemas.Event.self) {
            print(event.sequence, event.message)
        }
        return printed
    }

    /// "The request's context and its errors", what it prints returned.
    static func errors(_ client: Client) async throws -> String? {
        var printed: String?
        func print(_ items: Any...) { printed = items.map { "\($0)" }.joined(separator: " ") }
        do {
            _ = try await client.getItem(path: .init(itemId: "42"))
        } catch let error as ClientError {
            if let failure = error.underlyingError as? SluiceError {
                print(failure.code, failure.attemptFailures)
            }
        }
        return printed
    }

    /// "swift-http-types".
    static func bridging() throws -> (URLRequest, HTTPFields) {
        let head = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/items/42?fields=name")
        let request = try URLRequest(head, baseURL: try Servers.Server1.url())
        let fields = try HTTPFields(HTTPHeaders([.init("Accept", "application/json"), .init("X-Trace", "7")]))
        return (request, fields)
    }

    /// "The other way round".
    static func reverse() -> APIClient {
        let client = APIClient(requestPerformer: OpenAPITransportPerformer(AsyncHTTPClientTransport()).retrying())
        return client
    }

    @Test func streamsJSONLines() async throws {
        let printed = try await CatalogServer.with(CatalogService()) { serverURL in
            try await Self.streaming(Client(serverURL: serverURL, transport: SluiceClientTransport()))
        }
        #expect(printed.count == 100)
        #expect(printed.first == "0 event 0")
        #expect(printed.last == "99 event 99")
    }

    @Test func reportsASluiceErrorInsideTheClientError() async throws {
        let closed = try #require(URL(string: "http://127.0.0.1:1/v1"))
        let printed = try await Self.errors(Client(serverURL: closed, transport: SluiceClientTransport()))
        #expect(printed == "transport []")
    }

    @Test func bridgesSwiftHTTPTypes() throws {
        let (request, fields) = try Self.bridging()
        #expect(request.url?.absoluteString == "http://127.0.0.1:8080/v1/items/42?fields=name")
        #expect(fields.map(\.description) == ["Accept: application/json", "X-Trace: 7"])
    }

    @Test func runsASluiceClientOverTheReference() async throws {
        struct Fetch: Request {
            typealias ResponseObject = Data
            let url: URL
            func build() throws -> URLRequest { URLRequest(url: url) }
        }
        try await CatalogServer.with(CatalogService()) { serverURL in
            let body = try await Self.reverse().perform(Fetch(url: serverURL.appending(path: "items/44")))
            #expect(String(decoding: body, as: UTF8.self).contains(#""name" : "Torch""#))
        }
    }
}

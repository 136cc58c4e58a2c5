// swift-format-ignore-file: NeverForceUnwrap

import ClientFixtures
// The snippets of the "Declarative endpoints" article and of the Endpoints API documentation, verbatim where they
// are whole, and completed into a declaration where they are fragments.
import Foundation
import Sluice
import SluiceTesting
import Testing

private enum Article {
    struct Event: Codable, Sendable {
        let id: String
        let title: String
    }

    struct CalendarProblem: Decodable, Sendable {
        let message: String
    }

    struct ListEvents: Endpoint {
        static let definition: Definition<ListEvents> = Definition(
            method: .get,
            path: "calendars/\(path: \.calendarId)/events",
            parameters: [.query("q", \.text), .queryValue("maxResults", value: 50)],
            headers: [.accept: .fieldValue(value: "application/json")]
        )

        typealias Response = [Event]
        typealias ErrorResponse = CalendarProblem

        struct PathComponents {
            let calendarId: String
        }

        struct Parameters {
            let text: String?
        }

        let pathComponents: PathComponents
        let parameters: Parameters
    }

    /// The article's snippet as written, compiled but not run.
    ///
    /// It changes the process-wide default server, which tests running in parallel share; `configureDefault(_:)`
    /// runs the same lines on a server of its own.
    static func articleConfiguresTheDefaultServer() {
        Server.default.setBaseURL(URL(string: "https://www.googleapis.com/calendar/v3")!, for: .production)
        Server.default.setBaseURL(URL(string: "http://localhost:8080")!, for: .local)
        Server.default.environment = .local
    }

    static func configureDefault(_ server: Server) {
        // The article configures `Server.default`; the test configures a server of its own the same way.
        server.setBaseURL(URL(string: "https://www.googleapis.com/calendar/v3")!, for: .production)
        server.setBaseURL(URL(string: "http://localhost:8080")!, for: .local)
        server.environment = .local
    }

    static func perform(_ client: APIClient) async throws -> [Event] {
        let events = try await client.perform(
            ListEvents(pathComponents: .init(calendarId: "primary"), parameters: .init(text: "standup"))
        )
        return events
    }

    struct UploadAttachment: Endpoint {
        static let definition: Definition<UploadAttachment> = Definition(method: .post, path: "attachments")
        typealias Response = Void

        let body: MultipartForm
        var bodyEncoder: MultipartForm.Encoder { MultipartForm.Encoder() }
    }

    static func handle(_ client: APIClient) async -> String? {
        var printed: String?
        do {
            _ = try await client.perform(
                ListEvents(pathComponents: .init(calendarId: "x"), parameters: .init(text: nil))
            )
        } catch {
            if let problem = error.errorResponse(for: ListEvents.self) {
                print(problem.message)
                printed = problem.message
            }
        }
        return printed
    }
}

private enum APIDocs {
    struct User: Decodable, Sendable {
        let id: Int
    }

    struct APIProblem: Decodable, Sendable {
        let message: String
    }

    struct SearchUsers: Endpoint {
        static let definition: Definition<SearchUsers> = Definition(
            method: .get,
            path: "orgs/\(path: \.org)/users",
            parameters: [.query("q", \.text), .queryValue("per_page", value: 50)],
            headers: [.accept: .fieldValue(value: "application/json")]
        )

        typealias Response = [User]
        typealias ErrorResponse = APIProblem

        struct PathComponents { let org: String }
        struct Parameters { let text: String? }

        let pathComponents: PathComponents
        let parameters: Parameters
    }

    struct DeleteEvent: Endpoint {
        static let definition: Definition<DeleteEvent> = Definition(
            method: .delete,
            path: "calendars/\(path: \.calendarId)/events/\(path: \.eventId)"
        )

        typealias Response = Void

        struct PathComponents {
            let calendarId: String
            let eventId: String
        }

        let pathComponents: PathComponents
    }

    struct EventPath {
        let calendarId: String
        let eventId: String
    }

    static let path: EndpointPath<EventPath> = "calendars/\(path: \.calendarId)/events/\(path: \.eventId)"

    /// The `Parameter`, `HeaderField`, `Definition.Headers` and `QueryEncoding` fragments, completed into one definition.
    struct Fragments: Endpoint {
        typealias Response = Void
        struct Parameters {
            let text: String
            let token: String
            let tags: [String]
        }
        struct HeaderValues {
            let traceID: String
        }
        let parameters: Parameters
        let headerValues: HeaderValues

        static let definition: Definition<Fragments> = Definition(
            method: .post,
            path: "search",
            parameters: [
                .query("q", \.text),  // from the endpoint's parameters
                .queryValue("per_page", value: 50),  // always sent
                .form("token", \.token),  // in an application/x-www-form-urlencoded body
                .query("tag", each: \.tags),  // an array, written as the definition's QueryEncoding says
            ],
            headers: [
                "X-Trace": .field(\.traceID),
                .accept: .fieldValue(value: "application/json"),
            ],
            queryEncoding: QueryEncoding(spaces: .plus, arrays: .brackets)
        )
    }

    enum Sort: String, PathRepresentable {
        case newest, oldest
    }

    struct Slug: PathRepresentable {
        let words: [String]
        var pathValue: String { words.joined(separator: "-") }
    }

    struct UploadAvatar: Endpoint {
        static let definition: Definition<UploadAvatar> = Definition(method: .post, path: "avatar")
        typealias Response = Void
        let body: MultipartForm
        var bodyEncoder: MultipartForm.Encoder { MultipartForm.Encoder() }
    }

    static func upload() -> UploadAvatar {
        let upload = UploadAvatar(
            body: MultipartForm([
                .field("caption", "At the beach"),
                .file("photo", fileURL: URL(fileURLWithPath: "/tmp/beach.jpg"), contentType: "image/jpeg"),
            ])
        )
        return upload
    }

    /// Sends a `String` body as plain text.
    struct PlainTextEncoder: RequestBody.Encoder {
        func encodeBody<T: Encodable>(_ value: T) throws -> RequestBody {
            guard let text = value as? String else {
                throw EncodingError.invalidValue(
                    value,
                    .init(codingPath: [], debugDescription: "expected a String body")
                )
            }
            return .data(Data(text.utf8), contentType: "text/plain; charset=utf-8")
        }
    }

    struct GuardedJSONDecoder: DataDecoder {
        func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
            let prefix = Data(")]}'\n".utf8)
            let body = data.starts(with: prefix) ? data.dropFirst(prefix.count) : data
            return try JSONDocumentDecoder().decode(type, from: Data(body))
        }
    }

    static func servers() -> Server {
        let api = Server([
            .production: URL(string: "https://api.example.com")!,
            .staging: URL(string: "https://staging.example.com")!,
        ])
        api.environment = .staging
        return api
    }

    static func scoped(client: APIClient) async throws {
        let local = Server([.production: URL(string: "http://127.0.0.1:8080")!])
        try await Server.withDefault(local) {
            try await client.perform(DeleteEvent(pathComponents: .init(calendarId: "c", eventId: "e")))
        }
    }

    static func session(_ session: URLSession) async throws {
        let endpoint = DeleteEvent(pathComponents: .init(calendarId: "c", eventId: "e"))
        try await APIClient(requestPerformer: NetworkRequestPerformer(session: session)).perform(endpoint)
    }

    static func typedError(client: APIClient) async {
        do {
            try await client.perform(DeleteEvent(pathComponents: .init(calendarId: "c", eventId: "e")))
        } catch {
            if let problem = error.errorResponse(for: DeleteEvent.self) {
                print(problem)
            }
        }
    }
}

@Suite struct EndpointSnippetsTests {
    @Test func articleSnippetsRunAgainstAStub() async throws {
        let server = Server()
        Article.configureDefault(server)
        let stub = StubPerformer { request in
            if request.url?.path.hasSuffix("/x/events") == true {
                return HTTPResponse(status: .notFound, body: Data(#"{"message": "no calendar x"}"#.utf8))
            }
            return HTTPResponse(status: .ok, body: Data(#"[{"id": "1", "title": "Standup"}]"#.utf8))
        }
        let client = APIClient(requestPerformer: stub)
        let events = try await Server.withDefault(server) { try await Article.perform(client) }
        #expect(events.map(\.title) == ["Standup"])
        #expect(
            stub.requests.first?.url?.absoluteString
                == "http://localhost:8080/calendars/primary/events?q=standup&maxResults=50"
        )
        let message = await Server.withDefault(server) { await Article.handle(client) }
        #expect(message == "no calendar x")
        _ = Article.UploadAttachment(body: MultipartForm([]))
    }

    @Test func apiDocumentationSnippetsBuild() async throws {
        let server = APIDocs.servers()
        #expect(server.environment == .staging)
        let fragments = APIDocs.Fragments(
            parameters: .init(text: "a b", token: "t", tags: ["x"]),
            headerValues: .init(traceID: "1")
        )
        let request = try fragments.build(on: server)
        #expect(request.url?.absoluteString == "https://staging.example.com/search?q=a+b&per_page=50&tag%5B%5D=x")
        #expect(request.value(forHTTPHeaderField: "X-Trace") == "1")
        #expect(APIDocs.path.template == "calendars/{calendarId}/events/{eventId}")
        #expect(APIDocs.Sort.newest.pathValue == "newest")
        #expect(APIDocs.Slug(words: ["a", "b"]).pathValue == "a-b")
        #expect(APIDocs.upload().body.parts.count == 2)
        #expect(try APIDocs.PlainTextEncoder().encodeBody("hi").contentType == "text/plain; charset=utf-8")
        #expect(try APIDocs.GuardedJSONDecoder().decode([Int].self, from: Data(")]}'\n[1]".utf8)) == [1])
        let search = APIDocs.SearchUsers(pathComponents: .init(org: "swift"), parameters: .init(text: nil))
        #expect(
            try search.build(on: server).url?.absoluteString
                == "https://staging.example.com/orgs/swift/users?per_page=50"
        )
        let stub = StubPerformer(always: HTTPResponse(status: .noContent))
        try await APIDocs.scoped(client: APIClient(requestPerformer: stub))
        #expect(stub.requests.first?.url?.absoluteString == "http://127.0.0.1:8080/calendars/c/events/e")
        await APIDocs.typedError(client: APIClient(requestPerformer: stub))
        _ = APIDocs.session
    }
}

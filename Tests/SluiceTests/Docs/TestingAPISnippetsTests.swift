// swift-format-ignore-file: NeverForceUnwrap

import ClientFixtures
// The snippets of SluiceTesting's documentation comments, verbatim, inside declarations that give them the types
// they name.
import Foundation
import Sluice
import SluiceTesting
import Testing

/// Namespaced, so that the snippets' type names do not meet the other tests'.
enum TestingAPISnippets {
    struct User: Decodable, Sendable {
        let id: Int
        let name: String
    }

    struct GetUser: Request {
        typealias ResponseObject = User
        let id: Int
        func build() throws -> URLRequest { URLRequest(url: URL(string: "https://api.example.com/users/\(id)")!) }
    }

    struct ListUsers: Request {
        typealias ResponseObject = [User]
        func build() throws -> URLRequest { URLRequest(url: URL(string: "https://api.example.com/users")!) }
    }

    /// The users at a URL of the test's server.
    struct UsersAt: Request {
        typealias ResponseObject = [User]
        let url: URL
        func build() throws -> URLRequest { URLRequest(url: url) }
    }

    /// A `GET` of a URL of the test's server, with some header fields.
    struct Get: Request {
        typealias ResponseObject = Data
        let url: URL
        var headers: [String: String] = [:]
        func build() throws -> URLRequest {
            var request = URLRequest(url: url)
            for (name, value) in headers {
                request.setValue(value, forHTTPHeaderField: name)
            }
            return request
        }
    }

    /// The model the MockClient documentation tests.
    struct ProfileModel {
        let client: any Client
        func load(userID: Int) async throws {
            _ = try await client.perform(GetUser(id: userID))
        }
    }

    struct Account: Decodable, Sendable {
        let name: String
    }

    enum AccountsAPI: APIDefinition, Equatable {
        case details
        var baseURL: URL { URL(string: "https://api.example.com")! }
        var path: String { "/account" }
        var method: HTTPMethod { .GET }
    }

    struct Following: EndpointDefinition {
        typealias Response = ArrayResponse<Member>
        static let path = "/following"
        var method: HTTPMethod { .get }
    }

    struct Member: Decodable, Sendable {
        let id: Int
        let login: String
    }

    @Suite struct Tests {
        @Test func stubPerformer() async throws {
            let stub = StubPerformer.json(#"[{"id": 1, "name": "Ada"}]"#)
            let client = APIClient(requestPerformer: stub)
            let users = try await client.perform(ListUsers())
            #expect(stub.requests.first?.url?.path == "/users")
            _ = users
        }

        @Test func mockClient() async throws {
            let mock = MockClient()
            mock.stub(GetUser.self, where: { $0.id == 42 }, .json(#"{"id": 42, "name": "Ada"}"#))
            mock.stub(GetUser.self, .failure(SluiceError(.status, message: "not found")))

            let model = ProfileModel(client: mock)
            try await model.load(userID: 42)
            _ = try? await mock.perform(GetUser(id: 1))
            try mock.verify()
        }

        @Test func mockResponses() async throws {
            let mock = MockClient()
            mock.stub(GetUser.self, .value(User(id: 1, name: "Ada")))
            mock.stub(GetUser.self, .json(#"{"id": 1, "name": "Ada"}"#))  // decoded by the request itself
            mock.stub(GetUser.self, .json(#"{"message": "gone"}"#, status: 410))  // a status error with its error body
            mock.stub(GetUser.self, .failure(SluiceError(.timedOut)))
            #expect(try await mock.perform(GetUser(id: 1)).name == "Ada")
        }

        @Test func mockDialects() async throws {
            let mock = MockClient()
            mock.stub(AccountsAPI.self, expecting: Account.self, where: { $0 == .details }, .json(#"{"name": "Ada"}"#))
            let repository = Repository(
                client: mock,
                server: Server([.production: URL(string: "https://api.example.com")!])
            )
            mock.stub(Following.self, .json(#"[{"id": 1, "login": "ada"}]"#))
            #expect(try await mock.perform(AccountsAPI.details, expecting: Account.self).name == "Ada")
            #expect(try await repository.perform(Following()).map(\.login) == ["ada"])
        }

        @Test func recordingAndReplaying() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.route("GET", "/users", response: .json(#"[{"id": 1, "name": "Ada"}]"#))
            let fixtures = FileManager.default.temporaryDirectory.appendingPathComponent(
                "sluice-doc-\(UUID().uuidString)"
            )
            try FileManager.default.createDirectory(at: fixtures, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: fixtures) }
            let users = UsersAt(url: server.url("/users"))

            let recorder = RecordingPerformer(base: NetworkRequestPerformer(), directory: fixtures)
            let client = APIClient(requestPerformer: recorder)
            #expect(try await client.perform(users).map(\.name) == ["Ada"])
            #expect(try FileManager.default.contentsOfDirectory(atPath: fixtures.path) == ["0001-GET-users.json"])

            let replaying = APIClient(requestPerformer: try ReplayingPerformer(directory: fixtures))
            #expect(try await replaying.perform(users).map(\.name) == ["Ada"])
            #expect(server.receivedRequests.count == 1, "the replay is answered from the fixture")
        }

        @Test func loopbackServer() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.route("GET", "/users", response: .json(#"[{"id":1}]"#))
            let (data, _) = try await URLSession.shared.data(from: server.url("/users?page=2"))
            #expect(server.receivedRequests.first?.queryItems == [URLQueryItem(name: "page", value: "2")])
            _ = data
            server.route("/slow", response: .text("late").delayed(by: .seconds(2)))
            server.route("/flaky", response: .text("lost").injecting(.closeMidBody(afterBytes: 2)))
        }

        @Test func streamedResponses() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.route(
                "/progress",
                response: .streamed([
                    LoopbackServer.Response.Chunk(text: "started\n"),
                    LoopbackServer.Response.Chunk(text: "done\n", after: .milliseconds(50)),
                ])
            )
            server.route("/large", response: .generated(byteCount: 3 << 30))
            server.route(
                "/events",
                response: .serverSentEvents([
                    LoopbackServer.Response.SentEvent(event: "greeting", data: "hello\nworld", id: "1"),
                    LoopbackServer.Response.SentEvent(data: "later", id: "2", after: .milliseconds(50)),
                ])
            )

            let client = APIClient()
            var lines: [String] = []
            for try await line in try await client.lines(Get(url: server.url("/progress"))) {
                lines.append(line)
            }
            #expect(lines == ["started", "done"])
            var events: [ServerSentEvent] = []
            for try await event in try await client.events(Get(url: server.url("/events")), reconnecting: nil) {
                events.append(event)
            }
            #expect(events.map(\.type) == ["greeting", "message"])
            #expect(events.map(\.data) == ["hello\nworld", "later"])
            #expect(events.map(\.lastEventID) == ["1", "2"])
            // Three gibibytes are announced; the first chunk is checked, and the rest left unread.
            let large = try await client.stream(Get(url: server.url("/large")))
            #expect(large.body.expectedLength == 3 << 30)
            var chunks = large.body.makeAsyncIterator()
            let first = try #require(try await chunks.next())
            #expect(first == LoopbackServer.Response.generatedBytes(in: 0..<Int64(first.count)))
        }

        @Test func rangeResponses() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            let download = LoopbackServer.Response.generated(byteCount: 10_000).servingRanges(etag: #""v1""#)
            server.route("/file", response: download)
            let part = try await NetworkRequestPerformer().perform(
                Get(url: server.url("/file"), headers: ["Range": "bytes=100-199", "If-Range": #""v1""#]).build()
            )
            #expect(part.status.code == 206)
            #expect(part.headers["Content-Range"] == "bytes 100-199/10000")
            #expect(part.body == LoopbackServer.Response.generatedBytes(in: 100..<200))

            let wrong = LoopbackServer.Response.generated(byteCount: 1_000).servingRanges()
            server.route("/file", response: wrong.injecting(.misreportedContentRange("bytes 0-99/1000")))
            let misreported = try await NetworkRequestPerformer().perform(
                Get(url: server.url("/file"), headers: ["Range": "bytes=500-509"]).build()
            )
            #expect(misreported.status.code == 206)
            #expect(misreported.headers["Content-Range"] == "bytes 0-99/1000", "not the range sent")
            #expect(misreported.body == LoopbackServer.Response.generatedBytes(in: 500..<510))
        }

        @Test func webSocketRoutes() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.route("/chat", response: .webSocket([.text("welcome"), .receive, .close(reason: "bye")]))
            server.route("/echo", response: .webSocket([.echo]))
            server.route("/broken", response: .webSocket([.maskedFrame(text: "hi"), .awaitClose]))
            let performer = SocketRequestPerformer(configuration: .init(proxies: .none))
            let chat = try await performer.webSocket(URLRequest(url: server.url("/chat")))
            var messages = chat.messages.makeAsyncIterator()
            #expect(try await messages.next() == .text("welcome"))
            try await chat.send(.text("hi"))
            #expect(try await messages.next() == nil)
            #expect(chat.closeStatus?.reason == "bye")
            let echo = try await performer.webSocket(URLRequest(url: server.url("/echo")))
            try await echo.send(.text("again"))
            #expect(try await echo.receive() == .text("again"))
            await echo.close()
            let broken = try await performer.webSocket(URLRequest(url: server.url("/broken")))
            await #expect(throws: SluiceError.self) { try await broken.receive() }
        }

        @Test func echoAndRedirect() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.route("/anything") { request in .echo(of: request, as: .json) }
            server.route("/login", response: .redirect(to: "/home").addingHeader("Set-Cookie", "session=abc; Path=/"))
            server.route("/home") { request in .text(request.header("Cookie") ?? "") }
            var request = URLRequest(url: server.url("/anything?page=2"))
            request.setValue("ada", forHTTPHeaderField: "X-User")
            let echoed = try await NetworkRequestPerformer().perform(request)
            let json = try JSON(parsing: echoed.body)
            #expect(json["args"]?["page"]?.string == "2")
            #expect(json["headers"]?["X-User"]?.string == "ada")
            let home = try await NetworkRequestPerformer().perform(URLRequest(url: server.url("/login")))
            #expect(String(decoding: home.body, as: UTF8.self) == "session=abc")
        }
    }
}

import Foundation
import SluiceEndpoints
import SluiceTesting
import Testing

private struct Problem: Decodable, Equatable, Sendable {
    var message: String
    var field: String?
}

private struct Todo: Codable, Equatable, Sendable {
    var id: Int?
    var title: String
    var dueAt: Date?
}

private struct CreateTodo: Endpoint {
    static let definition: Definition<CreateTodo> = Definition(
        method: .post,
        path: "lists/\(path: \.list)/todos",
        parameters: [.query("notify", path: \.notify)],
        headers: ["X-Request-ID": .field(path: \.requestID)]
    )
    typealias Response = Todo
    typealias ErrorResponse = Problem
    typealias Body = Todo
    typealias ResponseDecoder = JSONDecoder

    struct PathComponents {
        var list: String
    }
    struct Parameters {
        var notify: Bool
    }
    struct HeaderValues {
        var requestID: UUID
    }

    var pathComponents: PathComponents
    var parameters: Parameters
    var headerValues: HeaderValues
    var body: Todo

    var bodyEncoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = .sortedKeys
        return encoder
    }

    var responseDecoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        decoder.dateDecodingStrategy = .secondsSince1970
        return decoder
    }
}

private struct DownloadLogo: Endpoint {
    static let definition: Definition<DownloadLogo> = Definition(method: .get, path: "logo.png")
    typealias Response = Data
}

private struct UploadFile: Endpoint {
    static let definition: Definition<UploadFile> = Definition(method: .put, path: "files")
    typealias Response = Void
    var body: MultipartForm
    var bodyEncoder: MultipartForm.Encoder { MultipartForm.Encoder(boundary: "sluice-test-boundary") }
}

@Suite struct EndpointEndToEndTests {
    let loopback: LoopbackServer
    let server: Server
    let client: APIClient

    init() throws {
        loopback = try LoopbackServer()
        server = Server([.production: loopback.baseURL])
        client = APIClient(requestPerformer: NetworkRequestPerformer())
    }

    @Test func performsAVoidEndpoint() async throws {
        loopback.route("DELETE", "/calendar/v3/calendars/*", response: LoopbackServer.Response(status: 204))
        let endpoint = DeleteEndpoint(pathComponents: .init(calendarId: "team cal", eventId: "/42"))
        try await Server.withDefault(server) {
            try await client.perform(endpoint)
        }
        let received = try #require(loopback.receivedRequests.last)
        #expect(received.method == "DELETE")
        #expect(received.target == "/calendar/v3/calendars/team%20cal/events%2F42")
        #expect(received.body.isEmpty)
    }

    @Test func ignoresTheBodyOfAVoidEndpoint() async throws {
        loopback.route(
            "DELETE",
            "/calendar/v3/calendars/*",
            response: LoopbackServer.Response(
                headers: [.init("Content-Type", "text/html")],
                body: Data("<html>ok</html>".utf8)
            )
        )
        let endpoint = DeleteEndpoint(pathComponents: .init(calendarId: "c", eventId: "e"))
        try await Server.withDefault(server) {
            try await client.perform(endpoint)
        }
        #expect(loopback.receivedRequests.map(\.target) == ["/calendar/v3/calendars/c/eventse"])
    }

    @Test func performsADataEndpoint() async throws {
        let logo = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00])
        loopback.route(
            "GET",
            "/logo.png",
            response: LoopbackServer.Response(headers: [.init("Content-Type", "image/png")], body: logo)
        )
        let bytes = try await Server.withDefault(server) { try await client.perform(DownloadLogo()) }
        #expect(bytes == logo)
    }

    @Test func performsADecodableEndpointWithEveryPart() async throws {
        loopback.route("POST", "/lists/*") { request in
            .json(#"{"id": 9, "title": "Buy milk", "due_at": 1700000000}"#, status: 201)
        }
        let id = UUID()
        let endpoint = CreateTodo(
            pathComponents: .init(list: "home"),
            parameters: .init(notify: true),
            headerValues: .init(requestID: id),
            body: Todo(title: "Buy milk", dueAt: Date(timeIntervalSince1970: 1_700_000_000))
        )
        let todo = try await Server.withDefault(server) { try await client.perform(endpoint) }
        #expect(todo == Todo(id: 9, title: "Buy milk", dueAt: Date(timeIntervalSince1970: 1_700_000_000)))
        let received = try #require(loopback.receivedRequests.last)
        #expect(received.target == "/lists/home/todos?notify=true")
        #expect(received.header("Content-Type") == "application/json")
        #expect(received.header("X-Request-ID") == id.uuidString)
        #expect(received.bodyText == #"{"due_at":1700000000,"title":"Buy milk"}"#)
    }

    @Test func decodesTheErrorResponseTyped() async throws {
        loopback.route(
            "POST",
            "/lists/*",
            response: .json(#"{"message": "title is empty", "field": "title"}"#, status: 422)
        )
        let endpoint = CreateTodo(
            pathComponents: .init(list: "home"),
            parameters: .init(notify: false),
            headerValues: .init(requestID: UUID()),
            body: Todo(title: "")
        )
        let error = try await #require(throws: SluiceError.self) {
            try await Server.withDefault(server) { try await client.perform(endpoint) }
        }
        #expect(error.status == .unprocessableContent)
        let problem: Problem? = error.errorResponse(for: CreateTodo.self)
        #expect(problem == Problem(message: "title is empty", field: "title"))
    }

    @Test func keepsStatusAndBytesWhenTheErrorResponseDoesNotDecode() async throws {
        loopback.route("POST", "/lists/*", response: .text("upstream timeout", status: 504))
        let endpoint = CreateTodo(
            pathComponents: .init(list: "home"),
            parameters: .init(notify: false),
            headerValues: .init(requestID: UUID()),
            body: Todo(title: "x")
        )
        let error = try await #require(throws: SluiceError.self) {
            try await Server.withDefault(server) { try await client.perform(endpoint) }
        }
        #expect(error.code == .status)
        #expect(error.status == .gatewayTimeout)
        #expect(error.errorResponse(for: CreateTodo.self) == nil)
        #expect(error.response?.body == Data("upstream timeout".utf8))
        // What JSONDecoder throws for bytes that are not JSON, with the JSONError under it.
        guard case .dataCorrupted(let context)? = error.errorResponseDecodingError as? DecodingError else {
            Issue.record("the error body's decoding threw \(String(describing: error.errorResponseDecodingError))")
            return
        }
        #expect(context.underlyingError is JSONError)
    }

    @Test func reportsAMalformedBodyAtTheDeserializeStage() async throws {
        struct GetTodo: Endpoint {
            static let definition: Definition<GetTodo> = Definition(method: .get, path: "todo")
            typealias Response = Todo
        }
        loopback.route("GET", "/todo", response: .json(#"{"title": "x",}"#))
        let error = try await #require(throws: SluiceError.self) {
            try await Server.withDefault(server) { try await client.perform(GetTodo()) }
        }
        #expect(error.code == .deserialize)
        #expect(error.jsonError?.column == 15)
    }

    @Test func streamsAMultipartUploadFromDisk() async throws {
        loopback.route("PUT", "/files", response: LoopbackServer.Response(status: 204))
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "sluice-upload-\(UUID().uuidString).txt"
        )
        let content = Data(String(repeating: "line of text\n", count: 40_000).utf8)
        try content.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let upload = UploadFile(
            body: MultipartForm([
                .field("note", "hello"), .file("doc", fileURL: file, filename: "doc.txt", contentType: "text/plain"),
            ])
        )
        try await Server.withDefault(server) { try await client.perform(upload) }
        let received = try #require(loopback.receivedRequests.last)
        var expected = Data(
            "--sluice-test-boundary\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\nhello\r\n--sluice-test-boundary\r\nContent-Disposition: form-data; name=\"doc\"; filename=\"doc.txt\"\r\nContent-Type: text/plain\r\n\r\n"
                .utf8
        )
        expected.append(content)
        expected.append(Data("\r\n--sluice-test-boundary--\r\n".utf8))
        #expect(received.header("Content-Type") == "multipart/form-data; boundary=sluice-test-boundary")
        #expect(
            received.header("Content-Length") == nil || received.header("Transfer-Encoding") == nil,
            "exactly one framing: the loopback server refuses a request with both, as nginx does"
        )
        #expect(received.body.count == expected.count)
        #expect(received.body == expected)
    }

    @Test func performsAnEndpointOnAURLSessionOfItsOwn() async throws {
        loopback.route("DELETE", "/calendar/v3/calendars/*", response: LoopbackServer.Response(status: 204))
        loopback.route("GET", "/logo.png", response: LoopbackServer.Response(body: Data([1, 2, 3])))
        let client = APIClient(
            requestPerformer: NetworkRequestPerformer(session: URLSession(configuration: .ephemeral))
        )
        try await Server.withDefault(server) {
            try await client.perform(DeleteEndpoint(pathComponents: .init(calendarId: "c", eventId: "e")))
            #expect(try await client.perform(DownloadLogo()) == Data([1, 2, 3]))
        }
        #expect(loopback.receivedRequests.map(\.method) == ["DELETE", "GET"])
    }

    @Test func enforcesTheBodyLimitOnAGivenSession() async throws {
        loopback.route("GET", "/logo.png", response: LoopbackServer.Response(body: Data(repeating: 7, count: 2_000)))
        let performer = NetworkRequestPerformer(session: URLSession(configuration: .ephemeral), maximumBodySize: 1_000)
        let error = try await #require(throws: SluiceError.self) {
            try await Server.withDefault(server) {
                try await APIClient(requestPerformer: performer).perform(DownloadLogo())
            }
        }
        #expect(error.message == "the response body is 2000 bytes, more than the limit of 1000 bytes")
    }
}

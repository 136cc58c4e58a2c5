// The snippets of the "Streamed responses" article and of the streaming API's documentation, verbatim where whole,
// completed where they are fragments, against the loopback server or a mock.
import ClientFixtures
import Foundation
import Sluice
import SluiceTesting
import Testing

private struct GetExport: Request {
    typealias ResponseObject = Data
    let id: Int

    func build() throws -> URLRequest {
        URLRequest(url: exportBase.appendingPathComponent("exports/\(id)"))
    }
}

private struct TailLog: Request {
    typealias ResponseObject = Data
    let service: String

    func build() throws -> URLRequest {
        URLRequest(url: exportBase.appendingPathComponent("logs/\(service)"))
    }
}

private struct ExportAudit: Request {
    typealias ResponseObject = Data

    func build() throws -> URLRequest {
        URLRequest(url: exportBase.appendingPathComponent("audit"))
    }
}

private struct AuditEntry: Decodable, Sendable {
    let action: String
}

private struct PriceFeed: Request {
    typealias ResponseObject = Data
    let symbol: String

    func build() throws -> URLRequest {
        URLRequest(url: exportBase.appendingPathComponent("prices/\(symbol)"))
    }
}

/// Where the snippets' requests go: the suite's loopback server.
nonisolated(unsafe) private var exportBase = URL(fileURLWithPath: "/")

private struct CannedStreamPerformer: RequestPerformer {
    let pieces: [String]

    func perform(_ request: URLRequest) async throws -> HTTPResponse {
        try await stream(request).collect(upTo: 1 << 20)
    }

    func stream(_ request: URLRequest) async throws -> HTTPResponse.Streamed {
        let (body, writer) = HTTPBody.makeStream(expectedLength: nil)
        for piece in pieces {
            writer.write(Data(piece.utf8))
        }
        writer.finish()
        return HTTPResponse.Streamed(status: .ok, headers: [.contentType: "text/plain"], body: body)
    }
}

/// A performer whose streamed answer is one message and the trailer `grpc-status: 0`, as a gRPC server's.
private struct TrailingStreamPerformer: RequestPerformer {
    func perform(_ request: URLRequest) async throws -> HTTPResponse {
        try await stream(request).collect(upTo: 1 << 20)
    }

    func stream(_ request: URLRequest) async throws -> HTTPResponse.Streamed {
        let (body, writer) = HTTPBody.makeStream(expectedLength: nil)
        writer.write(Data("message".utf8))
        writer.finish(trailers: ["grpc-status": "0"])
        return HTTPResponse.Streamed(status: .ok, body: body)
    }
}

@Suite(.serialized) struct StreamedResponsesSnippetsTests {
    let server: LoopbackServer
    let client = APIClient()

    init() throws {
        server = try LoopbackServer()
        exportBase = server.url("/")
        server.route(
            "/exports/7",
            response: LoopbackServer.Response.text("0123456789").injecting(.chunked(chunkSize: 3))
        )
        server.route(
            "/logs/api",
            response: LoopbackServer.Response.text("started\nready\n").injecting(.chunked(chunkSize: 4))
        )
        server.route(
            "/audit",
            response: LoopbackServer.Response(
                headers: [.init("Content-Type", "application/x-ndjson")],
                body: Data("{\"action\":\"login\"}\n{\"action\":\"logout\"}\n".utf8)
            )
        )
        // The feed sends two events; a reconnection, which names the last event ID, is told there is nothing more.
        server.route("/prices/ACME") { request in
            guard request.header("Last-Event-ID") == nil else { return LoopbackServer.Response(status: 204) }
            return LoopbackServer.Response(
                headers: [.init("Content-Type", "text/event-stream")],
                body: Data("event: price\nid: 1\ndata: 41\n\ndata: 42\n\n".utf8)
            )
        }
    }

    @Test func streamingABody() async throws {
        var counted = 0
        let printed = try await SnippetOutput.collect {
            let response = try await client.stream(GetExport(id: 7))
            print(response.status, response.headers[.contentType] ?? "")
            var received = 0
            for try await chunk in response.body {
                received += chunk.count
            }
            counted = received
        }
        #expect(printed == ["200 OK text/plain; charset=utf-8"])
        #expect(counted == 10)
    }

    @Test func typedStreams() async throws {
        let printed = try await SnippetOutput.collect {
            for try await line in try await client.lines(TailLog(service: "api")) {
                print(line)
            }

            for try await entry in try await client.jsonLines(ExportAudit(), of: AuditEntry.self) {
                print(entry.action)
            }
        }
        #expect(printed == ["started", "ready", "login", "logout"])
    }

    @Test func serverSentEvents() async throws {
        let printed = try await SnippetOutput.collect {
            for try await event in try await client.events(PriceFeed(symbol: "ACME"), reconnecting: nil) {
                print(event.type, event.data)
            }
        }
        #expect(printed == ["price 41", "message 42"])
    }

    @Test func documentationOfServerSentEvent() async throws {
        let printed = try await SnippetOutput.collect {
            for try await event in try await client.events(PriceFeed(symbol: "ACME")) {
                if event.type == "price" {
                    print(event.data, event.lastEventID)
                }
            }
        }
        #expect(printed == ["41 1"])
        // ServerSentEvent.init(type:data:lastEventID:retry:)
        let event = ServerSentEvent(type: "price", data: "42.5", lastEventID: "7")
        #expect(event.encoded == "event: price\nid: 7\ndata: 42.5\n\n")
    }

    @Test func documentationOfStreamParseError() async throws {
        server.route(
            "/audit",
            response: LoopbackServer.Response(
                headers: [.init("Content-Type", "application/x-ndjson")],
                body: Data("{\"action\":\"login\"}\n\n{\"id\": 3,}\n".utf8)
            )
        )
        let printed = try await SnippetOutput.collect {
            do {
                for try await entry in try await client.jsonLines(ExportAudit(), of: AuditEntry.self) {
                    print(entry.action)
                }
            } catch let error as SluiceError {
                if let parseError = error.underlyingError as? StreamParseError {
                    print(parseError.line, parseError.code)
                }
            }
        }
        #expect(printed == ["login", "3 invalid JSON"])
        // The diagnostic the documentation shows.
        let error = await #expect(throws: SluiceError.self) {
            try await client.jsonLines(ExportAudit(), of: AuditEntry.self).collected()
        }
        #expect(
            (error?.underlyingError as? StreamParseError)?.description == """
                error: invalid JSON: expected a string key, found '}'
                  --> stream line 3, column 10
                   |
                 3 | {"id": 3,}
                   |          ^
                """
        )
    }

    @Test func aPerformerOfYourOwn() async throws {
        let client = APIClient(requestPerformer: CannedStreamPerformer(pieces: ["one\n", "tw", "o\n"]))
        var lines: [String] = []
        for try await line in try await client.lines(TailLog(service: "any")) {
            lines.append(line)
        }
        #expect(lines == ["one", "two"])
    }

    @Test func testingWithAMockStream() async throws {
        let clock = TestClock()
        let mock = MockClient()
        mock.stub(
            PriceFeed.self,
            .stream(
                .events([ServerSentEvent(data: "41"), ServerSentEvent(data: "42")], every: .seconds(1), clock: clock)
            )
        )
        let events = try await mock.events(PriceFeed(symbol: "ACME"), reconnecting: nil)
        var iterator = events.makeAsyncIterator()
        #expect(try await iterator.next()?.data == "41")
        await clock.waitForSleepers()
        clock.advance(by: .seconds(1))
        #expect(try await iterator.next()?.data == "42")
    }

    @Test func documentationOfTheStreamingAPI() async throws {
        let url = server.url("/exports/7")
        // HTTPBody
        do {
            let response = try await NetworkRequestPerformer().stream(URLRequest(url: url))
            var received = 0
            for try await chunk in response.body {
                received += chunk.count
            }
            #expect(received == 10)
        }
        // HTTPBody.makeStream(expectedLength:)
        do {
            let (body, writer) = HTTPBody.makeStream(expectedLength: nil)
            writer.write(Data("first ".utf8))
            writer.write(Data("and last".utf8))
            writer.finish()
            let text = String(decoding: try await body.collect(upTo: 1 << 20), as: UTF8.self)  // "first and last"
            #expect(text == "first and last")
        }
        // HTTPResponse.Streamed
        var streamed = 0
        let printed = try await SnippetOutput.collect {
            let response = try await NetworkRequestPerformer().stream(URLRequest(url: server.url("/logs/api")))
            print(response.status)  // 200 OK, before the body
            var received = 0
            for try await chunk in response.body {
                received += chunk.count
            }
            streamed = received
        }
        #expect(printed == ["200 OK"])
        #expect(streamed == 14)
        // APIClient.stream(_:)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-export-\(UUID().uuidString)")
        #expect(FileManager.default.createFile(atPath: file.path, contents: nil))
        defer { try? FileManager.default.removeItem(at: file) }
        let output = try FileHandle(forWritingTo: file)
        let response = try await client.stream(GetExport(id: 7))
        for try await chunk in response.body {
            try output.write(contentsOf: chunk)
        }
        try output.close()
        #expect(try Data(contentsOf: file) == Data("0123456789".utf8))
        // StubPerformer(streaming:)
        let stub = StubPerformer(
            streaming: MockClient.StreamScript(parts: [.text("one\n"), .pause(.milliseconds(5)), .text("two\n")])
        )
        let lines = try await APIClient(requestPerformer: stub).lines(TailLog(service: "x"))
        var read: [String] = []
        for try await line in lines {
            read.append(line)
        }
        #expect(read == ["one", "two"])
        // MockClient.StreamScript
        let mock = MockClient()
        let feed = MockClient.StreamScript.events(
            [ServerSentEvent(data: "first"), ServerSentEvent(type: "done", data: "")],
            every: .milliseconds(10)
        )
        mock.stub(PriceFeed.self, .stream(feed))
        var types: [String] = []
        for try await event in try await mock.events(PriceFeed(symbol: "X"), reconnecting: nil) {
            types.append(event.type)
        }
        #expect(types == ["message", "done"])
    }

    /// `HTTPResponse.Streamed.trailers`.
    @Test func trailersAfterAStreamedBody() async throws {
        let performer = TrailingStreamPerformer()
        let call = URLRequest(url: exportBase.appendingPathComponent("sluice.Echo/Say"))
        let printed = try await SnippetOutput.collect {
            let response = try await performer.stream(call)
            for try await message in response.body {
                print(message.count)
            }
            print(response.trailers["grpc-status"] ?? "none")  // 0
        }
        #expect(printed == ["7", "0"])
    }
}

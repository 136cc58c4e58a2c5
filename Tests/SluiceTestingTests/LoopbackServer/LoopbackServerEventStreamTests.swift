import ClientFixtures
import Foundation
import SluiceCore
import SluiceTesting
import Testing

// URLSession lives in FoundationNetworking on Linux; Apple platforms ship it inside Foundation.
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Server-sent events: the `text/event-stream` format, one chunk per event, and what a reconnecting client sends.
@Suite("LoopbackServer: server-sent events")
struct LoopbackServerEventStreamTests {
    @Test func eventsGoOneChunkEachWithTheirFields() throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route(
            "GET",
            "/events",
            response: .serverSentEvents([
                LoopbackServer.Response.SentEvent(event: "greeting", data: "hello\nworld", id: "1", retry: 1_500),
                LoopbackServer.Response.SentEvent(data: "two\r\nlines", id: "2"),
                LoopbackServer.Response.SentEvent(data: ""),
            ])
        )
        let client = try RawClient(port: server.port)

        try client.send("GET /events HTTP/1.1\r\nHost: test\r\nAccept: text/event-stream\r\n\r\n")
        let response = try client.readResponse()

        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "text/event-stream")
        #expect(response.header("Cache-Control") == "no-cache")
        #expect(response.header("Transfer-Encoding") == "chunked")
        #expect(response.chunkCount == 3)
        #expect(
            response.bodyText
                == "event: greeting\nid: 1\nretry: 1500\ndata: hello\ndata: world\n\n"
                + "id: 2\ndata: two\ndata: lines\n\n"
                + "data: \n\n"
        )
    }

    @Test func serializedEventKeepsEachFieldOnOneLine() {
        let event = LoopbackServer.Response.SentEvent(event: "a\nb", data: "x\ry", id: "1\r\n2")

        #expect(event.serialized == "event: a b\nid: 1 2\ndata: x\ndata: y\n\n")
        #expect(LoopbackServer.Response.SentEvent().serialized == "\n")
    }

    @Test func anEventArrivesBeforeTheNextIsDue() throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route(
            "/events",
            response: .serverSentEvents([
                LoopbackServer.Response.SentEvent(data: "first", id: "1"),
                LoopbackServer.Response.SentEvent(data: "much later", id: "2", after: .seconds(600)),
            ])
        )
        let client = try RawClient(port: server.port)

        try client.send("GET /events HTTP/1.1\r\nHost: test\r\n\r\n")
        _ = try client.readHead()
        let first = try client.readChunk()

        #expect(first.map { String(decoding: $0, as: UTF8.self) } == "id: 1\ndata: first\n\n")
    }

    @Test func sluiceReadsTheEventsBackAsSent() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route(
            "/events",
            response: .serverSentEvents([
                LoopbackServer.Response.SentEvent(event: "price", data: "42.5", id: "7", retry: 2_000),
                LoopbackServer.Response.SentEvent(data: "two\nlines"),
            ])
        )
        let response = try await NetworkRequestPerformer().perform(URLRequest(url: server.url("/events")))
        let (chunks, input) = AsyncStream.makeStream(of: Data.self)
        input.yield(response.body)
        input.finish()

        var events: [ServerSentEvent] = []
        for try await event in chunks.decodingServerSentEvents() {
            events.append(event)
        }

        #expect(events.map(\.type) == ["price", "message"])
        #expect(events.map(\.data) == ["42.5", "two\nlines"])
        #expect(events.map(\.lastEventID) == ["7", "7"])
        #expect(events.first?.retry == .seconds(2))
    }

    @Test func aReconnectingClientsLastEventIDIsRecorded() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/events") { request in
            let next = Int(request.header("Last-Event-ID") ?? "0").map { $0 + 1 } ?? 1
            return .serverSentEvents([LoopbackServer.Response.SentEvent(data: "event \(next)", id: String(next))])
        }
        var request = URLRequest(url: server.url("/events"))
        request.setValue("41", forHTTPHeaderField: "Last-Event-ID")

        let (data, _) = try await makeSession().data(for: request)

        #expect(String(decoding: data, as: UTF8.self) == "id: 42\ndata: event 42\n\n")
        #expect(server.receivedRequests.map { $0.header("Last-Event-ID") } == ["41"])
    }
}

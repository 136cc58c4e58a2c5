import ClientFixtures
import Foundation
import SluiceTesting
import Testing

// URLSession lives in FoundationNetworking on Linux; Apple platforms ship it inside Foundation.
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Keep-alive, connection close, concurrency, and stopping a server with work in flight.
@Suite("LoopbackServer: connections")
struct LoopbackServerConnectionTests {
    @Test func keepAliveServesSeveralRequestsOnOneConnection() throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/n") { request in .text(request.query ?? "") }
        let client = try RawClient(port: server.port)

        try client.send("GET /n?1 HTTP/1.1\r\nHost: test\r\n\r\n")
        let first = try client.readResponse()
        try client.send("GET /n?2 HTTP/1.1\r\nHost: test\r\n\r\n")
        let second = try client.readResponse()
        // Pipelined: three requests in one write, answered in order.
        try client.send("GET /n?3 HTTP/1.1\r\n\r\nGET /n?4 HTTP/1.1\r\n\r\nGET /n?5 HTTP/1.1\r\n\r\n")
        let pipelined = try (0..<3).map { _ in try client.readResponse().bodyText }

        #expect(first.bodyText == "1")
        #expect(first.header("Connection") == nil)
        #expect(second.bodyText == "2")
        #expect(pipelined == ["3", "4", "5"])
        #expect(server.acceptedConnections == 1)
        #expect(server.receivedRequests.count == 5)
    }

    @Test func clientConnectionCloseIsHonoured() throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/bye", response: .text("bye"))
        let client = try RawClient(port: server.port)

        try client.send("GET /bye HTTP/1.1\r\nConnection: close\r\n\r\n")
        let response = try client.readResponse()

        #expect(response.bodyText == "bye")
        #expect(response.header("Connection") == "close")
        #expect(client.readToEnd().isEmpty, "the server closes after the response")
    }

    @Test func http10ClosesUnlessKeepAliveIsAsked() throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/old", response: .text("old"))

        let plain = try RawClient(port: server.port)
        try plain.send("GET /old HTTP/1.0\r\n\r\n")
        let closing = try plain.readResponse()
        #expect(closing.bodyText == "old")
        #expect(closing.header("Connection") == "close")
        #expect(plain.readToEnd().isEmpty)

        let keepAlive = try RawClient(port: server.port)
        try keepAlive.send("GET /old HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        let kept = try keepAlive.readResponse()
        try keepAlive.send("GET /old HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        let again = try keepAlive.readResponse()
        #expect(kept.header("Connection") == "keep-alive")
        #expect(again.bodyText == "old")
        #expect(server.acceptedConnections == 2)
    }

    @Test func headResponseHasHeadersButNoBody() throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/doc", response: .text("twelve bytes"))
        let client = try RawClient(port: server.port)

        try client.send("HEAD /doc HTTP/1.1\r\n\r\n")
        let head = try client.readResponse(toHeadRequest: true)
        try client.send("GET /doc HTTP/1.1\r\n\r\n")
        let get = try client.readResponse()

        #expect(head.status == 200)
        #expect(head.header("Content-Length") == "12")
        #expect(head.body.isEmpty)
        #expect(get.bodyText == "twelve bytes", "no stray body bytes were left on the connection")
    }

    @Test func twoHundredConcurrentConnectionsAreAllAnswered() throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/id") { request in .text(request.query ?? "") }

        // A long read timeout: 200 connections served side by side may wait on a machine loaded by other tests.
        let clients = try (0..<200).map { _ in try RawClient(port: server.port, timeout: 60) }
        for (index, client) in clients.enumerated() {
            try client.send("GET /id?\(index) HTTP/1.1\r\nHost: test\r\n\r\n")
        }
        let bodies = try clients.map { try $0.readResponse().bodyText }

        #expect(bodies == (0..<200).map(String.init))
        #expect(server.acceptedConnections == 200)
        #expect(server.openConnections == 200, "every connection is still open, served side by side")
    }

    @Test func twoHundredConcurrentURLSessionRequestsAreAllAnswered() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/id") { request in .json(#"{"id":"\#(request.query ?? "")"}"#) }
        let session = makeSession(maximumConnections: 200)

        let answered = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<200 {
                group.addTask {
                    let (data, _) = try await session.data(from: server.url("/id?\(index)"))
                    return String(decoding: data, as: UTF8.self) == #"{"id":"\#(index)"}"#
                }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }

        #expect(answered == 200)
        #expect(server.receivedRequests.count == 200)
    }

    @Test func stopWhileDelayedResponseIsPendingReturnsPromptly() throws {
        let server = try LoopbackServer()
        let routed = Signal("the request routed, its delay next")
        server.route("/slow") { _ in
            routed.fire()
            return .text("too late").delayed(by: .seconds(30))
        }
        let client = try RawClient(port: server.port)
        try client.send("GET /slow HTTP/1.1\r\n\r\n")
        try routed.block()
        #expect(server.receivedRequests.count == 1)

        // Had stop() waited out the 30-second delay, the response would have been sent before it returned.
        server.stop()
        #expect(client.readToEnd().isEmpty, "stop() cut the delay short: nothing was sent after stopping")
        #expect(server.openConnections == 0)
    }

    @Test func stopIsIdempotentAndClosesThePort() throws {
        let server = try LoopbackServer()
        server.route("/", response: .text("up"))
        try expectServerStillAnswers(server, path: "/")

        server.stop()
        server.stop()

        #expect(throws: RawClientError.self) { try RawClient(port: server.port) }
        #expect(server.receivedRequests.count == 1, "the log survives stopping")
    }

    @Test func stopInterruptsSlowDrip() throws {
        let server = try LoopbackServer()
        server.route("/drip", response: .text("slow").injecting(.drip(bytes: 1, every: .seconds(10))))
        let client = try RawClient(port: server.port)
        try client.send("GET /drip HTTP/1.1\r\n\r\n")
        // The drip's first byte has arrived: the server is in its first 10-second pause.
        let first = try client.readBytes(1)

        let clock = ContinuousClock()
        let start = clock.now
        server.stop()

        #expect(clock.now - start < .seconds(8), "stop() cut the 10-second drip short")
        #expect(String(decoding: first + client.readToEnd(), as: UTF8.self) == "H")
    }
}

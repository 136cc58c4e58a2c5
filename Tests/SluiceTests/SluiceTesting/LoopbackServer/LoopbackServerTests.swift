import Foundation
import SluiceTesting
import TestSupport
import Testing

// URLSession lives in FoundationNetworking on Linux; Apple platforms ship it inside Foundation.
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Raw sockets come from the C library: Darwin on Apple platforms, Glibc on Linux.
#if canImport(Darwin)
import Darwin
#else
import Glibc
#endif

@Suite("LoopbackServer")
struct LoopbackServerTests {
    // MARK: - Routes

    @Test func routeServesStatusHeadersAndBody() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route(
            "GET",
            "/users",
            response: LoopbackResponse(
                status: 201,
                headers: [LoopbackHeader("X-Custom", "yes"), LoopbackHeader("Content-Type", "application/json")],
                body: Data(#"{"id":1}"#.utf8)
            )
        )

        let (data, response) = try await makeSession().data(from: server.url("/users"))
        let http = try #require(response as? HTTPURLResponse)

        #expect(http.statusCode == 201)
        #expect(http.value(forHTTPHeaderField: "X-Custom") == "yes")
        #expect(http.value(forHTTPHeaderField: "Content-Type") == "application/json")
        #expect(http.value(forHTTPHeaderField: "Content-Length") == "8")
        #expect(String(decoding: data, as: UTF8.self) == #"{"id":1}"#)
    }

    @Test func unmatchedRequestGets404NamingMethodAndPath() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("GET", "/present", response: .text("here"))

        let (data, response) = try await makeSession().data(from: server.url("/missing?x=1"))
        let http = try #require(response as? HTTPURLResponse)

        #expect(http.statusCode == 404)
        #expect(http.value(forHTTPHeaderField: "Content-Type") == "text/plain")
        #expect(String(decoding: data, as: UTF8.self) == "no route for GET /missing")
    }

    @Test func routeMatchingPrefersSpecificRoutesAndReplacesDuplicates() throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/files/*", response: .text("any prefix"))
        server.route("/files/special/*", response: .text("longer prefix"))
        server.route("/files/exact", response: .text("exact"))
        server.route("GET", "/files/exact", response: .text("exact GET"))
        server.route("GET", "/items", response: .text("first"))
        server.route("GET", "/items", response: .text("replacement"))
        server.route("/echo-method") { request in .text(request.method) }
        let client = try RawClient(port: server.port)

        let cases: [(method: String, path: String, status: Int, body: String)] = [
            ("GET", "/files/a/b", 200, "any prefix"),
            ("GET", "/files/special/x", 200, "longer prefix"),
            ("POST", "/files/exact", 200, "exact"),
            ("GET", "/files/exact", 200, "exact GET"),
            ("GET", "/files", 404, "no route for GET /files"),
            ("GET", "/items?page=1", 200, "replacement"),
            ("DELETE", "/items", 404, "no route for DELETE /items"),
            ("PATCH", "/echo-method", 200, "PATCH"),
        ]
        for testCase in cases {
            try client.send("\(testCase.method) \(testCase.path) HTTP/1.1\r\nHost: test\r\n\r\n")
            let response = try client.readResponse()
            #expect(response.status == testCase.status, "\(testCase.method) \(testCase.path)")
            #expect(response.bodyText == testCase.body, "\(testCase.method) \(testCase.path)")
        }
        #expect(server.acceptedConnections == 1)
    }

    @Test func invalidResponseFromRouteBecomes500() throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/bad-status", response: LoopbackResponse(status: 42))
        server.route("/bad-header", response: .text("x").addingHeader("X-Evil", "a\r\nInjected: yes"))
        let client = try RawClient(port: server.port)

        try client.send("GET /bad-status HTTP/1.1\r\n\r\n")
        let badStatus = try client.readResponse()
        try client.send("GET /bad-header HTTP/1.1\r\n\r\n")
        let badHeader = try client.readResponse()

        #expect(badStatus.status == 500)
        #expect(badStatus.bodyText.contains("invalid status 42"))
        #expect(badHeader.status == 500)
        #expect(badHeader.header("Injected") == nil)
    }

    // MARK: - What the server sees

    @Test func serverSeesQueryItemsAndHeaders() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("GET", "/search", response: .text("ok"))
        var request = URLRequest(url: server.url("/search?page=2&q=hello%20world&flag"))
        request.setValue("abc-123", forHTTPHeaderField: "X-Request-ID")
        request.setValue("Bearer token", forHTTPHeaderField: "Authorization")

        _ = try await makeSession().data(for: request)
        let received = try #require(server.receivedRequests.first)

        #expect(server.receivedRequests.count == 1)
        #expect(received.method == "GET")
        #expect(received.target == "/search?page=2&q=hello%20world&flag")
        #expect(received.path == "/search")
        #expect(received.query == "page=2&q=hello%20world&flag")
        #expect(
            received.queryItems == [
                URLQueryItem(name: "page", value: "2"),
                URLQueryItem(name: "q", value: "hello world"),
                URLQueryItem(name: "flag", value: nil),
            ]
        )
        #expect(received.header("x-request-id") == "abc-123")
        #expect(received.header("AUTHORIZATION") == "Bearer token")
        #expect(received.header("X-Absent") == nil)
        #expect(received.body.isEmpty)
    }

    @Test func requestValueComputesPathQueryAndHeaders() {
        let request = LoopbackRequest(
            method: "GET",
            target: "http://example.com:8080/a%2Fb?x=1&x=2&y=%E2%9C%93",
            headers: [LoopbackHeader("Accept", "text/plain"), LoopbackHeader("accept", "application/json")],
            body: Data([0x68, 0x69, 0xFF])
        )

        #expect(request.path == "/a%2Fb")
        #expect(request.query == "x=1&x=2&y=%E2%9C%93")
        #expect(request.queryItems.map(\.value) == ["1", "2", "\u{2713}"])
        #expect(request.header("ACCEPT") == "text/plain")
        #expect(request.headerValues("Accept") == ["text/plain", "application/json"])
        #expect(request.bodyText == "hi\u{FFFD}")
        #expect(LoopbackRequest(method: "GET", target: "/plain").query == nil)
        #expect(LoopbackRequest(method: "GET", target: "/plain").queryItems.isEmpty)
    }

    @Test func urlHelperJoinsBaseURLAndPath() throws {
        let server = try LoopbackServer()
        defer { server.stop() }

        #expect(server.port > 0)
        #expect(server.baseURL.absoluteString == "http://127.0.0.1:\(server.port)")
        #expect(server.url("/users?page=2").absoluteString == "http://127.0.0.1:\(server.port)/users?page=2")
        #expect(server.url("users").absoluteString == "http://127.0.0.1:\(server.port)/users")
        #expect(server.url("/a b").absoluteString == "http://127.0.0.1:\(server.port)/a%20b")
    }

    // MARK: - Request bodies

    @Test func smallPostBodyArrives() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("POST", "/echo") { request in LoopbackResponse(body: request.body) }
        var request = URLRequest(url: server.url("/echo"))
        request.httpMethod = "POST"
        request.httpBody = Data("name=sluice".utf8)

        let (data, _) = try await makeSession().data(for: request)

        #expect(String(decoding: data, as: UTF8.self) == "name=sluice")
        #expect(server.receivedRequests.first?.bodyText == "name=sluice")
        #expect(server.receivedRequests.first?.header("Content-Length") == "11")
    }

    @Test func largePostBodyArrivesIntact() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("POST", "/upload") { request in .text(String(request.body.count)) }
        let payload = Data((0..<(2 * 1024 * 1024)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 11) })
        var request = URLRequest(url: server.url("/upload"))
        request.httpMethod = "POST"
        request.httpBody = payload
        // libcurl asks for 100-continue on large bodies only in some versions; ask explicitly so the path is covered.
        request.setValue("100-continue", forHTTPHeaderField: "Expect")

        let (data, response) = try await makeSession().data(for: request)

        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: data, as: UTF8.self) == String(payload.count))
        #expect(server.receivedRequests.first?.body == payload)
        #expect(server.receivedRequests.first?.header("Expect") == "100-continue")
    }

    @Test func expectContinueGetsInterimResponseBeforeBody() throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("PUT", "/doc") { request in LoopbackResponse(body: request.body) }
        let client = try RawClient(port: server.port)

        try client.send("PUT /doc HTTP/1.1\r\nHost: test\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n")
        let interim = try client.readResponse()
        try client.send("hello")
        let final = try client.readResponse()

        #expect(interim.status == 100)
        #expect(final.status == 200)
        #expect(final.bodyText == "hello")
        #expect(server.receivedRequests.first?.header("Expect") == "100-continue")
    }

    @Test func chunkedRequestBodyIsDecoded() throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("POST", "/chunks") { request in LoopbackResponse(body: request.body) }
        let client = try RawClient(port: server.port)

        try client.send(
            "POST /chunks HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "5\r\nhello\r\n6;name=value\r\n world\r\nA\r\n, chunked!\r\n0\r\nX-Trailer: ignored\r\n\r\n"
        )
        let response = try client.readResponse()
        try client.send("GET /after HTTP/1.1\r\n\r\n")
        let next = try client.readResponse()

        #expect(response.bodyText == "hello world, chunked!")
        #expect(server.receivedRequests.first?.bodyText == "hello world, chunked!")
        #expect(next.status == 404, "the stream stays in step after the trailer")
    }

    @Test func oversizeBodyGets413() throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/upload", response: .text("never"))
        let client = try RawClient(port: server.port)

        try client.send("POST /upload HTTP/1.1\r\nContent-Length: 100000000\r\n\r\n")
        let response = try client.readResponse()

        #expect(response.status == 413)
        #expect(response.header("Connection") == "close")
        #expect(client.readToEnd().isEmpty)
        #expect(server.receivedRequests.isEmpty)
    }

    // MARK: - Connections

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

    // MARK: - Faults

    @Test func closeWithoutResponseFailsTheRequest() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/gone", response: .text("unsent").injecting(.closeWithoutResponse))

        await #expect(throws: (any Error).self) {
            _ = try await makeSession().data(from: server.url("/gone"))
        }
        #expect(server.receivedRequests.first?.path == "/gone")

        let client = try RawClient(port: server.port)
        try client.send("GET /gone HTTP/1.1\r\n\r\n")
        #expect(client.readToEnd().isEmpty)
    }

    @Test func closeMidBodyFailsTheRequest() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/partial", response: .text("0123456789").injecting(.closeMidBody(afterBytes: 3)))

        await #expect(throws: (any Error).self) {
            _ = try await makeSession().data(from: server.url("/partial"))
        }

        let client = try RawClient(port: server.port)
        try client.send("GET /partial HTTP/1.1\r\n\r\n")
        let raw = String(decoding: client.readToEnd(), as: UTF8.self)
        #expect(raw.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(raw.contains("Content-Length: 10\r\n"))
        #expect(raw.hasSuffix("\r\n\r\n012"))
    }

    @Test func resetConnectionFailsTheRequest() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/reset", response: .text("unsent").injecting(.resetConnection))

        await #expect(throws: (any Error).self) {
            _ = try await makeSession().data(from: server.url("/reset"))
        }

        let client = try RawClient(port: server.port)
        try client.send("GET /reset HTTP/1.1\r\n\r\n")
        let outcome = client.readOnce()
        #expect(outcome == .failed(ECONNRESET) || outcome == .endOfStream)
    }

    @Test func chunkedFaultDeliversBodyIntact() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let text = String(repeating: "chunk me please ", count: 40)
        server.route("/chunked", response: .text(text).injecting(.chunked(chunkSize: 7)))

        let (data, response) = try await makeSession().data(from: server.url("/chunked"))
        #expect(String(decoding: data, as: UTF8.self) == text)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)

        let client = try RawClient(port: server.port)
        try client.send("GET /chunked HTTP/1.1\r\n\r\n")
        let raw = try client.readResponse()
        #expect(raw.header("Transfer-Encoding") == "chunked")
        #expect(raw.header("Content-Length") == nil)
        #expect(raw.chunkCount == (text.utf8.count + 6) / 7)
        #expect(raw.bodyText == text)
    }

    @Test func dripDeliversBodyIntactAndTakesAtLeastThePauses() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let body = String(repeating: "drip", count: 10)  // 40 bytes: at least 5 sends, so at least 4 pauses.
        let interval = Duration.milliseconds(40)
        server.route("/drip", response: .text(body).injecting(.drip(bytes: 8, every: interval)))

        let clock = ContinuousClock()
        let start = clock.now
        let (data, _) = try await makeSession().data(from: server.url("/drip"))
        let elapsed = clock.now - start

        #expect(String(decoding: data, as: UTF8.self) == body)
        #expect(elapsed >= interval * 4)
    }

    @Test func delayedResponseArrivesAfterTheDelay() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/late", response: .text("late").delayed(by: .milliseconds(200)))

        let clock = ContinuousClock()
        let start = clock.now
        let (data, _) = try await makeSession().data(from: server.url("/late"))

        #expect(clock.now - start >= .milliseconds(200))
        #expect(String(decoding: data, as: UTF8.self) == "late")
    }

    // MARK: - Bad input and limits

    @Test(arguments: [
        ("garbage\r\n\r\n", 400),
        ("GET /\r\n\r\n", 400),
        ("GET  / HTTP/1.1\r\n\r\n", 400),
        ("G(T / HTTP/1.1\r\n\r\n", 400),
        ("GET / HTTP/1.x\r\n\r\n", 400),
        ("GET / HTTP/2.0\r\n\r\n", 505),
        ("GET / HTTP/1.1\r\nNo colon here\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nBad Name: x\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nName : x\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nX: a\r\n folded\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nX: a\u{1}b\r\n\r\n", 400),
        ("POST / HTTP/1.1\r\nContent-Length: abc\r\n\r\n", 400),
        ("POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", 400),
        ("POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n", 400),
        ("POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n", 400),
        ("POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 501),
        ("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400),
        ("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcdef\r\n", 400),
        ("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFFFF\r\n", 413),
        ("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", 400),
        ("POST / HTTP/1.1\r\nContent-Length: 3\r\nExpect: teapot\r\n\r\n", 417),
        ("GET / HTTP/1.1\r\nHost: x\r\n", 400),
        ("GET /\u{0}x HTTP/1.1\r\n\r\n", 400),
    ])
    func malformedRequestIsRefusedAndConnectionClosed(input: String, status: Int) throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/*", response: .text("fine"))
        let client = try RawClient(port: server.port)

        try client.send(input)
        client.shutdownWriting()
        let response = try client.readResponse()

        #expect(response.status == status)
        #expect(response.header("Connection") == "close")
        #expect(client.readToEnd().isEmpty)
        #expect(server.receivedRequests.isEmpty)
        try expectServerStillAnswers(server)
    }

    @Test func oversizeHeaderGets431() throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/*", response: .text("fine"))
        let client = try RawClient(port: server.port)

        try client.send("GET / HTTP/1.1\r\nX-Big: " + String(repeating: "a", count: 70 * 1024) + "\r\n\r\n")
        let response = try client.readResponse()

        #expect(response.status == 431)
        #expect(response.header("Connection") == "close")
        try expectServerStillAnswers(server)
    }

    @Test func randomInputNeverCrashesTheServer() throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/*", response: .text("fine"))
        var generator = SplitMix64(seed: 0x5EED)
        let fragments = [
            "GET ", "POST ", "/", "/x?y=1", " HTTP/1.1", " HTTP/1.0", "\r\n", "\n", "\r", ":", " ", "\t",
            "Content-Length: ", "Transfer-Encoding: chunked", "Expect: 100-continue", "0", "5", "ff", ";",
            "Connection: close", "\u{0}", "\u{7F}", "\u{FF}", "\u{2713}",
        ]

        for _ in 0..<150 {
            var input: [UInt8] = []
            for _ in 0..<Int(generator.next() % 40) {
                if generator.next() % 4 == 0 {
                    input.append(UInt8(truncatingIfNeeded: generator.next()))
                } else {
                    input += Array(fragments[Int(generator.next() % UInt64(fragments.count))].utf8)
                }
            }
            let client = try RawClient(port: server.port)
            try client.send(input)
            client.shutdownWriting()
            let reply = client.readToEnd()
            #expect(reply.isEmpty || reply.starts(with: Array("HTTP/1.1 ".utf8)))
        }

        try expectServerStillAnswers(server)
    }

    // MARK: - Stopping

    @Test func stopWhileDelayedResponseIsPendingReturnsPromptly() throws {
        let server = try LoopbackServer()
        server.route("/slow", response: .text("too late").delayed(by: .seconds(30)))
        let client = try RawClient(port: server.port)
        try client.send("GET /slow HTTP/1.1\r\n\r\n")
        try waitUntil { server.receivedRequests.count == 1 }

        let clock = ContinuousClock()
        let start = clock.now
        server.stop()
        let elapsed = clock.now - start

        #expect(elapsed < .seconds(5), "stop() cut the 30-second delay short")
        #expect(client.readToEnd().isEmpty, "nothing was sent after stopping")
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
        try waitUntil { server.receivedRequests.count == 1 }

        let clock = ContinuousClock()
        let start = clock.now
        server.stop()

        #expect(clock.now - start < .seconds(5))
        #expect(String(decoding: client.readToEnd(), as: UTF8.self) == "H")
    }

    // MARK: - Helpers

    /// A fresh session per test, so that no connection is reused between tests, with timeouts that fail fast.
    private func makeSession(maximumConnections: Int = 6) -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 15
        configuration.timeoutIntervalForResource = 30
        configuration.httpMaximumConnectionsPerHost = maximumConnections
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        return URLSession(configuration: configuration)
    }

    /// Checks over a new raw connection that the server still answers normally.
    private func expectServerStillAnswers(_ server: LoopbackServer, path: String = "/check") throws {
        let client = try RawClient(port: server.port)
        try client.send("GET \(path) HTTP/1.1\r\nHost: test\r\n\r\n")
        #expect(try client.readResponse().status == 200)
    }

    /// Polls `condition` until it holds, failing after 10 seconds.
    private func waitUntil(_ condition: () -> Bool) throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while !condition() {
            guard ContinuousClock.now < deadline else {
                throw RawClientError("condition not met within 10 seconds")
            }
            usleep(2_000)
        }
    }
}

// MARK: - Raw socket client

/// An error from the raw test client.
private struct RawClientError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}

/// A response as the raw client read it.
private struct RawResponse {
    var status = 0
    var headers: [(name: String, value: String)] = []
    var body: [UInt8] = []
    var chunkCount = 0

    var bodyText: String {
        String(decoding: body, as: UTF8.self)
    }

    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}

/// What one `recv` returned.
private enum ReadOutcome: Equatable {
    case bytes(Int)
    case endOfStream
    case failed(Int32)
}

/// A blocking HTTP/1.1 client on a plain socket, for what URLSession cannot express.
///
/// Every read and write times out after 10 seconds, so a broken server fails the test instead of hanging it.
private final class RawClient {
    private let descriptor: Int32
    private var buffer: [UInt8] = []

    /// Connects to the server; a read or write that waits longer than `timeout` seconds fails.
    init(port: Int, timeout seconds: Int = 10) throws {
        // Darwin declares SOCK_STREAM as an Int32; Glibc imports it as a member of the __socket_type enum.
        #if canImport(Darwin)
        descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #else
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        guard descriptor >= 0 else {
            throw RawClientError("socket failed: errno \(errno)")
        }
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        let size = socklen_t(MemoryLayout<timeval>.size)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, size)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, size)
        // Darwin has no MSG_NOSIGNAL, so SIGPIPE is suppressed per socket instead.
        #if canImport(Darwin)
        var one: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
        var address = sockaddr_in()
        // Only BSD-derived systems have (and want) the sin_len field.
        #if canImport(Darwin)
        address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port)).bigEndian
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        let result = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let code = errno
            close(descriptor)
            throw RawClientError("connect failed: errno \(code)")
        }
    }

    deinit {
        close(descriptor)
    }

    func send(_ text: String) throws {
        try send(Array(text.utf8))
    }

    func send(_ bytes: [UInt8]) throws {
        // Linux suppresses SIGPIPE per call; Darwin does it with SO_NOSIGPIPE, set in init.
        #if canImport(Darwin)
        let flags: Int32 = 0
        #else
        let flags = Int32(MSG_NOSIGNAL)
        #endif
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { sendToSocket(descriptor, $0, flags) }
            if sent < 0 && errno == EINTR {
                continue
            }
            guard sent > 0 else {
                throw RawClientError("send failed: errno \(errno)")
            }
            offset += sent
        }
    }

    func shutdownWriting() {
        _ = shutdown(descriptor, Int32(SHUT_WR))
    }

    /// Reads once into the buffer.
    func readOnce() -> ReadOutcome {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                buffer += chunk[..<count]
                return .bytes(count)
            }
            if count == 0 {
                return .endOfStream
            }
            if errno != EINTR {
                return .failed(errno)
            }
        }
    }

    /// Every byte until the server closes (or an error or the timeout), including anything already buffered.
    func readToEnd() -> [UInt8] {
        while case .bytes = readOnce() {}
        defer { buffer.removeAll() }
        return buffer
    }

    /// Reads one response, de-chunking its body.
    func readResponse(toHeadRequest: Bool = false) throws -> RawResponse {
        var response = RawResponse()
        let statusLine = try readLine()
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0] == "HTTP/1.1", let status = Int(parts[1]) else {
            throw RawClientError("bad status line: \(statusLine.debugDescription)")
        }
        response.status = status
        while true {
            let line = try readLine()
            if line.isEmpty {
                break
            }
            let pair = line.split(separator: ":", maxSplits: 1)
            guard pair.count == 2 else {
                throw RawClientError("bad header line: \(line.debugDescription)")
            }
            response.headers.append((String(pair[0]), pair[1].trimmingCharacters(in: .whitespaces)))
        }
        if toHeadRequest || (100..<200).contains(status) || status == 204 || status == 304 {
            return response
        }
        if response.header("Transfer-Encoding") == "chunked" {
            while true {
                guard let size = Int(try readLine(), radix: 16) else {
                    throw RawClientError("bad chunk size")
                }
                if size == 0 {
                    _ = try readLine()
                    return response
                }
                response.body += try readBytes(size)
                response.chunkCount += 1
                _ = try readLine()
            }
        }
        if let length = response.header("Content-Length").flatMap({ Int($0) }) {
            response.body = try readBytes(length)
        } else {
            response.body = readToEnd()
        }
        return response
    }

    private func readLine() throws -> String {
        while true {
            if let index = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<index], as: UTF8.self)
                buffer.removeFirst(index + 1)
                return line.hasSuffix("\r") ? String(line.dropLast()) : line
            }
            switch readOnce() {
            case .bytes:
                continue
            case .endOfStream:
                throw RawClientError("connection ended before a full line")
            case .failed(let code) where code == EAGAIN || code == EWOULDBLOCK:
                throw RawClientError("no full line within the read timeout")
            case .failed(let code):
                throw RawClientError("connection failed before a full line: errno \(code)")
            }
        }
    }

    private func readBytes(_ count: Int) throws -> [UInt8] {
        while buffer.count < count {
            guard case .bytes = readOnce() else {
                throw RawClientError("connection ended before \(count) body bytes")
            }
        }
        defer { buffer.removeFirst(count) }
        return Array(buffer[..<count])
    }
}

/// Calls the C library's `send`, which the client's own `send` method would shadow.
private func sendToSocket(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, _ flags: Int32) -> Int {
    send(descriptor, bytes.baseAddress, bytes.count, flags)
}

import ClientFixtures
import Foundation
import SluiceCore
import SluiceTesting
import Testing

// URLSession lives in FoundationNetworking on Linux; Apple platforms ship it inside Foundation.
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How the loopback server matches routes, and what it records of the requests it serves.
@Suite("LoopbackServer: routes")
struct LoopbackServerRoutingTests {
    @Test func routeServesStatusHeadersAndBody() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route(
            "GET",
            "/users",
            response: LoopbackServer.Response(
                status: 201,
                headers: [.init("X-Custom", "yes"), HTTPHeaders.Field("Content-Type", "application/json")],
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
        server.route("/bad-status", response: LoopbackServer.Response(status: 42))
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
        let request = LoopbackServer.Request(
            method: "GET",
            target: "http://example.com:8080/a%2Fb?x=1&x=2&y=%E2%9C%93",
            headers: [.init("Accept", "text/plain"), HTTPHeaders.Field("accept", "application/json")],
            body: Data([0x68, 0x69, 0xFF])
        )

        #expect(request.path == "/a%2Fb")
        #expect(request.query == "x=1&x=2&y=%E2%9C%93")
        #expect(request.queryItems.map(\.value) == ["1", "2", "\u{2713}"])
        #expect(request.header("ACCEPT") == "text/plain")
        #expect(request.headerValues("Accept") == ["text/plain", "application/json"])
        #expect(request.bodyText == "hi\u{FFFD}")
        #expect(LoopbackServer.Request(method: "GET", target: "/plain").query == nil)
        #expect(LoopbackServer.Request(method: "GET", target: "/plain").queryItems.isEmpty)
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
}

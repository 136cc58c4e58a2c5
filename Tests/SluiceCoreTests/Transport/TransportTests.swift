import ClientFixtures
import Foundation
import SluiceCore
import SluiceEndpoints
import SluiceTesting
import SluiceTransport
import Testing

/// Both transports against the loopback server: real HTTP over a real socket, each test once per transport.
@Suite struct TransportTests {
    let server: LoopbackServer

    init() throws {
        server = try LoopbackServer()
        server.route("/echo") { request in
            LoopbackServer.Response(
                status: 200,
                headers: [
                    HTTPHeaders.Field("X-Method", request.method),
                    HTTPHeaders.Field("Content-Type", "application/octet-stream"),
                ],
                body: request.body
            )
        }
    }

    @Test(arguments: TransportKind.allCases, ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"])
    func sendsEveryMethod(_ kind: TransportKind, _ method: String) async throws {
        let origin = try await kind.origin(of: server)
        let performer = kind.makePerformer()
        let body = method == "GET" ? nil : Data("payload of \(method)".utf8)
        let response = try await performer.perform(origin.request("/echo", method: method, body: body))
        #expect(response.status == .ok)
        #expect(response.headers["x-method"] == method)
        #expect(response.body == (body ?? Data()))
        #expect(server.receivedRequests.last?.method == method)
    }

    @Test(arguments: TransportKind.allCases)
    func sendsHeadWithoutReadingABody(_ kind: TransportKind) async throws {
        let origin = try await kind.origin(of: server)
        let performer = kind.makePerformer()
        server.route("HEAD", "/thing", response: .text("ignored"))
        let response = try await performer.perform(origin.request("/thing", method: "HEAD"))
        #expect(response.status == .ok)
        #expect(response.body.isEmpty)
        #expect(response.headers[.contentLength] == "7")
    }

    @Test(arguments: TransportKind.allCases)
    func sendsHeadersAndQueryAndReceivesHeaders(_ kind: TransportKind) async throws {
        let origin = try await kind.origin(of: server)
        let performer = kind.makePerformer()
        server.route("GET", "/search") { _ in
            LoopbackServer.Response.json("[]").addingHeader("ETag", "\"v1\"").addingHeader("X-Rate-Remaining", "42")
        }
        var request = origin.request("/search?q=a%20b&tag=x&tag=y")
        request.setValue("Bearer secret", forHTTPHeaderField: "Authorization")
        request.setValue("sluice-tests", forHTTPHeaderField: "User-Agent")
        let response = try await performer.perform(request)
        let received = try #require(server.receivedRequests.last)
        #expect(received.header("authorization") == "Bearer secret")
        #expect(received.header("User-Agent") == "sluice-tests")
        #expect(
            received.queryItems == [
                URLQueryItem(name: "q", value: "a b"), URLQueryItem(name: "tag", value: "x"),
                URLQueryItem(name: "tag", value: "y"),
            ]
        )
        #expect(response.headers[.eTag] == "\"v1\"")
        #expect(response.headers["x-rate-remaining"] == "42")
        #expect(response.url?.path == "/search")
    }

    @Test(arguments: TransportKind.allCases)
    func carriesLargeBodiesBothWays(_ kind: TransportKind) async throws {
        let origin = try await kind.origin(of: server)
        let performer = kind.makePerformer()
        let upload = sampleBytes(2 << 20, seed: 31)
        let echoed = try await performer.perform(origin.request("/echo", method: "POST", body: upload))
        #expect(echoed.body == upload)
        let download = sampleBytes(6 << 20, seed: 7)
        server.route("GET", "/big", response: LoopbackServer.Response(body: download))
        #expect(try await performer.perform(origin.request("/big")).body == download)
    }

    @Test(arguments: TransportKind.allCases, [201, 204, 301, 404, 500, 503])
    func returnsEveryStatusWithoutThrowing(_ kind: TransportKind, _ code: Int) async throws {
        let origin = try await kind.origin(of: server)
        let performer = kind.makePerformer()
        server.route(
            "GET",
            "/status",
            response: LoopbackServer.Response(status: code, body: code == 204 ? Data() : Data("s".utf8))
        )
        var request = origin.request("/status")
        if code == 301 {
            // A redirect without a Location is returned as it is.
            request.url = origin.url("/status")
        }
        let response = try await performer.perform(request)
        #expect(response.status.code == code)
    }

    /// Both transports store a cookie set by a redirect, send it on the request it redirects to and on later ones
    /// where its path matches, and send none on a request that handles no cookies.
    @Test(arguments: TransportKind.allCases)
    func sendsACookieSetByARedirectOnTheRequestItRedirectsTo(_ kind: TransportKind) async throws {
        let origin = try await kind.origin(of: server)
        let performer = kind.makePerformer()
        server.route("GET", "/cookies/set") { _ in
            LoopbackServer.Response.redirect(to: "/cookies/show").addingHeader("Set-Cookie", "k=v; Path=/cookies")
        }
        server.route("GET", "/elsewhere/set") { _ in
            LoopbackServer.Response.redirect(to: "/cookies/show").addingHeader(
                "Set-Cookie",
                "scoped=1; Path=/elsewhere"
            )
        }
        server.route("GET", "/cookies/show") { request in .text(request.header("Cookie") ?? "(none)") }
        let redirected = try await performer.perform(origin.request("/cookies/set"))
        #expect(String(decoding: redirected.body, as: UTF8.self) == "k=v")
        #expect(
            String(decoding: try await performer.perform(origin.request("/cookies/show")).body, as: UTF8.self) == "k=v"
        )
        // A cookie whose path does not match the redirect's URL stays behind.
        let scoped = try await performer.perform(origin.request("/elsewhere/set"))
        #expect(String(decoding: scoped.body, as: UTF8.self) == "k=v")
        // A request that handles no cookies gets none on its redirect either.
        var plain = origin.request("/cookies/set")
        plain.httpShouldHandleCookies = false
        let fresh = kind.makePerformer()
        #expect(String(decoding: try await fresh.perform(plain).body, as: UTF8.self) == "(none)")
    }

    @Test(arguments: TransportKind.allCases)
    func receivesAChunkedBodyIntact(_ kind: TransportKind) async throws {
        let origin = try await kind.origin(of: server)
        let performer = kind.makePerformer()
        let body = Data(String(repeating: "chunk-", count: 5_000).utf8)
        server.route("GET", "/chunked", response: LoopbackServer.Response(body: body, fault: .chunked(chunkSize: 777)))
        #expect(try await performer.perform(origin.request("/chunked")).body == body)
    }

    @Test(arguments: TransportKind.allCases)
    func receivesASlowDripIntact(_ kind: TransportKind) async throws {
        let origin = try await kind.origin(of: server)
        let performer = kind.makePerformer()
        server.route(
            "GET",
            "/drip",
            response: LoopbackServer.Response(
                body: Data("0123456789".utf8),
                fault: .drip(bytes: 3, every: .milliseconds(20))
            )
        )
        #expect(try await performer.perform(origin.request("/drip")).body == Data("0123456789".utf8))
    }

    @Test(arguments: TransportKind.allCases)
    func failsWhenTheServerClosesWithoutAnswering(_ kind: TransportKind) async throws {
        let origin = try await kind.origin(of: server)
        let performer = kind.makePerformer()
        server.route("GET", "/close", response: LoopbackServer.Response(fault: .closeWithoutResponse))
        let error = try await #require(throws: SluiceError.self) {
            try await APIClient(requestPerformer: performer).perform(Raw(url: origin.url("/close")))
        }
        #expect(error.code == .transport)
        #expect(error.underlyingError is URLError)
    }

    @Test(arguments: TransportKind.allCases)
    func failsOnATruncatedBody(_ kind: TransportKind) async throws {
        let origin = try await kind.origin(of: server)
        let performer = kind.makePerformer()
        server.route(
            "GET",
            "/truncated",
            response: LoopbackServer.Response(
                body: Data(repeating: 65, count: 10_000),
                fault: .closeMidBody(afterBytes: 100)
            )
        )
        let error = try await #require(throws: SluiceError.self) {
            try await APIClient(requestPerformer: performer).perform(Raw(url: origin.url("/truncated")))
        }
        #expect(error.code == .transport)
        switch kind {
        case .urlSession:
            #expect(error.message.hasPrefix("the request failed: URLError"))
        case .sockets, .socketsOverTLS:
            #expect(error.message.hasPrefix("the server closed the connection after 100 of 10000 bytes of the body"))
        }
    }

    @Test(arguments: TransportKind.allCases)
    func failsOnAConnectionReset(_ kind: TransportKind) async throws {
        let origin = try await kind.origin(of: server)
        let performer = kind.makePerformer()
        server.route("GET", "/reset", response: LoopbackServer.Response(fault: .resetConnection))
        let error = try await #require(throws: SluiceError.self) {
            try await APIClient(requestPerformer: performer).perform(Raw(url: origin.url("/reset")))
        }
        #expect(error.code == .transport)
    }

    @Test(arguments: TransportKind.allCases)
    func timesOutWhenTheServerSendsNothing(_ kind: TransportKind) async throws {
        let origin = try await kind.origin(of: server)
        let performer = kind.makePerformer()
        server.route("GET", "/slow", response: LoopbackServer.Response(body: Data("{}".utf8), delay: .seconds(20)))
        var raw = Raw(url: origin.url("/slow"))
        raw.timeout = 0.2
        let start = ContinuousClock.now
        let error = try await #require(throws: SluiceError.self) {
            try await APIClient(requestPerformer: performer).perform(raw)
        }
        #expect(error.code == .timedOut)
        #expect(error.stage == .transport)
        #expect(
            error.description == """
                error: the request timed out during the transport stage
                  --> GET \(origin.url("/slow")) [stage: transport]
                   |
                   | caused by: URLError -1001: no byte of the response within the idle timeout of 200.00ms
                """
        )
        // No upper bound: had the timeout not fired, the server's answer after 20 s would have ended the request
        // without an error; a bound on elapsed time would only measure how busy the machine was.
        #expect(ContinuousClock.now - start >= .milliseconds(200))
    }

    /// What URLSession is handed: on Linux, where FoundationNetworking arms a timer of `Int(timeoutInterval)` whole
    /// seconds (0.5 s as none at all, 1.5 s as 1 s, infinity or NaN stopping the process), a request whose timeout its
    /// arithmetic carries, the performer enforcing the one given; elsewhere the request as it is.
    @Test func handsURLSessionARequestItsTimerCannotMisread() async throws {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [TimeoutRecordingProtocol.self]
        let performer = NetworkRequestPerformer(configuration: configuration)
        for timeout in [0.5, 1.5, 0, -1, .infinity] as [TimeInterval] {
            let url = try #require(URL(string: "http://timeout.test/\(timeout)"))
            var request = URLRequest(url: url)
            request.timeoutInterval = timeout
            let response = try await performer.perform(request)
            #expect(response.status == .ok)
            let handed = try #require(TimeoutRecordingProtocol.handed(for: url))
            #if canImport(FoundationNetworking)
            #expect(handed == 1e9, "\(timeout) s")
            #else
            #expect(handed == timeout, "\(timeout) s")
            #endif
        }
    }

    /// A request left at `URLRequest`'s default timeout gets the session's `timeoutIntervalForRequest`, as URLSession
    /// gives it, on a session of the performer's own and on a given one; a request that sets its own keeps it.
    @Test(arguments: [false, true])
    func aRequestWithoutATimeoutOfItsOwnGetsTheSessions(givenSession: Bool) async throws {
        server.route("GET", "/slow", response: LoopbackServer.Response(body: Data("{}".utf8), delay: .seconds(20)))
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 0.2
        let performer =
            givenSession
            ? NetworkRequestPerformer(session: URLSession(configuration: configuration))
            : NetworkRequestPerformer(configuration: configuration)
        for (timeout, named) in [(nil, "200.00ms"), (0.3, "300.00ms")] as [(TimeInterval?, String)] {
            var request = URLRequest(url: server.url("/slow"))
            if let timeout {
                request.timeoutInterval = timeout
            }
            let error = try await #require(throws: URLError.self) { try await performer.perform(request) }
            #expect(error.code == .timedOut)
            #expect(error.localizedDescription.contains(named), "\(error.localizedDescription)")
        }
        #expect(performer.requestsInFlight == 0)
    }

    @Test(arguments: TransportKind.allCases, [TimeInterval.greatestFiniteMagnitude, .infinity, 1e10, 0, -1, .nan])
    func sendsWithoutATimeoutWhenItIsOutOfRange(_ kind: TransportKind, _ timeout: TimeInterval) async throws {
        let origin = try await kind.origin(of: server)
        let performer = kind.makePerformer()
        var raw = Raw(url: origin.url("/echo"))
        raw.timeout = timeout
        #expect(try await APIClient(requestPerformer: performer).perform(raw) == Data())
        #expect(requestsInFlight(performer) == 0)
    }

    /// A timeout set on the request, as the request builder sets it, holds as given while the response takes its time.
    ///
    /// Zero, negative, infinite or NaN ones mean none (URLSession on Linux fails the first two at once and stops the
    /// process on the others), and a fractional one is not cut to whole seconds (see
    /// `handsURLSessionARequestItsTimerCannotMisread`, which checks it without depending on how late a loaded machine
    /// delivers a response).
    @Test(
        arguments: TransportKind.allCases,
        [(30.5, 150), (0, 150), (-1, 150), (.infinity, 150), (.nan, 150), (.greatestFiniteMagnitude, 150)]
            as [(TimeInterval, Int)]
    )
    func holdsATimeoutSetOnTheRequestAsGiven(_ kind: TransportKind, _ timing: (TimeInterval, Int)) async throws {
        let origin = try await kind.origin(of: server)
        let (timeout, delay) = timing
        server.route(
            "GET",
            "/late",
            response: LoopbackServer.Response(body: Data("late".utf8), delay: .milliseconds(delay))
        )
        var request = URLRequest(url: origin.url("/late"))
        request.timeoutInterval = timeout
        let performer = kind.makePerformer()
        let response = try await performer.perform(request)
        #expect(String(decoding: response.body, as: UTF8.self) == "late")
        let streamed = try await performer.stream(request)
        #expect(String(decoding: try await streamed.body.collect(upTo: 100), as: UTF8.self) == "late")
        #expect(requestsInFlight(performer) == 0)
    }

    @Test(arguments: TransportKind.allCases)
    func takesADefinitionsTimeoutOfCenturiesAsNone(_ kind: TransportKind) async throws {
        let origin = try await kind.origin(of: server)
        let performer = kind.makePerformer()
        struct Patient: Endpoint {
            static let definition: Definition<Patient> = Definition(
                method: .get,
                path: "echo",
                timeout: .seconds(10_000_000_000)
            )
            typealias Response = Data
        }
        let request = try Patient().build(on: Server([.production: origin.baseURL]))
        #expect(request.timeoutInterval == 1e10)
        let response = try await performer.perform(request)
        #expect(response.status == .ok)
    }

    @Test(arguments: TransportKind.allCases)
    func keepsASlowButSteadyResponseAlive(_ kind: TransportKind) async throws {
        let origin = try await kind.origin(of: server)
        let performer = kind.makePerformer()
        // The body alone takes a quarter of a second longer than the timeout to arrive, 10 bytes every 250 ms, so
        // the whole response outlasts the timeout, but it is never idle for more than a fraction of it. The
        // performer's idle timer runs on the wall clock, so the margin is wide, and wider for URLSession and under a
        // sanitizer: with the rest of the suites starting at once on two cores, URLSession has been seen to deliver
        // nothing for 3 s.
        let timeout: TimeInterval = SoakTests.sanitizer == nil && kind == .sockets ? 3 : 10
        let body = Data(String(repeating: "0123456789", count: Int(timeout * 4) + 1).utf8)
        server.route(
            "GET",
            "/drip",
            response: LoopbackServer.Response(body: body, fault: .drip(bytes: 10, every: .milliseconds(250)))
        )
        var raw = Raw(url: origin.url("/drip"))
        raw.timeout = timeout
        let start = ContinuousClock.now
        #expect(try await APIClient(requestPerformer: performer).perform(raw) == body)
        #expect(ContinuousClock.now - start > .seconds(timeout))
    }

    @Test(arguments: TransportKind.allCases)
    func cancelsTheTransferWhenTheCallerIsCancelled(_ kind: TransportKind) async throws {
        let origin = try await kind.origin(of: server)
        let performer = kind.makePerformer()
        let arrived = Signal("the request at the server")
        server.route("GET", "/slow") { _ in
            arrived.fire()
            // Longer than any run, however slow: only the cancellation can end the request, which the error's code
            // shows (an answer would have made it succeed); the server's stop cuts the wait short.
            return LoopbackServer.Response(body: Data("{}".utf8), delay: .seconds(3_600))
        }
        let client = APIClient(requestPerformer: performer)
        let task = Task { try await client.perform(Raw(url: origin.url("/slow"))) }
        try await arrived.wait()
        task.cancel()
        let error = try await #require(throws: SluiceError.self) { try await task.value }
        #expect(error.code == .cancelled)
        #expect(error.stage == .transport)
        // The transport let go of its connection: the server, waiting out its delay, sees the client close.
        try await server.openConnectionsGauge.wait(for: "the connection to close") { $0 == 0 }
    }

    @Test(arguments: TransportKind.allCases)
    func cancelsARequestCancelledBeforeItStarts(_ kind: TransportKind) async throws {
        let origin = try await kind.origin(of: server)
        let performer = kind.makePerformer()
        let client = APIClient(requestPerformer: performer)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await client.perform(Raw(url: origin.url("/echo")))
        }
        let error = try await #require(throws: SluiceError.self) { try await task.value }
        #expect(error.code == .cancelled)
        #expect(server.receivedRequests.isEmpty)
    }

    @Test(arguments: TransportKind.allCases)
    func refusesABodyOverTheLimit(_ kind: TransportKind) async throws {
        let origin = try await kind.origin(of: server)
        let small = kind.makePerformer(maximumBodySize: 1_000)
        server.route("GET", "/big", response: LoopbackServer.Response(body: Data(repeating: 1, count: 5_000)))
        server.route(
            "GET",
            "/bigchunked",
            response: LoopbackServer.Response(body: Data(repeating: 1, count: 5_000), fault: .chunked(chunkSize: 400))
        )
        let declared = try await #require(throws: SluiceError.self) {
            try await APIClient(requestPerformer: small).perform(Raw(url: origin.url("/big")))
        }
        #expect(declared.message == "the response body is 5000 bytes, more than the limit of 1000 bytes")
        let streamed = try await #require(throws: SluiceError.self) {
            try await APIClient(requestPerformer: small).perform(Raw(url: origin.url("/bigchunked")))
        }
        #expect(streamed.message == "the response body is more than 1000 bytes, more than the limit of 1000 bytes")
    }

    @Test(arguments: TransportKind.allCases)
    func answersAThousandRequestsFiftyAtATime(_ kind: TransportKind) async throws {
        let origin = try await kind.origin(of: server)
        let performer = kind.makePerformer()
        server.route("GET", "/items/*") { request in
            LoopbackServer.Response.json(#"{"id": \#(request.path.split(separator: "/").last ?? "0")}"#)
        }
        struct Item: Decodable, Sendable {
            var id: Int
        }
        struct GetItem: Request {
            typealias ResponseObject = Item
            var url: URL
            func build() throws -> URLRequest { URLRequest(url: url) }
        }
        let client = APIClient(requestPerformer: performer)
        let server = self.server
        // 200 under a sanitizer, where a thousand from each transport at once starve the tests running beside them.
        let total = SoakTests.sanitizer == nil ? 1_000 : 200
        let ids = try await withThrowingTaskGroup(of: Int.self) { group in
            var next = 0
            var ids: [Int] = []
            func add() {
                let id = next
                next += 1
                group.addTask { try await client.perform(GetItem(url: origin.url("/items/\(id)"))).id }
            }
            for _ in 0..<50 {
                add()
            }
            while let id = try await group.next() {
                ids.append(id)
                if next < total {
                    add()
                }
            }
            return ids
        }
        #expect(ids.count == total)
        #expect(Set(ids) == Set(0..<total))
        #expect(server.receivedRequests.count == total)
    }
}

/// Answers every request at once with an empty 200, noting the `timeoutInterval` of the request URLSession loads.
final class TimeoutRecordingProtocol: URLProtocol {
    private static let timeouts = Locked<[URL: TimeInterval]>([:])

    /// The timeout of the request loaded for a URL.
    static func handed(for url: URL) -> TimeInterval? {
        timeouts.withLock { $0[url] }
    }

    override class func canInit(with request: URLRequest) -> Bool { true }

    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    override func startLoading() {
        guard let url = request.url,
            let response = HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: [:])
        else {
            client?.urlProtocol(self, didFailWithError: URLError(.badURL))
            return
        }
        Self.timeouts.withLock { $0[url] = request.timeoutInterval }
        client?.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
        client?.urlProtocolDidFinishLoading(self)
    }

    override func stopLoading() {}
}

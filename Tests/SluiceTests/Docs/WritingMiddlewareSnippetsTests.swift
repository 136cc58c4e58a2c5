import ClientFixtures
// The snippets of the "Writing middleware" article, verbatim where whole, completed where they are fragments; and
// the signing performer checked against a real server.
import Foundation
import Sluice
import SluiceTesting
import Testing

private struct AttemptHeaderPerformer: RequestPerformer {
    let base: any RequestPerformer

    func perform(_ request: URLRequest) async throws -> HTTPResponse {
        try await RequestContext.withContext(for: request) { context in
            var request = request
            request.setValue(String(max(context.attempts, 1)), forHTTPHeaderField: "X-Attempt")
            return try await base.perform(request)
        }
    }
}

extension AttemptHeaderPerformer {
    func stream(_ request: URLRequest) async throws -> HTTPResponse.Streamed {
        try await RequestContext.withContext(forStreaming: request) { context in
            var request = request
            request.setValue(String(max(context.attempts, 1)), forHTTPHeaderField: "X-Attempt")
            return try await base.stream(request)
        }
    }
}

extension AttemptHeaderPerformer {
    func webSocket(
        _ request: URLRequest,
        protocols: [String],
        configuration: WebSocket.Configuration
    ) async throws -> WebSocket {
        var request = request
        request.setValue("1", forHTTPHeaderField: "X-Attempt")
        return try await base.webSocket(request, protocols: protocols, configuration: configuration)
    }
}

private struct TenantPerformer: WrappingPerformer {
    let base: any RequestPerformer
    let tenant: String

    func perform(_ request: URLRequest) async throws -> HTTPResponse {
        try await base.perform(withTenant(request))
    }

    func requestAsSent(_ request: URLRequest) -> URLRequest {
        base.requestAsSent(withTenant(request))
    }

    private func withTenant(_ request: URLRequest) -> URLRequest {
        var request = request
        request.setValue(tenant, forHTTPHeaderField: "X-Tenant")
        return request
    }
}

private struct SigningPerformer: RequestPerformer {
    let base: any RequestPerformer
    let keyID: String
    let secret: [UInt8]
    var now: @Sendable () -> Date = { Date() }

    func perform(_ request: URLRequest) async throws -> HTTPResponse {
        let date = SigningPerformer.httpDate(now())
        let bodyDigest = SHA256.hash(request.httpBody ?? Data()).hexadecimal
        let signed = [request.httpMethod ?? "GET", request.url?.path ?? "/", date, bodyDigest]
            .joined(separator: "\n")
        let signature = HMACSHA256.authenticationCode(for: Array(signed.utf8), key: secret).hexadecimal
        var request = request
        request.setValue(date, forHTTPHeaderField: "Date")
        request.setValue(bodyDigest, forHTTPHeaderField: "X-Content-SHA256")
        request.setValue(#"keyId="\#(keyID)", signature="\#(signature)""#, forHTTPHeaderField: "Signature")
        return try await base.perform(request)
    }

    static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }
}

private func articleSignedClient(secret: [UInt8]) -> APIClient {
    let client = APIClient(
        requestPerformer: SigningPerformer(base: NetworkRequestPerformer(), keyID: "app-1", secret: secret)
            .retrying(RetryingPerformer.Policy(maximumAttempts: 3))
    )
    return client
}

/// A payment, posted with an idempotency key so that it may be retried.
private struct Pay: Request {
    typealias ResponseObject = Data
    var url: URL

    func build() throws -> URLRequest {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.setValue("payment-17", forHTTPHeaderField: "Idempotency-Key")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(#"{"amount": 5}"#.utf8)
        return request
    }
}

@Suite struct WritingMiddlewareSnippetsTests {
    let secret = Array("the shared secret".utf8)

    /// Whether a request as the server received it carries a valid signature of its method, path, date and body.
    private func verifies(_ request: LoopbackServer.Request) throws -> Bool {
        let date = try #require(request.header("Date"))
        let bodyDigest = SHA256.hash(request.body).hexadecimal
        let signed = [request.method, request.path, date, bodyDigest].joined(separator: "\n")
        let signature = HMACSHA256.authenticationCode(for: Array(signed.utf8), key: secret).hexadecimal
        return request.header("X-Content-SHA256") == bodyDigest
            && request.header("Signature") == #"keyId="app-1", signature="\#(signature)""#
    }

    @Test func signsEveryAttemptInsideARetryWithAFreshDate() async throws {
        let server = try LoopbackServer()
        let served = Locked(0)
        server.route("POST", "/payments") { _ in
            served.withLock { served in
                served += 1
                return served == 1 ? LoopbackServer.Response.text("busy", status: 503) : .text("paid")
            }
        }
        // Each signature is made a second after the previous one, on a clock of the test's.
        let ticks = Locked(0)
        let signer = SigningPerformer(base: NetworkRequestPerformer(), keyID: "app-1", secret: secret) {
            ticks.withLock { ticks in
                ticks += 1
                return Date(timeIntervalSince1970: 1_700_000_000 + Double(ticks))
            }
        }
        let clock = TestClock()
        let client = APIClient(
            requestPerformer: signer.retrying(
                RetryingPerformer.Policy(maximumAttempts: 3, randomFraction: { 0 }),
                clock: clock
            )
        )
        #expect(try await client.perform(Pay(url: server.url("/payments"))) == Data("paid".utf8))

        let received = server.receivedRequests
        #expect(received.count == 2)
        #expect(
            received.map { $0.header("Date") } == ["Tue, 14 Nov 2023 22:13:21 GMT", "Tue, 14 Nov 2023 22:13:22 GMT"]
        )
        #expect(Set(received.map { $0.header("Signature") }).count == 2)
        for request in received {
            #expect(try verifies(request), "\(request)")
        }
    }

    @Test func tellsTheServerWhichAttemptItReceives() async throws {
        let stub = StubPerformer(responses: [HTTPResponse(status: .badGateway), HTTPResponse(status: .ok)])
        let client = APIClient(
            requestPerformer: AttemptHeaderPerformer(base: stub).retrying(
                RetryingPerformer.Policy(maximumAttempts: 3, randomFraction: { 0 }),
                clock: TestClock()
            )
        )
        _ = try await client.perform(Pay(url: try #require(URL(string: "https://api.example.com/payments"))))
        #expect(stub.requests.map { $0.value(forHTTPHeaderField: "X-Attempt") } == ["1", "2"])
    }

    /// "Fields a cache above you should see": one cache above two tenants keeps a variant for each.
    @Test func letsACacheAboveSeeTheTenant() async throws {
        let server = try LoopbackServer()
        server.route("/catalog") { request in
            LoopbackServer.Response.text("catalog of \(request.header("X-Tenant") ?? "nobody")")
                .addingHeader("Cache-Control", "max-age=3600")
                .addingHeader("Vary", "X-Tenant")
        }
        let cache = HTTPCache()
        let acme = TenantPerformer(base: SocketRequestPerformer(), tenant: "acme").cached(in: cache)
        let globex = TenantPerformer(base: SocketRequestPerformer(), tenant: "globex").cached(in: cache)
        let request = URLRequest(url: server.url("/catalog"))
        #expect(try await acme.perform(request).cacheOutcome?.kind == .miss)
        #expect(try await globex.perform(request).body == Data("catalog of globex".utf8))
        let hit = try await acme.perform(request)
        #expect(hit.cacheOutcome?.kind == .hit)
        #expect(hit.body == Data("catalog of acme".utf8))
        #expect(server.requestCount == 2)
    }

    @Test func marksTheWebSocketHandshake() async throws {
        let stub = StubPerformer(webSocket: MockClient.WebSocketScript.echo())
        let socket = try await AttemptHeaderPerformer(base: stub).webSocket(
            URLRequest(url: try #require(URL(string: "wss://api.example.com/feed")))
        )
        try await socket.send(.text("hi"))
        #expect(try await socket.receive() == .text("hi"))
        #expect(stub.requests.map { $0.value(forHTTPHeaderField: "X-Attempt") } == ["1"])
    }

    @Test func tellsTheServerWhichAttemptItStreams() async throws {
        let base = ScriptedStreams([
            ScriptedStreams.Scripted(status: .badGateway, chunks: ["busy"]),
            ScriptedStreams.Scripted(status: .ok, chunks: ["streamed"], end: .finished),
        ])
        let performer = AttemptHeaderPerformer(base: base).retrying(
            RetryingPerformer.Policy(maximumAttempts: 3, randomFraction: { 0 }),
            clock: TestClock()
        )
        let response = try await performer.stream(URLRequest(url: try testURL("https://api.example.com/feed")))
        #expect(try await response.body.collect(upTo: 100) == Data("streamed".utf8))
        #expect(base.requests.map { $0.value(forHTTPHeaderField: "X-Attempt") } == ["1", "2"])
    }

    /// A route that answers its first request with a 503 that asks for no wait (`Retry-After: 0`), so that a retry on
    /// the real clock tries again at once, and every later one with `response`.
    private func busyOnce(
        then response: LoopbackServer.Response
    ) -> @Sendable (LoopbackServer.Request) -> LoopbackServer.Response {
        let served = Locked(0)
        let busy = LoopbackServer.Response.text("busy", status: 503).addingHeader("Retry-After", "0")
        return { _ in
            served.withLock { served in
                served += 1
                return served == 1 ? busy : response
            }
        }
    }

    @Test func theArticlesClientSignsEachAttemptOfARetry() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("POST", "/payments", respond: busyOnce(then: .text("paid")))
        // The article's chain, with no deadline: a machine busy with the rest of the suite can hold the first
        // attempt up past the default's 30 s, and the retry would then be refused.
        let client = APIClient(
            requestPerformer: SigningPerformer(base: NetworkRequestPerformer(), keyID: "app-1", secret: secret)
                .retrying(RetryingPerformer.Policy(maximumAttempts: 3, deadline: nil))
        )
        #expect(try await client.perform(Pay(url: server.url("/payments"))) == Data("paid".utf8))
        let received = server.receivedRequests
        #expect(received.count == 2, "the signer is inside the retry")
        for request in received {
            #expect(request.header("Idempotency-Key") == "payment-17")
            #expect(try verifies(request), "\(request)")
        }
    }

    @Test func theInlineRetryNumbersEachAttempt() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("GET", "/feed", respond: busyOnce(then: .text("fresh")))
        // No deadline: a machine busy with the rest of the suite can hold the first attempt up past the default's.
        let performer = AttemptHeaderPerformer(base: NetworkRequestPerformer())
            .retrying(RetryingPerformer.Policy(deadline: nil))
        let response = try await performer.perform(URLRequest(url: server.url("/feed")))
        #expect(response.body == Data("fresh".utf8))
        #expect(server.receivedRequests.map { $0.header("X-Attempt") } == ["1", "2"])
    }
}

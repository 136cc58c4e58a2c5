import ClientFixtures
import Foundation
import SluiceCore
import SluiceTesting
import Testing

/// Records every scope as it begins and ends, and writes a `traceparent` naming each attempt into it.
private final class RecordingInstrumentation: RequestInstrumentation {
    enum Call: Equatable {
        case begin(InstrumentationScope.ID)
        case end(InstrumentationScope.ID)
    }

    private let recorded = Locked<(calls: [Call], scopes: [InstrumentationScope])>(([], []))

    func begin(_ scope: InstrumentationScope) {
        scope.state = "span \(scope.id)"
        recorded.withLock {
            $0.calls.append(.begin(scope.id))
            $0.scopes.append(scope)
        }
    }

    func end(_ scope: InstrumentationScope) {
        recorded.withLock { $0.calls.append(.end(scope.id)) }
    }

    func inject(into headers: inout HTTPHeaders, for attempt: InstrumentationScope) {
        headers[Header("traceparent")] = "00-attempt-\(attempt.id)-01"
    }

    var calls: [Call] { recorded.withLock { $0.calls } }
    var scopes: [InstrumentationScope] { recorded.withLock { $0.scopes } }

    func scopes(_ kind: InstrumentationScope.Kind, named name: String? = nil) -> [InstrumentationScope] {
        scopes.filter { $0.kind == kind && (name == nil || $0.name == name) }
    }

    func children(of parent: InstrumentationScope) -> [InstrumentationScope] {
        scopes.filter { $0.parent === parent }
    }

    /// The request scope a scope belongs to.
    func root(of scope: InstrumentationScope) -> InstrumentationScope {
        var scope = scope
        while let parent = scope.parent {
            scope = parent
        }
        return scope
    }
}

/// A request with a URL template and, optionally, a credential, for the instrumentation's suites.
struct TemplatedGet: Request {
    typealias ResponseObject = JSON
    var url: URL
    var authorization: String?

    func build() throws -> URLRequest {
        var request = URLRequest(url: url)
        request.setValue(authorization, forHTTPHeaderField: "Authorization")
        return request
    }

    var urlTemplate: String? { "/users/{id}" }
}

private struct Fetch: Request {
    typealias ResponseObject = Data
    var url: URL

    func build() throws -> URLRequest { URLRequest(url: url) }
}

extension InstrumentationScope.Attributes {
    fileprivate subscript(string key: InstrumentationScope.Key) -> String? {
        guard case .string(let text)? = self[key] else { return nil }
        return text
    }

    fileprivate subscript(int key: InstrumentationScope.Key) -> Int? {
        guard case .int(let number)? = self[key] else { return nil }
        return number
    }
}

@Suite struct InstrumentationTests {
    let server: LoopbackServer
    fileprivate let recorder = RecordingInstrumentation()

    init() throws {
        server = try LoopbackServer()
        server.route("GET", "/users/7") { _ in .json(#"{"id": 7}"#) }
    }

    private func client(_ performer: any RequestPerformer) -> APIClient {
        APIClient(requestPerformer: performer, instrumentation: recorder)
    }

    /// A route that answers `text` once the test fires the second signal, and fires the first when a request arrives.
    private func heldRoute(_ path: String, answering text: String) -> (arrived: Signal, release: Signal) {
        let arrived = Signal("the request to \(path) at the server")
        let release = Signal("the release of the request to \(path)")
        server.route("GET", path) { _ in
            arrived.fire()
            try? release.block()
            return .text(text)
        }
        return (arrived, release)
    }

    /// The scopes of one request: the tree, the order of the calls, and the attributes of each.
    @Test func reportsThePlainRequestsScopeTree() async throws {
        _ = try await client(SocketRequestPerformer()).perform(TemplatedGet(url: server.url("/users/7")))
        let request = try #require(recorder.scopes(.request).first)
        #expect(recorder.scopes(.request).count == 1)
        #expect(request.name == "GET /users/{id}")
        #expect(request.failed == false)
        #expect(request.state as? String == "span \(request.id)")
        let attributes = request.attributes
        #expect(attributes[string: .httpRequestMethod] == "GET")
        #expect(attributes[string: .serverAddress] == "127.0.0.1")
        #expect(attributes[int: .serverPort] == server.port)
        #expect(attributes[string: .urlFull] == "http://127.0.0.1:\(server.port)/users/7")
        #expect(attributes[string: .urlTemplate] == "/users/{id}")
        #expect(attributes[int: .httpResponseStatusCode] == 200)
        #expect(attributes[int: .httpResponseBodySize] == 9)
        #expect(attributes[.errorType] == nil)

        let stages = recorder.children(of: request)
        #expect(stages.map(\.name) == ["build", "transport", "deserialize", "parse"])
        #expect(stages.allSatisfy { $0.kind == .stage })
        let transport = try #require(stages.first { $0.name == "transport" })
        let attempt = try #require(recorder.children(of: transport).first)
        #expect(attempt.kind == .attempt)
        #expect(attempt.name == "GET /users/{id}")
        #expect(attempt.attributes[string: .attemptReason] == "first")
        #expect(attempt.attributes[.httpRequestResendCount] == nil)
        #expect(attempt.attributes[int: .httpResponseStatusCode] == 200)
        #expect(attempt.attributes[string: .networkProtocolVersion] == "1.1")
        #expect(attempt.attributes[string: .networkPeerAddress] == "127.0.0.1")
        #expect(attempt.attributes[int: .networkPeerPort] == server.port)

        // Every scope begins before its children and ends after them, once.
        let calls = recorder.calls
        for scope in recorder.scopes {
            let begin = try #require(calls.firstIndex(of: .begin(scope.id)))
            let end = try #require(calls.firstIndex(of: .end(scope.id)))
            #expect(calls.filter { $0 == .end(scope.id) }.count == 1)
            #expect(begin < end)
            let endInstant = try #require(scope.end)
            #expect(scope.start <= endInstant)
            if let parent = scope.parent {
                #expect(try #require(calls.firstIndex(of: .begin(parent.id))) < begin)
                #expect(try #require(calls.firstIndex(of: .end(parent.id))) > end)
            }
        }
    }

    /// The connection scope of Sluice's own transport: a new connection with its connect phase, then the same
    /// connection reused.
    @Test func reportsANewConnectionThenTheSameOneReused() async throws {
        let client = client(SocketRequestPerformer())
        _ = try await client.perform(TemplatedGet(url: server.url("/users/7")))
        _ = try await client.perform(TemplatedGet(url: server.url("/users/7")))
        let connections = recorder.scopes(.connection, named: "connection")
        try #require(connections.count == 2)
        let (first, second) = (connections[0], connections[1])
        #expect(first.parent?.kind == .attempt)
        #expect(first.attributes[.connectionReused] == .bool(false))
        #expect(second.attributes[.connectionReused] == .bool(true))
        #expect(first.attributes[.connectionID] == second.attributes[.connectionID])
        #expect(first.attributes[string: .networkProtocolVersion] == "1.1")
        #expect(first.attributes[string: .networkPeerAddress] == "127.0.0.1")
        #expect(first.attributes[string: .networkTransport] == "tcp")
        #expect(recorder.children(of: first).map(\.name) == ["connect"])
        #expect(recorder.children(of: second).isEmpty)
    }

    /// `url.full` leaves out the user name and password, and hides what the redaction hides, by name and by value.
    @Test func keepsCredentialsOutOfTheFullURL() async throws {
        server.route("GET", "/search") { _ in .json("{}") }
        var components = try #require(URLComponents(url: server.url("/search"), resolvingAgainstBaseURL: false))
        components.user = "ada"
        components.password = "s3cr3t-password"
        components.percentEncodedQuery = "api_key=s3cr3t-key&echo=s3cr3t-token&page=1"
        let url = try #require(components.url)
        _ = try await client(SocketRequestPerformer()).perform(
            TemplatedGet(url: url, authorization: "Bearer s3cr3t-token")
        )
        let scopes = recorder.scopes(.request) + recorder.scopes(.attempt)
        try #require(scopes.count == 2)
        for scope in scopes {
            let full = try #require(scope.attributes[string: .urlFull])
            #expect(!full.contains("s3cr3t"), "\(full)")
            #expect(!full.contains("ada"), "\(full)")
            #expect(full.hasPrefix("http://127.0.0.1:\(server.port)/search?api_key="), "\(full)")
            #expect(full.hasSuffix("&page=1"), "\(full)")
        }
    }

    /// A credential the request carries in a header is hidden in `url.full` too, even in a URL with no query.
    @Test func hidesAHeadersCredentialInThePathOfTheFullURL() async throws {
        server.route("GET", "/items/s3cr3t-token") { _ in .json("{}") }
        let url = server.url("/items/s3cr3t-token")
        _ = try await client(SocketRequestPerformer()).perform(
            TemplatedGet(url: url, authorization: "Bearer s3cr3t-token")
        )
        let attempt = try #require(recorder.scopes(.attempt).first)
        let full = try #require(attempt.attributes[string: .urlFull])
        #expect(!full.contains("s3cr3t"), "\(full)")
        #expect(full.hasPrefix("http://127.0.0.1:\(server.port)/items/"), "\(full)")
    }

    /// A retried request has one attempt scope per send, the later ones with their resend count, and each carries a
    /// trace context of its own.
    @Test func reportsEachRetryAsAnAttemptWithItsResendCount() async throws {
        let calls = Locked(0)
        server.route("GET", "/flaky") { _ in
            calls.withLock { count in
                count += 1
                return count == 1 ? .text("busy", status: 503) : .text("ok")
            }
        }
        let policy = RetryingPerformer.Policy(maximumAttempts: 3, deadline: nil, randomFraction: { 0 })
        _ = try await client(SocketRequestPerformer().retrying(policy)).perform(Fetch(url: server.url("/flaky")))
        let attempts = recorder.scopes(.attempt)
        try #require(attempts.count == 2)
        #expect(attempts[0].attributes[int: .httpResponseStatusCode] == 503)
        #expect(attempts[0].attributes[string: .errorType] == "503")
        #expect(attempts[0].failed)
        #expect(attempts[0].attributes[.httpRequestResendCount] == nil)
        #expect(attempts[1].attributes[int: .httpRequestResendCount] == 1)
        #expect(attempts[1].attributes[string: .attemptReason] == "retry")
        #expect(attempts[1].failed == false)
        #expect(attempts[0].parent === attempts[1].parent)
        let request = try #require(recorder.scopes(.request).first)
        #expect(request.name == "GET")
        #expect(request.failed == false)
        let sent = server.receivedRequests.map { HTTPHeaders($0.headers)[Header("traceparent")] }
        #expect(sent == attempts.map { "00-attempt-\($0.id)-01" })
    }

    /// A redirect the transport follows is an attempt of its own, named by its hop.
    @Test func reportsARedirectsHopAsAnAttempt() async throws {
        server.route("GET", "/old") { _ in LoopbackServer.Response(status: 302, headers: [.init(.location, "/new")]) }
        server.route("GET", "/new") { _ in .json("{}") }
        _ = try await client(SocketRequestPerformer()).perform(TemplatedGet(url: server.url("/old")))
        let attempts = recorder.scopes(.attempt)
        try #require(attempts.count == 2)
        #expect(attempts[0].attributes[int: .httpResponseStatusCode] == 302)
        #expect(attempts[0].failed == false)
        #expect(attempts[0].attributes[string: .urlTemplate] == "/users/{id}")
        #expect(attempts[1].attributes[string: .attemptReason] == "redirect")
        #expect(attempts[1].attributes[int: .attemptRedirectHop] == 1)
        #expect(attempts[1].attributes[int: .httpRequestResendCount] == 1)
        #expect(attempts[1].attributes[string: .urlFull] == "http://127.0.0.1:\(server.port)/new")
        #expect(attempts[1].attributes[.urlTemplate] == nil)
    }

    /// The replay after a 401 is an attempt whose reason says so.
    @Test func reportsTheReplayAfter401AsAnAuthenticationAttempt() async throws {
        server.route("GET", "/me") { request in
            HTTPHeaders(request.headers)[.authorization] == "Bearer fresh" ? .text("me") : .text("no", status: 401)
        }
        let host = try #require(server.url("/").host)
        let store = CredentialStore(credential: .init(authorization: "Bearer stale"), hosts: [host]) { _ in
            .init(authorization: "Bearer fresh")
        }
        _ = try await client(SocketRequestPerformer().authenticated(by: store)).perform(Fetch(url: server.url("/me")))
        let attempts = recorder.scopes(.attempt)
        try #require(attempts.count == 2)
        #expect(attempts[0].attributes[int: .httpResponseStatusCode] == 401)
        #expect(attempts[1].attributes[string: .attemptReason] == "authentication")
        #expect(attempts[1].attributes[int: .httpRequestResendCount] == 1)
        #expect(attempts[1].attributes[int: .httpResponseStatusCode] == 200)
    }

    /// A response the cache answers has a cache stage with its outcome and no attempt.
    @Test func reportsACacheHitWithoutAnAttempt() async throws {
        server.route("GET", "/cached") { _ in .text("stored").addingHeader("Cache-Control", "max-age=600") }
        let client = client(SocketRequestPerformer().cached(in: HTTPCache()))
        _ = try await client.perform(Fetch(url: server.url("/cached")))
        _ = try await client.perform(Fetch(url: server.url("/cached")))
        let requests = recorder.scopes(.request)
        try #require(requests.count == 2)
        #expect(requests.map { $0.attributes[string: .cacheOutcome] } == ["miss", "hit"])
        let caches = recorder.scopes(.stage, named: "cache")
        #expect(caches.map { $0.attributes[string: .cacheOutcome] } == ["miss", "hit"])
        #expect(caches.allSatisfy { $0.parent?.name == "transport" })
        let attempts = recorder.scopes(.attempt)
        #expect(attempts.count == 1)
        #expect(attempts.map { recorder.root(of: $0) }.first === requests[0])
    }

    /// A revalidation in the background is a request of its own, linked to the one whose stale answer started it.
    @Test func linksABackgroundRevalidationToTheRequestThatStartedIt() async throws {
        server.route("GET", "/stale") { _ in
            .text("stored").addingHeader("Cache-Control", "max-age=0, stale-while-revalidate=600")
        }
        let cache = HTTPCache()
        let client = client(SocketRequestPerformer().cached(in: cache))
        _ = try await client.perform(Fetch(url: server.url("/stale")))
        _ = try await client.perform(Fetch(url: server.url("/stale")))
        try await cache.backgroundRevalidations.wait(for: "the revalidation's end") { $0 == 0 }
        let requests = recorder.scopes(.request)
        try #require(requests.count == 3)
        #expect(requests[1].attributes[string: .cacheOutcome] == "stale-hit")
        let background = requests[2]
        #expect(background.attributes[.background] == .bool(true))
        #expect(background.links.map(\.id) == [requests[1].id])
        #expect(background.end != nil)
        let attempt = try #require(recorder.scopes(.attempt).last)
        #expect(recorder.root(of: attempt) === background)
        #expect(recorder.scopes(.attempt).count == 2)
    }

    /// De-duplicated requests share the first caller's attempt: it is that caller's child, and the others link to it.
    @Test func linksTheFollowersOfADeduplicatedBurstToTheLeadersAttempt() async throws {
        let (arrived, release) = heldRoute("/feed", answering: "the feed")
        let performer = SocketRequestPerformer().deduplicated()
        let client = client(performer)
        let url = server.url("/feed")
        let leader = Task { try await client.perform(Fetch(url: url)) }
        try await arrived.wait()
        let followers = (0..<3).map { _ in Task { try await client.perform(Fetch(url: url)) } }
        try await performer.callersWaitingGauge.wait(for: "4 callers waiting") { $0 == 4 }
        release.fire()
        for task in [leader] + followers {
            #expect(try await task.value == Data("the feed".utf8))
        }
        let attempts = recorder.scopes(.attempt)
        try #require(attempts.count == 1)
        let attempt = attempts[0]
        let requests = recorder.scopes(.request)
        try #require(requests.count == 4)
        let owner = recorder.root(of: attempt)
        #expect(requests.contains { $0 === owner })
        #expect(owner.links.isEmpty)
        let linked = requests.filter { $0 !== owner }
        #expect(linked.count == 3)
        for request in linked {
            #expect(request.links.map(\.id) == [attempt.id])
        }
    }

    /// A request that fails in its transport: every scope on its path fails with the error's code.
    @Test func reportsATransportFailureWithItsErrorType() async throws {
        server.route("GET", "/broken", response: LoopbackServer.Response(body: Data()).injecting(.closeWithoutResponse))
        let error = await #expect(throws: SluiceError.self) {
            try await client(SocketRequestPerformer()).perform(Fetch(url: server.url("/broken")))
        }
        #expect(error?.code == .transport)
        let request = try #require(recorder.scopes(.request).first)
        let transport = try #require(recorder.scopes(.stage, named: "transport").first)
        let attempt = try #require(recorder.scopes(.attempt).first)
        for scope in [request, transport, attempt] {
            #expect(scope.failed)
            #expect(scope.attributes[string: .errorType] == "transport")
        }
        #expect(request.attributes[.httpResponseStatusCode] == nil)
    }

    /// A status the client does not accept fails the request with the status as its error type.
    @Test func reportsAnUnacceptedStatusAsItsErrorType() async throws {
        server.route("GET", "/missing") { _ in .text("no", status: 404) }
        await #expect(throws: SluiceError.self) {
            try await client(SocketRequestPerformer()).perform(Fetch(url: server.url("/missing")))
        }
        let request = try #require(recorder.scopes(.request).first)
        let attempt = try #require(recorder.scopes(.attempt).first)
        #expect(request.failed)
        #expect(request.attributes[string: .errorType] == "404")
        #expect(request.attributes[int: .httpResponseStatusCode] == 404)
        #expect(attempt.failed)
        #expect(attempt.attributes[string: .errorType] == "404")
    }

    /// A cancelled request ends its scopes as cancelled.
    @Test func reportsACancelledRequest() async throws {
        let (arrived, release) = heldRoute("/slow", answering: "late")
        defer { release.fire() }
        let client = client(SocketRequestPerformer())
        let url = server.url("/slow")
        let task = Task { try await client.perform(Fetch(url: url)) }
        try await arrived.wait()
        task.cancel()
        let error = await #expect(throws: SluiceError.self) { try await task.value }
        #expect(error?.code == .cancelled)
        let request = try #require(recorder.scopes(.request).first)
        let attempt = try #require(recorder.scopes(.attempt).first)
        for scope in [request, attempt] {
            #expect(scope.failed)
            #expect(scope.attributes[string: .errorType] == "cancelled")
            #expect(scope.end != nil)
        }
    }

    /// A request that does not build is a request scope named `HTTP` with a failed build stage.
    @Test func reportsARequestThatDoesNotBuild() async throws {
        struct Unbuildable: Request {
            typealias ResponseObject = Data
            func build() throws -> URLRequest { throw CocoaError(.fileNoSuchFile) }
            var urlTemplate: String? { "/never" }
        }
        await #expect(throws: SluiceError.self) { try await client(SocketRequestPerformer()).perform(Unbuildable()) }
        let request = try #require(recorder.scopes(.request).first)
        #expect(request.name == "HTTP")
        #expect(request.failed)
        #expect(request.attributes[string: .errorType] == "build")
        #expect(recorder.children(of: request).map(\.name) == ["build"])
    }

    /// URLSession's performer reports its attempt and carries the trace context too; it reports no connection, which
    /// URLSession keeps to itself.
    @Test func reportsTheURLSessionPerformersAttempt() async throws {
        _ = try await client(NetworkRequestPerformer()).perform(TemplatedGet(url: server.url("/users/7")))
        let attempt = try #require(recorder.scopes(.attempt).first)
        #expect(recorder.scopes(.attempt).count == 1)
        #expect(attempt.parent?.name == "transport")
        #expect(attempt.attributes[int: .httpResponseStatusCode] == 200)
        #expect(recorder.scopes(.connection).isEmpty)
        let sent = try #require(server.receivedRequests.first)
        #expect(HTTPHeaders(sent.headers)[Header("traceparent")] == "00-attempt-\(attempt.id)-01")
    }

    /// Without an instrumentation nothing is written into the request.
    @Test func writesNothingWithoutAnInstrumentation() async throws {
        _ = try await APIClient(requestPerformer: SocketRequestPerformer()).perform(
            TemplatedGet(url: server.url("/users/7"))
        )
        let sent = try #require(server.receivedRequests.first)
        #expect(HTTPHeaders(sent.headers)[Header("traceparent")] == nil)
        #expect(recorder.scopes.isEmpty)
    }
}

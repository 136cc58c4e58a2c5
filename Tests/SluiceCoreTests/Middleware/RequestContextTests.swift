import ClientFixtures
import Foundation
import SluiceCore
import SluiceTesting
import Testing

/// A request that counts its builds in a header.
private struct Counted: Request {
    typealias ResponseObject = Data
    var url: URL
    var builds = Locked(0)

    func build() throws -> URLRequest {
        let count = builds.withLock { count in
            count += 1
            return count
        }
        var request = URLRequest(url: url)
        request.setValue(String(count), forHTTPHeaderField: "X-Build")
        request.setValue("built", forHTTPHeaderField: "X-Dropped")
        return request
    }
}

/// A performer that reports the context it sees, as a user's middleware would read it.
private struct ContextProbe: RequestPerformer {
    let base: any RequestPerformer
    let seen: Locked<[UInt64]>

    func perform(_ request: URLRequest) async throws -> HTTPResponse {
        try await RequestContext.withContext(for: request) { context in
            seen.withLock { $0.append(context.id) }
            return try await base.perform(request)
        }
    }
}

/// A performer that reports the operation name its context carries.
private struct NameProbe: RequestPerformer {
    let base: any RequestPerformer
    let seen: Locked<[String?]>

    func perform(_ request: URLRequest) async throws -> HTTPResponse {
        try await RequestContext.withContext(for: request) { context in
            seen.withLock { $0.append(context.operationName) }
            return try await base.perform(request)
        }
    }
}

@Suite struct RequestContextTests {
    let url: URL
    /// Waits of zero between attempts.
    let immediate = RetryingPerformer.Policy(maximumAttempts: 3, deadline: nil, randomFraction: { 0 })

    init() throws {
        url = try #require(URL(string: "https://api.example.com/items"))
    }

    @Test func runsAPerformerCalledDirectlyAsARequestOfItsOwn() async throws {
        let stub = StubPerformer(responses: [HTTPResponse(status: .badGateway), HTTPResponse(status: .ok)])
        let log = EventLog()
        // No client: the retry's call owns the context, and sends the observer its finish event when it ends.
        let performer = stub.observed(by: log).retrying(immediate)
        #expect(try await performer.perform(URLRequest(url: url)).status == .ok)
        let events = log.events
        #expect(events.map(\.kind) == [.started, .finished])
        #expect(Set(events.map(\.id)).count == 1)
        #expect(events.last?.attempts == 2)
        #expect(events.last?.response?.status == .ok)
        #expect(RequestContext.current == nil)
    }

    @Test func givesAUsersPerformerTheClientsContext() async throws {
        let seen = Locked<[UInt64]>([])
        let log = EventLog()
        let performer = ContextProbe(base: StubPerformer.json("{}"), seen: seen).observed(by: log)
        let client = APIClient(requestPerformer: performer)
        _ = try await client.perform(Counted(url: url))
        _ = try await client.perform(Counted(url: url))
        let ids = seen.withLock { $0 }
        #expect(ids.count == 2)
        #expect(ids[0] != ids[1], "a context per request")
        #expect(log.events.filter { $0.kind == .finished }.map(\.id) == ids)
    }

    @Test func rebuildsKeepingTheHeaderChangesOfOuterPerformers() throws {
        let request = Counted(url: url)
        let built = try request.build()
        let context = RequestContext(request: built, builtBy: request)
        var received = built
        received.setValue("Bearer abc", forHTTPHeaderField: "Authorization")
        received.setValue(nil, forHTTPHeaderField: "X-Dropped")
        let rebuilt = try context.rebuild(keepingChangesIn: received, for: "a retry")
        #expect(rebuilt.value(forHTTPHeaderField: "X-Build") == "2")
        #expect(rebuilt.value(forHTTPHeaderField: "Authorization") == "Bearer abc")
        #expect(rebuilt.value(forHTTPHeaderField: "X-Dropped") == nil)
        #expect(context.request.value(forHTTPHeaderField: "X-Build") == "1")
        #expect(context.canRebuild)
    }

    @Test func refusesToSendAStreamedBodyAgainWithoutTheRequestThatBuiltIt() throws {
        var streamed = URLRequest(url: url)
        streamed.httpMethod = "PUT"
        streamed.httpBodyStream = InputStream(data: Data("payload".utf8))
        let context = RequestContext(request: streamed)
        #expect(!context.canRebuild)
        let error = try #require(throws: SluiceError.self) {
            try context.rebuild(keepingChangesIn: streamed, for: "a retry")
        }
        #expect(error.code == .build)
        #expect(
            error.message
                == "cannot build the request again for a retry: a request with a body stream cannot be built again "
                + "without the Request that built it"
        )
        #expect(error.description.hasPrefix("error: cannot build the request again for a retry"))
    }

    @Test func sendsAStreamedBodyOnceWhenNoRequestCanBuildItAgain() async throws {
        let stub = StubPerformer(always: HTTPResponse(status: .serviceUnavailable))
        var streamed = URLRequest(url: url)
        streamed.httpMethod = "PUT"
        streamed.httpBodyStream = InputStream(data: Data("payload".utf8))
        #expect(try await stub.retrying(immediate).perform(streamed).status == .serviceUnavailable)
        #expect(stub.requests.count == 1)
    }

    @Test func countsAttemptsAndFailuresAndRegistersAnObserverOnce() {
        let context = RequestContext(request: URLRequest(url: url))
        #expect(context.attempts == 0)
        #expect(context.beginAttempt() == 1)
        context.noteFailure("503 Service Unavailable")
        #expect(context.beginAttempt() == 2)
        #expect(context.attempts == 2)
        #expect(context.failures == ["503 Service Unavailable"])
        let log = EventLog()
        #expect(context.register(log, id: ObjectIdentifier(log)))
        #expect(!context.register(log, id: ObjectIdentifier(log)))
        #expect(context.observers.count == 1)
        context.finish(response: HTTPResponse(status: .ok), error: nil, metrics: PipelineMetrics())
        #expect(log.events.map(\.attempts) == [2])
        #expect(log.events.map(\.id) == [context.id])
    }

    @Test func givesEachCallerOfASharedCallItsOwnContextAndTheSharedAttempts() async throws {
        let clock = TestClock()
        let served = Locked(0)
        // The first attempt fails after a while, so that both callers join the call; the retry's second succeeds.
        let flaky = StubPerformer { _ in
            let call = served.withLock { served in
                served += 1
                return served
            }
            guard call > 1 else {
                try await clock.sleep(for: .seconds(1))
                return HTTPResponse(status: .serviceUnavailable)
            }
            return HTTPResponse(status: .ok, body: Data("shared".utf8))
        }
        let inner = EventLog()
        let outer = EventLog()
        let deduplicated = flaky.observed(by: inner).retrying(immediate, clock: clock).deduplicated()
        let client = APIClient(requestPerformer: deduplicated.observed(by: outer))
        let url = self.url
        let callers = (0..<2).map { _ in
            Task { try await client.response(for: Counted(url: url, builds: Locked(0))) }
        }
        await clock.waitForSleepers()
        try await deduplicated.callersWaitingGauge.wait(for: "both callers waiting") { $0 == 2 }
        clock.advance(by: .seconds(1))
        for caller in callers {
            #expect(try await caller.value.value == Data("shared".utf8))
        }
        #expect(flaky.requests.count == 2)
        // Each caller reports its own request, with the shared call's two attempts.
        let finished = outer.events.filter { $0.kind == .finished }
        #expect(finished.count == 2)
        #expect(Set(finished.map(\.id)).count == 2)
        #expect(finished.map(\.attempts) == [2, 2])
        // Inside, the shared call is one request of its own, in neither caller's context.
        let shared = inner.events
        #expect(shared.map(\.kind) == [.started, .finished])
        #expect(shared.last?.attempts == 2)
        #expect(shared.allSatisfy { !finished.map(\.id).contains($0.id) })
    }

    /// The operation's name, given where the request was made (an OpenAPI transport's `operationID`), reaches every
    /// performer through the context; a context made for a performer called directly has none.
    @Test func carriesTheOperationNameToEveryPerformer() async throws {
        let seen = Locked<[String?]>([])
        let probe = NameProbe(
            base: StubPerformer(responses: [
                HTTPResponse(status: .badGateway), HTTPResponse(status: .ok), HTTPResponse(status: .ok),
            ]),
            seen: seen
        )
        let performer = probe.retrying(immediate)
        let context = RequestContext(request: URLRequest(url: url), operationName: "getItem")
        _ = try await context.run { _ in try await performer.perform(URLRequest(url: url)) }
        #expect(seen.withLock { $0 } == ["getItem", "getItem"])
        _ = try await probe.perform(URLRequest(url: url))
        #expect(seen.withLock { $0 }.last == .some(nil))
    }
}

/// The contexts of requests that other requests start.
@Suite struct NestedRequestContextTests {
    @Test func refreshesACredentialOutsideTheContextOfTheRefusedRequest() async throws {
        let api = try #require(URL(string: "https://api.example.com/items"))
        let tokenURL = try #require(URL(string: "https://auth.example.com/token"))
        // The token endpoint is busy once; the refresh sends its request through a retry of its own.
        let auth = StubPerformer(responses: [
            HTTPResponse(status: .serviceUnavailable),
            HTTPResponse(status: .ok, body: Data("fresh".utf8)),
        ])
        let retryingAuth = auth.retrying(
            RetryingPerformer.Policy(maximumAttempts: 3, randomFraction: { 0 }),
            clock: TestClock()
        )
        let tokens = CredentialStore(
            credential: CredentialStore.Credential(authorization: "Bearer stale"),
            hosts: ["api.example.com"]
        ) { _ in
            let response = try await retryingAuth.perform(URLRequest(url: tokenURL))
            return CredentialStore.Credential(authorization: "Bearer " + String(decoding: response.body, as: UTF8.self))
        }
        let service = StubPerformer { request in
            request.value(forHTTPHeaderField: "Authorization") == "Bearer fresh"
                ? HTTPResponse(status: .ok, body: Data("items".utf8)) : HTTPResponse(status: .unauthorized)
        }
        let client = APIClient(requestPerformer: service.authenticated(by: tokens))
        let response = try await client.response(for: Counted(url: api))
        #expect(response.value == Data("items".utf8))
        // Both token attempts went to the token endpoint: the retry did not rebuild the refused request.
        #expect(auth.requests.map(\.url) == [tokenURL, tokenURL])
        #expect(service.requests.count == 2)
    }
}

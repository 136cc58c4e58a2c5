import ClientFixtures
// The snippets of the "Production behaviour" article and of the transport decorators' documentation, verbatim
// where whole, completed where they are fragments.
import Foundation
import Sluice
import SluiceTesting
import Testing

private enum Article {
    static func signIn() async throws -> String { "token" }

    static func client() -> APIClient {
        let metrics = MetricsObserver()
        let tokens = CredentialStore(credential: nil, hosts: ["api.example.com"]) { _ in
            CredentialStore.Credential(authorization: "Bearer \(try await signIn())")
        }
        let client = APIClient(
            requestPerformer: NetworkRequestPerformer()
                .retrying(RetryingPerformer.Policy(maximumAttempts: 3, deadline: .seconds(20)))
                .authenticated(by: tokens)
                .deduplicated()
                .logged(redacting: Redaction.default.adding(jsonKeys: ["password"]))
                .observed(by: metrics),
            deadline: .seconds(30)
        )
        return client
    }
}

private enum Drips {
    static func client() -> APIClient {
        let client = APIClient(
            requestPerformer: SocketRequestPerformer(),
            deadline: .seconds(30)  // however slowly the body arrives
        )
        return client
    }
}

private enum APIDocs {
    static func refreshToken() async throws -> String { "fresh" }

    static func policies() -> [APIClient] {
        let policy = RetryingPerformer.Policy(maximumAttempts: 4, baseDelay: .milliseconds(200), deadline: .seconds(10))
        let retrying = APIClient(requestPerformer: NetworkRequestPerformer().retrying(policy))
        let byDefault = APIClient(requestPerformer: NetworkRequestPerformer().retrying(.default))
        return [retrying, byDefault]
    }

    static func tokens(savedToken: String) -> APIClient {
        let tokens = CredentialStore(
            credential: CredentialStore.Credential(authorization: "Bearer \(savedToken)"),
            hosts: ["api.example.com"]
        ) { expired in
            let token = try await refreshToken()
            return CredentialStore.Credential(authorization: "Bearer \(token)")
        }
        let client = APIClient(requestPerformer: NetworkRequestPerformer().authenticated(by: tokens))
        return client
    }

    struct SlowRequestReporter: RequestObserver {
        func observe(_ event: RequestEvent) {
            if event.kind == .finished, event.metrics.total > .seconds(1) {
                print("slow:", event.request.url?.absoluteString ?? "", event.metrics)
            }
        }
    }

    static func observers() -> [APIClient] {
        let metrics = MetricsObserver()
        let observed = APIClient(requestPerformer: NetworkRequestPerformer().observed(by: metrics))
        let logged = APIClient(requestPerformer: NetworkRequestPerformer().logged(bodyLimit: 1_024))
        let deduplicated = APIClient(requestPerformer: NetworkRequestPerformer().deduplicated())
        let snapshot = metrics.snapshot
        print(snapshot.finished, snapshot.failures, snapshot.averageTotal)
        return [observed, logged, deduplicated]
    }

    static func redaction() -> Redaction {
        let redaction = Redaction.default.adding(headers: ["X-Signature"], jsonKeys: ["pin"], queryItems: ["sig"])
        return redaction
    }

    static func timeLimits() -> APIClient {
        let client = APIClient(
            requestPerformer: NetworkRequestPerformer()
                .timeLimited(to: .seconds(5))  // each attempt
                .retrying(RetryingPerformer.Policy(maximumAttempts: 3))
                .timeLimited(to: .seconds(12))  // all of them
        )
        return client
    }

    static func curl(_ request: URLRequest) {
        print(request.curlCommand())
    }
}

@Suite struct ProductionSnippetsTests {
    /// The article's chain, the same decorators in the same order, on a stub transport and with the log collected:
    /// each attempt carries the credential, a transient failure is retried up to three attempts, and identical
    /// requests in flight share one transport call.
    @Test func articleChainRetriesAuthenticatesAndSharesRequests() async throws {
        let flakyCalls = Locked(0)
        let (release, gate) = AsyncStream<Void>.makeStream()
        let transport = StubPerformer { request in
            if request.url?.path == "/shared" {
                for await _ in release {}
                return HTTPResponse(status: .ok, body: Data("shared".utf8))
            }
            let call = flakyCalls.withLock { calls in
                calls += 1
                return calls
            }
            guard call > 2 else {
                return HTTPResponse(status: .serviceUnavailable, headers: [.retryAfter: "0"])
            }
            return HTTPResponse(status: .ok, body: Data("third time".utf8))
        }
        let metrics = MetricsObserver()
        let tokens = CredentialStore(credential: nil, hosts: ["api.example.com"]) { _ in
            CredentialStore.Credential(authorization: "Bearer \(try await Article.signIn())")
        }
        let log = Locked<[String]>([])
        // The article's deadlines, on a clock that only the test moves (it never does): on the real one they measured
        // how busy the machine was, and a run of a thousand tests on two cores could pass them.
        let clock = TestClock()
        // Held apart only so that the test sees the callers waiting for a shared call.
        let deduplicated =
            transport
            .retrying(RetryingPerformer.Policy(maximumAttempts: 3, deadline: .seconds(20)), clock: clock)
            .authenticated(by: tokens)
            .deduplicated()
        let client = APIClient(
            requestPerformer:
                deduplicated
                .logged(
                    redacting: Redaction.default.adding(jsonKeys: ["password"]),
                    to: { line in log.withLock { $0.append(line) } }
                )
                .observed(by: metrics),
            deadline: .seconds(30),
            clock: clock
        )
        let url = try #require(URL(string: "https://api.example.com/flaky"))
        #expect(try await client.perform(Raw(url: url)) == Data("third time".utf8))
        #expect(transport.requests.count == 3)
        #expect(transport.requests.allSatisfy { $0.value(forHTTPHeaderField: "Authorization") == "Bearer token" })
        #expect(await tokens.refreshes == 1)

        let shared = Raw(url: try #require(URL(string: "https://api.example.com/shared")))
        async let first = client.perform(shared)
        async let second = client.perform(shared)
        // The gate opens once both callers wait for the one transport call, so that neither can start another.
        try await deduplicated.callersWaitingGauge.wait(for: "both callers waiting for the shared call") { $0 == 2 }
        #expect(metrics.snapshot.started == 3)
        gate.finish()
        #expect(try await [first, second] == [Data("shared".utf8), Data("shared".utf8)])
        #expect(transport.requests.filter { $0.url?.path == "/shared" }.count == 1)
        #expect(metrics.snapshot.finished == 3)
        let lines = log.withLock { $0 }
        #expect(lines.filter { $0.contains("https://api.example.com/shared") }.count >= 2, "\(lines)")
    }

    @Test func apiDocumentationSnippetsBuildWhatTheyShow() async throws {
        #expect(APIDocs.redaction().headers.isSuperset(of: ["X-Signature", "X-API-Key", "Authorization"]))
        #expect(APIDocs.redaction().jsonKeys == Redaction.default.jsonKeys.union(["pin"]))
        #expect(APIDocs.redaction().jsonKeys.isSuperset(of: ["password", "accesstoken", "apikey", "xapikey"]))
        #expect(APIDocs.redaction().queryItems == ["sig"])
        #expect((APIDocs.timeLimits().requestPerformer as? TimeLimitedPerformer)?.limit == .seconds(12))
        #expect(APIDocs.policies().map { $0.requestPerformer is RetryingPerformer } == [true, true])
        #expect(APIDocs.tokens(savedToken: "saved").requestPerformer is AuthenticatingPerformer)
        let observers = await SnippetOutput.collect { _ = APIDocs.observers() }
        #expect(observers == ["0 [:] 0.0 seconds"])
        let login = URLRequest(url: try #require(URL(string: "https://api.example.com/login")))
        let curl = await SnippetOutput.collect { APIDocs.curl(login) }
        #expect(curl == ["curl 'https://api.example.com/login'"])
        let client = APIClient(
            requestPerformer: StubPerformer.json("{}").observed(by: APIDocs.SlowRequestReporter())
        )
        let slow = try await SnippetOutput.collect {
            _ = try await client.perform(Raw(url: try #require(URL(string: "https://example.com"))))
        }
        #expect(slow.isEmpty)
    }

    /// The article's refused request renders as it shows, and nothing is sent.
    @Test func aRefusedRequestRendersAsTheArticleShows() async throws {
        struct SendNote: Request {
            typealias ResponseObject = Void
            let note: String

            func build() throws -> URLRequest {
                var request = URLRequest(url: try testURL("https://api.example.com/notes"))
                request.allHTTPHeaderFields = ["X-Note": note]
                return request
            }
        }
        let stub = StubPerformer.json("{}")
        let error = await #expect(throws: SluiceError.self) {
            try await APIClient(requestPerformer: stub).perform(SendNote(note: "a\r\nX-Admin: 1"))
        }
        #expect(
            error?.description.hasPrefix(
                """
                error: cannot build the request: SendNote.headers.X-Note: the value contains the control character \
                U+000D, which would break the header
                  --> (request not built) [stage: build]
                """
            ) == true
        )
        #expect(stub.requests.isEmpty)
    }

    @Test func aDeadlineBoundsADrippingBody() {
        #expect(Drips.client().deadline == .seconds(30))
        #expect(Drips.client().requestPerformer is SocketRequestPerformer)
    }
}

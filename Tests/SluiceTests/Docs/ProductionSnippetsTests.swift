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
            Credential(authorization: "Bearer \(try await signIn())")
        }
        let client = APIClient(
            requestPerformer: NetworkRequestPerformer()
                .retrying(RetryPolicy(maximumAttempts: 3, deadline: .seconds(20)))
                .authenticated(by: tokens)
                .deduplicated()
                .logged(redacting: Redaction.default.adding(jsonKeys: ["password"]))
                .observed(by: metrics),
            deadline: .seconds(30)
        )
        return client
    }
}

private enum APIDocs {
    static func refreshToken() async throws -> String { "fresh" }

    static func policies() -> [APIClient] {
        let policy = RetryPolicy(maximumAttempts: 4, baseDelay: .milliseconds(200), deadline: .seconds(10))
        let retrying = APIClient(requestPerformer: NetworkRequestPerformer().retrying(policy))
        let byDefault = APIClient(requestPerformer: NetworkRequestPerformer().retrying(.default))
        return [retrying, byDefault]
    }

    static func tokens(savedToken: String) -> APIClient {
        let tokens = CredentialStore(
            credential: Credential(authorization: "Bearer \(savedToken)"),
            hosts: ["api.example.com"]
        ) { expired in
            let token = try await refreshToken()
            return Credential(authorization: "Bearer \(token)")
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
        let redaction = Redaction.default.adding(
            headers: ["X-API-Key"],
            jsonKeys: ["password", "token"],
            queryItems: ["sig"]
        )
        return redaction
    }

    static func timeLimits() -> APIClient {
        let client = APIClient(
            requestPerformer: NetworkRequestPerformer()
                .timeLimited(to: .seconds(5))  // each attempt
                .retrying(RetryPolicy(maximumAttempts: 3))
                .timeLimited(to: .seconds(12))  // all of them
        )
        return client
    }

    static func curl(_ request: URLRequest) {
        print(request.curlCommand())
    }
}

@Suite struct ProductionSnippetsTests {
    @Test func snippetsCompose() async throws {
        _ = Article.client()
        #expect(APIDocs.policies().count == 2)
        _ = APIDocs.tokens(savedToken: "saved")
        #expect(APIDocs.observers().count == 3)
        #expect(APIDocs.redaction().jsonKeys == ["password", "token"])
        #expect((APIDocs.timeLimits().requestPerformer as? TimeLimitedPerformer)?.limit == .seconds(12))
        APIDocs.curl(URLRequest(url: try #require(URL(string: "https://api.example.com/login"))))
        let recorder = StubPerformer.json("{}")
        let client = APIClient(requestPerformer: recorder.observed(by: APIDocs.SlowRequestReporter()))
        struct Get: Request {
            typealias ResponseObject = JSON
            func build() throws -> URLRequest { URLRequest(url: try #require(URL(string: "https://example.com"))) }
        }
        _ = try await client.perform(Get())
    }
}

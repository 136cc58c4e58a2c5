import Foundation
import HTTPTypes
import OpenAPIRuntime
import SluiceCore
import SluiceOpenAPI
import SluiceTesting
import Testing

/// Sluice's middleware on a generated client: what the reference transport has no answer for, shown against the same
/// server, with the reference's outcome beside it.
@Suite struct CatalogMiddlewareTests {
    /// A 503 with `Retry-After: 1` is tried again after the second the server asked for, measured on a test clock,
    /// and the second attempt's 200 is what the generated client sees; the reference hands out the 503.
    @Test(arguments: CatalogTransport.sluice)
    func retriesA503AfterItsRetryAfter(_ transport: CatalogTransport) async throws {
        let clock = TestClock()
        let policy = RetryingPerformer.Policy(maximumAttempts: 3, randomFraction: { 0 })
        let outcome = try await CatalogServer.with(CatalogService()) { serverURL in
            let client = transport.client(serverURL) { $0.retrying(policy, clock: clock) }
            async let output = client.getFlaky(path: .init(key: "retry"), query: .init(failures: 1))
            await clock.waitForSleepers(1)
            let wait = clock.sleepers.first.map { $0.offset - clock.now.offset }
            clock.advance(by: .seconds(1))
            return (try await output, wait)
        }
        #expect(try outcome.0.ok.body.json == .init(key: "retry", attempt: 2))
        #expect(outcome.1 == .seconds(1))
        let reference = try await CatalogServer.with(CatalogService()) { serverURL in
            try await CatalogTransport.asyncHTTPClient.client(serverURL)
                .getFlaky(path: .init(key: "retry"), query: .init(failures: 1))
        }
        #expect(try reference.serviceUnavailable.headers.retryAfter == 1)
    }

    /// A token the server no longer takes is refreshed once and the request replayed with the new one; the reference
    /// hands out the 401.
    @Test(arguments: CatalogTransport.sluice)
    func refreshesAnOldTokenOnce(_ transport: CatalogTransport) async throws {
        let service = CatalogService(currentToken: "token-2")
        let tokens = CredentialStore(
            credential: .init(authorization: "Bearer token-1"),
            hosts: ["127.0.0.1"]
        ) { _ in
            .init(authorization: "Bearer token-2")
        }
        let (first, second) = try await CatalogServer.with(service) { serverURL in
            let client = transport.client(serverURL) { $0.authenticated(by: tokens) }
            return (try await client.getSecret(), try await client.getSecret())
        }
        #expect(try first.ok.body.json == .init(secret: "open sesame", token: "token-2"))
        #expect(try second.ok.body.json.token == "token-2")
        #expect(await tokens.refreshes == 1)
        let reference = try await CatalogServer.with(service) { serverURL in
            try await CatalogTransport.asyncHTTPClient.client(serverURL).getSecret()
        }
        #expect(try reference.unauthorized.headers.wwwAuthenticate == "Bearer realm=\"catalog\"")
    }

    /// A response the server lets be cached for a minute answers the second call from the cache: the server counts
    /// one visit; without the cache, as on the reference, it counts two.
    @Test(arguments: CatalogTransport.sluice)
    func answersTheSecondCallFromTheCache(_ transport: CatalogTransport) async throws {
        let service = CatalogService()
        let cache = HTTPCache()
        let attempts = try await CatalogServer.with(service) { serverURL in
            let client = transport.client(serverURL) { $0.cached(in: cache) }
            let first = try await client.readCounter(path: .init(key: "c")).ok
            let second = try await client.readCounter(path: .init(key: "c")).ok
            return [try first.body.json.attempt, try second.body.json.attempt]
        }
        #expect(attempts == [1, 1])
        #expect(service.visits("counter/c") == 1)
        let uncached = CatalogService()
        let reference = try await CatalogServer.with(uncached) { serverURL in
            let client = CatalogTransport.asyncHTTPClient.client(serverURL)
            return [
                try await client.readCounter(path: .init(key: "c")).ok.body.json.attempt,
                try await client.readCounter(path: .init(key: "c")).ok.body.json.attempt,
            ]
        }
        #expect(reference == [1, 2])
    }

    /// Each request's context carries the operation's `operationId`, for every performer it goes through.
    @Test func givesTheOperationIDToTheRequestContext() async throws {
        let seen = Protected<[String?]>([])
        try await CatalogServer.with(CatalogService()) { serverURL in
            let client = CatalogTransport.sluiceSockets.client(serverURL) { OperationProbe(base: $0, seen: seen) }
            _ = try await client.getItem(path: .init(itemId: "42"))
            _ = try await client.checkItem(path: .init(itemId: "42"))
        }
        #expect(seen.withLock { $0 } == ["getItem", "checkItem"])
    }

    /// A field Sluice refuses fails before anything is sent, with the error a Sluice client gives, inside the
    /// runtime's `ClientError`.
    @Test func refusesAFieldAsAClientDoes() async throws {
        let error = await #expect(throws: ClientError.self) {
            try await CatalogServer.with(CatalogService()) { serverURL in
                let client = CatalogTransport.sluiceSockets.client(
                    serverURL,
                    middlewares: [FieldAdder(value: "a\u{85}b")]
                )
                _ = try await client.getItem(path: .init(itemId: "42"))
            }
        }
        let underlying = try #require(error?.underlyingError as? SluiceError)
        #expect(underlying.code == .build)
        #expect(
            underlying.invalidField?.description
                == "HTTPRequest.headers.X-Note: the value contains the control character U+0085, which would break the header"
        )
    }
}

/// Records the operation name of each request's context.
private struct OperationProbe: RequestPerformer {
    let base: any RequestPerformer
    let seen: Protected<[String?]>

    func perform(_ request: URLRequest) async throws -> SluiceCore.HTTPResponse {
        try await RequestContext.withContext(for: request) { context in
            seen.withLock { $0.append(context.operationName) }
            return try await base.perform(request)
        }
    }

    func stream(_ request: URLRequest) async throws -> SluiceCore.HTTPResponse.Streamed {
        try await RequestContext.withContext(forStreaming: request) { context in
            seen.withLock { $0.append(context.operationName) }
            return try await base.stream(request)
        }
    }
}

/// Adds an `X-Note` field to every request, as a user's client middleware might.
private struct FieldAdder: ClientMiddleware {
    let value: String

    func intercept(
        _ request: HTTPRequest,
        body: OpenAPIRuntime.HTTPBody?,
        baseURL: URL,
        operationID: String,
        next:
            @Sendable (HTTPRequest, OpenAPIRuntime.HTTPBody?, URL) async throws -> (
                HTTPTypes.HTTPResponse, OpenAPIRuntime.HTTPBody?
            )
    ) async throws -> (HTTPTypes.HTTPResponse, OpenAPIRuntime.HTTPBody?) {
        var request = request
        request.headerFields[try #require(HTTPField.Name("X-Note"))] = value
        return try await next(request, body, baseURL)
    }
}

import Foundation
import OpenAPIRuntime
import SluiceCore
import SluiceOpenAPI
import SluiceTesting
import Testing

/// A request body goes through Sluice's retry as the runtime says it can be read: one that can be iterated again is
/// sent again whole, one that can be iterated once fails the retry with an error that says why, rather than sending
/// a truncated body.
@Suite struct RequestBodyReplayTests {
    /// A server whose `PUT /v1/uploads` answers the first request 503 with `Retry-After: 0`, then says what it got.
    static func flakyUploads() throws -> (server: LoopbackServer, received: Protected<[Int]>) {
        let server = try LoopbackServer()
        let received = Protected<[Int]>([])
        server.route("PUT", "/v1/uploads") { request in
            let count = received.withLock { received in
                received.append(request.body.count)
                return received.count
            }
            guard count > 1 else {
                return LoopbackServer.Response(status: 503, headers: [.init("Retry-After", "0")])
            }
            return .json(#"{"size": \#(request.body.count), "checksum": 0}"#)
        }
        return (server, received)
    }

    @Test(arguments: CatalogTransport.sluice)
    func sendsABodyThatCanBeReadAgainOnEachAttempt(_ transport: CatalogTransport) async throws {
        let (server, received) = try Self.flakyUploads()
        defer { server.stop() }
        let client = transport.client(server.url("/v1")) { $0.retrying(.init(randomFraction: { 0 })) }
        let body = OpenAPIRuntime.HTTPBody(
            PatternBytes(size: 100_000),
            length: .known(100_000),
            iterationBehavior: .multiple
        )
        let summary = try await client.upload(body: .binary(body)).ok.body.json
        #expect(summary.size == 100_000)
        #expect(received.withLock { $0 } == [100_000, 100_000])
    }

    @Test func failsTheRetryOfABodyThatCanBeReadOnce() async throws {
        let (server, received) = try Self.flakyUploads()
        defer { server.stop() }
        let client = CatalogTransport.sluiceSockets.client(server.url("/v1")) {
            $0.retrying(.init(randomFraction: { 0 }))
        }
        let body = OpenAPIRuntime.HTTPBody(
            PatternBytes(size: 100_000),
            length: .known(100_000),
            iterationBehavior: .single
        )
        let error = await #expect(throws: ClientError.self) { try await client.upload(body: .binary(body)) }
        let failure = try #require(error?.underlyingError as? SluiceError)
        #expect(failure.code == .transport)
        #expect(failure.attemptFailures == ["503 Service Unavailable"])
        #expect(
            failure.message
                == "the request failed after 2 attempts, the last with the request body is an async sequence that can "
                + "be sent once, and was sent already; to send it again (a retry, a replay after 401, a redirect), give "
                + "the body as a function that makes a fresh sequence for each attempt"
        )
        #expect(received.withLock { $0 } == [100_000])
    }
}

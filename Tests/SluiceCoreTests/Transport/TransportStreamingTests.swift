import ClientFixtures
import Foundation
import SluiceCore
import SluiceTesting
import SluiceTransport
import Testing

/// The streaming form of both transports against the loopback server, each test once per transport.
@Suite struct TransportStreamingTests {
    let server: LoopbackServer

    init() throws {
        server = try LoopbackServer()
    }

    /// A response that never ends on its own: a terabyte, a kilobyte every 10 ms, so that a transfer that ends
    /// was ended by the client.
    static let endless = LoopbackServer.Response.generated(
        byteCount: 1 << 40,
        chunkSize: 1_024,
        pause: .milliseconds(10)
    )

    /// A body whose byte `i` is `i % 251`, so that a chunk out of place shows.
    static func pattern(_ count: Int) -> Data {
        LoopbackServer.Response.generatedBytes(in: 0..<Int64(count))
    }

    @Test(arguments: TransportKind.allCases)
    func streamsABodyInChunksThatAddUpToIt(_ kind: TransportKind) async throws {
        let origin = try await kind.origin(of: server)
        let body = Self.pattern(4 << 20)
        server.route("/big", response: LoopbackServer.Response(headers: [.init("X-Kind", "pattern")], body: body))
        let performer = kind.makePerformer()
        let response = try await performer.stream(URLRequest(url: origin.url("/big")))
        #expect(response.status == .ok)
        #expect(response.headers["x-kind"] == "pattern")
        #expect(response.body.expectedLength == Int64(body.count))
        var received = Data()
        var chunks = 0
        for try await chunk in response.body {
            received.append(chunk)
            chunks += 1
        }
        #expect(received == body)
        #expect(chunks > 1)
        try await requestsInFlightGauge(performer).wait(for: "the transfer to end") { $0 == 0 }
    }

    @Test(arguments: TransportKind.allCases)
    func streamsAChunkedBody(_ kind: TransportKind) async throws {
        let origin = try await kind.origin(of: server)
        let body = Self.pattern(100_000)
        server.route("/chunked", response: LoopbackServer.Response(body: body).injecting(.chunked(chunkSize: 1_000)))
        let response = try await kind.makePerformer().stream(URLRequest(url: origin.url("/chunked")))
        #expect(response.body.expectedLength == nil)
        #expect(try await response.body.collect(upTo: 1 << 20) == body)
    }

    @Test(arguments: TransportKind.allCases)
    func aConnectionCutMidBodyFailsTheBodyAfterTheBytesBeforeIt(_ kind: TransportKind) async throws {
        let origin = try await kind.origin(of: server)
        server.route(
            "/cut",
            response: LoopbackServer.Response(body: Self.pattern(10_000)).injecting(.closeMidBody(afterBytes: 3_000))
        )
        let performer = kind.makePerformer()
        let response = try await performer.stream(URLRequest(url: origin.url("/cut")))
        #expect(response.status == .ok)
        var received = Data()
        let error = await #expect(throws: (any Error).self) {
            for try await chunk in response.body {
                received.append(chunk)
            }
        }
        switch kind {
        case .urlSession:
            #expect(error is URLError)
        case .sockets, .socketsOverTLS:
            let message = (error as? SluiceError)?.message
            #expect(
                message
                    == "the server closed the connection after 3000 of 10000 bytes of the body (\(origin.hostAndPort))"
            )
        }
        #expect(received == Self.pattern(3_000))
    }

    @Test(arguments: TransportKind.allCases)
    func droppingTheBodyEndsTheTransfer(_ kind: TransportKind) async throws {
        let origin = try await kind.origin(of: server)
        server.route(
            "/slow",
            response: Self.endless
        )
        let performer = kind.makePerformer()
        do {
            let response = try await performer.stream(URLRequest(url: origin.url("/slow")))
            var iterator = response.body.makeAsyncIterator()
            _ = try await iterator.next()
        }
        try await requestsInFlightGauge(performer).wait(for: "the dropped body's transfer to end") { $0 == 0 }
    }

    @Test(arguments: TransportKind.allCases)
    func cancellingTheReadingTaskEndsTheTransferAtOnce(_ kind: TransportKind) async throws {
        let origin = try await kind.origin(of: server)
        server.route("/slow", response: Self.endless)
        let performer = kind.makePerformer()
        let response = try await performer.stream(URLRequest(url: origin.url("/slow")))
        let reader = Task {
            for try await _ in response.body {}
        }
        reader.cancel()
        await #expect(throws: CancellationError.self) { try await reader.value }
        try await requestsInFlightGauge(performer).wait(for: "the cancelled transfer to end") { $0 == 0 }
    }

    @Test(arguments: TransportKind.allCases)
    func cancellingBeforeTheHeadThrowsACancellation(_ kind: TransportKind) async throws {
        let origin = try await kind.origin(of: server)
        let arrived = Signal("the request at the server")
        server.route("/late") { _ in
            arrived.fire()
            // Longer than any run, however slow: the cancellation ends it, and the server's stop cuts the wait.
            return LoopbackServer.Response.text("late").delayed(by: .seconds(3_600))
        }
        let performer = kind.makePerformer()
        // Its idle timeout longer than any run too: only the cancellation may end it.
        let request = URLRequest(url: origin.url("/late"), timeoutInterval: 3_600)
        let streaming = Task { try await performer.stream(request) }
        try await arrived.wait()
        #expect(server.receivedRequests.count == 1)
        streaming.cancel()
        let error = await #expect(throws: (any Error).self) { try await streaming.value }
        #expect((error as? URLError)?.code == .cancelled || error is CancellationError)
        try await requestsInFlightGauge(performer).wait(for: "the cancelled transfer to end") { $0 == 0 }
    }

    /// URLSession's on Linux alone; Sluice's own transport stops reading instead.
    @Test func aReaderTooFarBehindFailsTheStreamWithAnErrorThatSaysSo() async throws {
        #if canImport(Darwin)
        // Apple platforms pause the transfer instead; see streamsABodyInChunksThatAddUpToIt.
        #else
        server.route("/big", response: LoopbackServer.Response(body: Self.pattern(4 << 20)))
        let performer = NetworkRequestPerformer(streamBufferLimit: 64 << 10)
        let response = try await performer.stream(URLRequest(url: server.url("/big")))
        try await requestsInFlightGauge(performer).wait(for: "the transfer to end") { $0 == 0 }
        let error = await #expect(throws: SluiceError.self) { try await response.body.collect(upTo: 8 << 20) }
        #expect(
            error?.message
                == "the reader of the streamed body fell more than 65536 bytes behind, the performer's stream buffer "
                + "limit; URLSession on this platform cannot pause a transfer"
        )
        #endif
    }

    @Test func aPerformerThatOnlyBuffersStreamsItsWholeBodyAsOneChunk() async throws {
        struct Fixed: RequestPerformer {
            func perform(_ request: URLRequest) async throws -> HTTPResponse {
                HTTPResponse(status: .created, headers: ["X-Fixed": "yes"], body: Data("all at once".utf8))
            }
        }
        let response = try await Fixed().stream(URLRequest(url: URL(string: "http://example.invalid/")!))
        #expect(response.status == .created)
        #expect(response.headers["x-fixed"] == "yes")
        var chunks: [Data] = []
        for try await chunk in response.body {
            chunks.append(chunk)
        }
        #expect(chunks == [Data("all at once".utf8)])
    }
}

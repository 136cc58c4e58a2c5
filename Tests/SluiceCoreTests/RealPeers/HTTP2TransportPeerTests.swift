import ClientFixtures
// Sluice's own transport over HTTP/2 against Python's `h2`, scripted for what a real server does to a connection:
// GOAWAY with requests in flight, refused streams, resets, trailers, request bodies in DATA frames.
import Foundation
import SluiceCore
import Testing

// URLRequest lives in FoundationNetworking on Linux; Apple platforms ship it inside Foundation.
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite(.enabled(if: nghttp2Loads || NginxServer.isRequired, "the system's nghttp2 could not be loaded"))
struct HTTP2TransportPeerTests {
    /// The scripted server, and a performer that speaks HTTP/2 to it by prior knowledge.
    func start() async throws -> (HTTP2Peer, SocketRequestPerformer)? {
        guard let peer = try await HTTP2Peer.start() else { return nil }
        var configuration = SocketRequestPerformer.Configuration(proxies: .none)
        configuration.http2.priorKnowledge = ["127.0.0.1:\(peer.port)"]
        return (peer, SocketRequestPerformer(configuration: configuration))
    }

    func url(_ peer: HTTP2Peer, _ path: String) throws -> URL {
        try #require(URL(string: "http://127.0.0.1:\(peer.port)\(path)"))
    }

    /// A request body goes out in DATA frames, whole, in order, and the server's answer comes back on one stream.
    @Test(arguments: [1, 70_000, 1_000_000])
    func aBodyIsSentWhole(size: Int) async throws {
        guard let (peer, performer) = try await start() else { return }
        var request = URLRequest(url: try url(peer, "/echo"))
        request.httpMethod = "POST"
        let body = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        request.httpBody = body
        let response = try await performer.perform(request)
        #expect(response.protocolVersion == "HTTP/2")
        #expect(response.headers["x-received"] == String(size))
        #expect(response.body == body)
    }

    /// A body from an async sequence of unknown length streams out as the producer gives it.
    @Test func anAsyncBodyIsSentWhole() async throws {
        guard let (peer, performer) = try await start() else { return }
        let chunks = (0..<20).map { Data(repeating: UInt8($0), count: 10_000) }
        var request = URLRequest(url: try url(peer, "/echo"))
        request.httpMethod = "POST"
        request.setBody(
            AsyncStream<Data> { continuation in
                for chunk in chunks { continuation.yield(chunk) }
                continuation.finish()
            }
        )
        let response = try await performer.perform(request)
        #expect(response.body == chunks.reduce(Data(), +))
    }

    /// Trailers after the body reach the response, as gRPC's `grpc-status` must.
    @Test func trailersReachTheResponse() async throws {
        guard let (peer, performer) = try await start() else { return }
        let response = try await performer.perform(URLRequest(url: try url(peer, "/trailers")))
        #expect(response.body == Data("body".utf8))
        #expect(response.trailers["x-checksum"] == "done")
    }

    /// A streamed response's trailers are there once its body has been read to its end.
    @Test func trailersReachAStreamedResponseAfterItsBody() async throws {
        guard let (peer, performer) = try await start() else { return }
        let response = try await performer.stream(URLRequest(url: try url(peer, "/trailers")))
        #expect(response.trailers.isEmpty)
        #expect(try await response.body.collect(upTo: 100) == Data("body".utf8))
        #expect(response.trailers["x-checksum"] == "done")
    }

    /// A POST whose stream the server refused is sent again on another stream, since the server never processed it
    /// (RFC 9113 section 8.7).
    @Test func aRefusedPostIsSentAgain() async throws {
        guard let (peer, performer) = try await start() else { return }
        var request = URLRequest(url: try url(peer, "/refused-once/post"))
        request.httpMethod = "POST"
        request.httpBody = Data("once".utf8)
        let response = try await performer.perform(request)
        #expect(response.status.code == 200)
    }

    /// A server that refuses every stream is asked a bounded number of times, and the error says so.
    @Test func aServerThatRefusesEveryStreamFailsTheRequest() async throws {
        guard let (peer, performer) = try await start() else { return }
        let error = await #expect(throws: SluiceError.self) {
            _ = try await performer.perform(URLRequest(url: try url(peer, "/reset")))
        }
        #expect(error?.message.contains("refused the HTTP/2 stream") == true)
        #expect(error?.message.contains("REFUSED_STREAM") == true)
    }

    /// A stream the server resets with an error fails its request with the error's name; the connection goes on.
    @Test func aResetStreamFailsOnlyItsRequest() async throws {
        guard let (peer, performer) = try await start() else { return }
        let error = await #expect(throws: SluiceError.self) {
            _ = try await performer.perform(URLRequest(url: try url(peer, "/reset-internal")))
        }
        #expect(error?.message == "the server reset the HTTP/2 stream with INTERNAL_ERROR (0x2) (RFC 9113 section 7)")
        let next = try await performer.perform(URLRequest(url: try url(peer, "/connection")))
        #expect(next.body == Data("1".utf8))
    }

    /// A request above the last stream a GOAWAY names was not processed: it goes again on a new connection, whatever
    /// its method.
    @Test func aRequestAboveTheGoAwaysLastStreamGoesToANewConnection() async throws {
        guard let (peer, performer) = try await start() else { return }
        let first = try await performer.perform(URLRequest(url: try url(peer, "/connection")))
        #expect(first.body == Data("1".utf8))
        var request = URLRequest(url: try url(peer, "/goaway-once/patch"))
        request.httpMethod = "PATCH"
        request.httpBody = Data("x".utf8)
        let response = try await performer.perform(request)
        #expect(response.body == Data("2".utf8))
    }

    /// After a GOAWAY that names the last stream processed, the connection drains and the next request opens a new
    /// one.
    @Test func aGoAwayDrainsTheConnection() async throws {
        guard let (peer, performer) = try await start() else { return }
        let answered = try await performer.perform(URLRequest(url: try url(peer, "/goaway-after")))
        #expect(answered.body == Data("1".utf8))
        let next = try await performer.perform(URLRequest(url: try url(peer, "/connection")))
        #expect(next.body == Data("2".utf8))
    }

    /// A large body streams under the stream's window: the window opens as the reader takes bytes.
    @Test func aLargeBodyStreamsThroughTheWindow() async throws {
        guard let peer = try await HTTP2Peer.start() else { return }
        var configuration = SocketRequestPerformer.Configuration(streamReadAhead: 16 << 10, proxies: .none)
        configuration.http2.priorKnowledge = ["127.0.0.1:\(peer.port)"]
        configuration.http2.streamWindow = 64 << 10
        let performer = SocketRequestPerformer(configuration: configuration)
        let size = 3_000_000
        let streamed = try await performer.stream(URLRequest(url: try url(peer, "/big/\(size)")))
        #expect(streamed.body.expectedLength == Int64(size))
        var received = 0
        var matches = true
        for try await chunk in streamed.body {
            for (offset, byte) in chunk.enumerated() where byte != UInt8((received + offset) % 251) {
                matches = false
            }
            received += chunk.count
        }
        #expect(received == size)
        #expect(matches)
    }

    /// Seven streams at once, by the server's settings: more requests than that wait for a stream, or take a second
    /// connection while the first is full; no more connections open than the limit makes needed.
    @Test func moreRequestsThanTheServersStreamLimitAllSucceed() async throws {
        guard let (peer, performer) = try await start() else { return }
        _ = try await performer.perform(URLRequest(url: try url(peer, "/hello")))
        let bodies = try await withThrowingTaskGroup(of: Data.self) { group in
            for _ in 0..<30 {
                group.addTask { try await performer.perform(URLRequest(url: try url(peer, "/connection"))).body }
            }
            return try await group.reduce(into: [Data]()) { $0.append($1) }
        }
        #expect(bodies.count == 30)
        let connections = Set(bodies.compactMap { Int(String(decoding: $0, as: UTF8.self)) })
        #expect(connections.count == Set(bodies).count)
        #expect((1...5).contains(connections.count))
    }

    /// A performer that checks the server with a PING whenever it has been silent at all, and waits `timeout` for the
    /// answer: two seconds by default, long enough for a loopback answer under a sanitizer on a busy machine.
    func startPinging(timeout: Duration = .seconds(2)) async throws -> (HTTP2Peer, SocketRequestPerformer)? {
        guard let peer = try await HTTP2Peer.start() else { return nil }
        var configuration = SocketRequestPerformer.Configuration(proxies: .none)
        configuration.http2.priorKnowledge = ["127.0.0.1:\(peer.port)"]
        configuration.http2.pingAfterSilence = .zero
        configuration.http2.pingTimeout = timeout
        return (peer, SocketRequestPerformer(configuration: configuration))
    }

    /// A request about to reuse a connection whose server went silent waits for a PING's answer, which never comes:
    /// it was never sent, so it goes to a new connection, though it is a POST.
    @Test func aConnectionThatNoLongerAnswersAPingIsNotReused() async throws {
        guard let (peer, performer) = try await startPinging() else { return }
        let first = try await performer.perform(URLRequest(url: try url(peer, "/silent-after")))
        #expect(first.body == Data("1".utf8))
        var request = URLRequest(url: try url(peer, "/connection"))
        request.httpMethod = "POST"
        request.httpBody = Data("once".utf8)
        let next = try await performer.perform(request)
        #expect(next.body == Data("2".utf8))
        #expect(next.protocolVersion == "HTTP/2")
    }

    /// A server that goes silent under a request is checked with a PING, and the connection dropped when no answer
    /// comes, long before the request's own timeout.
    @Test func aServerThatGoesSilentUnderARequestIsDropped() async throws {
        guard let (peer, performer) = try await startPinging() else { return }
        var request = URLRequest(url: try url(peer, "/silent"))
        request.httpMethod = "POST"
        request.httpBody = Data("hello".utf8)
        request.timeoutInterval = 600
        let error = await #expect(throws: SluiceError.self) {
            _ = try await performer.perform(request)
        }
        #expect(
            error?.message
                == "the server did not answer a PING within 2.0 seconds on the HTTP/2 connection to 127.0.0.1:\(peer.port)"
        )
        #expect((error?.underlyingError as? URLError)?.code == .networkConnectionLost)
    }

    /// A server that answers PINGs keeps its connection: every request of a sequence is carried by the first.
    @Test func aServerThatAnswersPingsKeepsItsConnection() async throws {
        guard let (peer, performer) = try await startPinging(timeout: .seconds(60)) else { return }
        for _ in 0..<5 {
            let response = try await performer.perform(URLRequest(url: try url(peer, "/connection")))
            #expect(response.body == Data("1".utf8))
        }
    }

    // MARK: Hostile servers

    /// A request body the server never makes room for stalls, and the request's timeout ends it; the stream is reset
    /// and the connection goes on.
    @Test func aWindowThatNeverOpensIsBoundedByTheTimeout() async throws {
        guard let (peer, performer) = try await start() else { return }
        var request = URLRequest(url: try url(peer, "/no-window"))
        request.httpMethod = "POST"
        request.httpBody = Data(count: 200_000)
        request.timeoutInterval = 1
        let error = await #expect(throws: URLError.self) {
            _ = try await performer.perform(request)
        }
        #expect(error?.code == .timedOut)
        #expect(error?.localizedDescription == "no byte of the response within the idle timeout of 1.00s")
        let next = try await performer.perform(URLRequest(url: try url(peer, "/connection")))
        #expect(next.body == Data("1".utf8))
    }

    /// Five thousand PINGs at once.
    ///
    /// nghttp2 queues at most 1,000 acknowledgements, and a server that sends more before this side can write fails
    /// the connection with an error that says so. When the acknowledgements drain
    /// as fast as they come (the bytes arrived in small reads), the request is answered.
    @Test func aPingFloodIsBoundedByTheQueuedAcknowledgements() async throws {
        guard let (peer, performer) = try await start() else { return }
        do {
            let response = try await performer.perform(URLRequest(url: try url(peer, "/ping-flood")))
            #expect(response.body == Data("1".utf8))
        } catch let error as SluiceError {
            #expect(
                error.message
                    == "the server broke HTTP/2 (RFC 9113): Flooding was detected in this HTTP/2 session, and it must "
                    + "be closed; the connection is closed"
            )
        }
    }

    /// A DATA frame on a stream the server already ended changes nothing.
    ///
    /// The response stands, its bytes go to no one (nghttp2 drops a frame on a stream it has closed, counting it against the connection's window), and the
    /// connection carries the next request.
    @Test func dataOnAnEndedStreamGoesToNoOne() async throws {
        guard let (peer, performer) = try await start() else { return }
        let answered = try await performer.perform(URLRequest(url: try url(peer, "/data-after-end")))
        #expect(answered.body == Data("1".utf8))
        let next = try await performer.perform(URLRequest(url: try url(peer, "/connection")))
        #expect(next.body == Data("1".utf8))
    }

    /// A server that accepts the connection and never sends its preface: the request's timeout ends the wait.
    @Test func aPrefaceThatNeverComesIsBoundedByTheTimeout() async throws {
        guard let mute = try await HTTP2Peer.start(mute: true) else { return }
        let port = mute.port
        var configuration = SocketRequestPerformer.Configuration(proxies: .none)
        configuration.http2.priorKnowledge = ["127.0.0.1:\(port)"]
        let performer = SocketRequestPerformer(configuration: configuration)
        var request = URLRequest(url: try #require(URL(string: "http://127.0.0.1:\(port)/hello")))
        request.timeoutInterval = 1
        let error = await #expect(throws: URLError.self) {
            _ = try await performer.perform(request)
        }
        #expect(error?.code == .timedOut)
        #expect(error?.localizedDescription == "no byte of the response within the idle timeout of 1.00s")
    }
}

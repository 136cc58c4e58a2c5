import Foundation
import SluiceCore
import SluiceTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Request bodies from async sequences on both transports: the bytes and their framing as the server receives them,
/// a sequence's error, cancellation, and the attempts a retry or a replay after 401 makes.
@Suite struct AsyncBodyTransportTests {
    let server: LoopbackServer

    init() throws {
        server = try LoopbackServer()
        // What arrived: the framing, then the body's length and its bytes.
        server.route("PUT", "/upload") { request in
            let framing =
                request.header("Content-Length").map { "length \($0)" }
                ?? request.header("Transfer-Encoding").map { "coding \($0)" } ?? "none"
            return .text("\(framing); \(request.body.count) bytes; \(request.bodyText)")
        }
    }

    /// Chunks of text, `count` of them, each its number and a space.
    static func words(_ count: Int) -> AsyncStream<Data> {
        AsyncStream { continuation in
            for index in 0..<count {
                continuation.yield(Data("\(index) ".utf8))
            }
            continuation.finish()
        }
    }

    static let wordsText = (0..<200).map { "\($0) " }.joined()

    func upload(_ kind: TransportKind, _ setBody: (inout URLRequest) -> Void) throws -> URLRequest {
        var request = URLRequest(url: server.url("/upload"))
        request.httpMethod = "PUT"
        setBody(&request)
        return request
    }

    @Test(arguments: TransportKind.plainCases)
    func aBodyOfKnownLengthArrivesWhole(_ kind: TransportKind) async throws {
        let length = Int64(Self.wordsText.utf8.count)
        let request = try upload(kind) { $0.setBody(Self.words(200), length: length) }
        let response = try await kind.makePerformer().perform(request)
        #expect(
            String(decoding: response.body, as: UTF8.self) == "length \(length); \(length) bytes; \(Self.wordsText)"
        )
    }

    @Test(arguments: TransportKind.plainCases)
    func aBodyOfUnknownLengthIsSentChunked(_ kind: TransportKind) async throws {
        let request = try upload(kind) { $0.setBody(Self.words(200)) }
        let response = try await kind.makePerformer().perform(request)
        // URLSession is handed the body whole, and sends its length.
        let count = Self.wordsText.utf8.count
        let framing = kind == .urlSession ? "length \(count)" : "coding chunked"
        #expect(String(decoding: response.body, as: UTF8.self) == "\(framing); \(count) bytes; \(Self.wordsText)")
    }

    @Test(arguments: TransportKind.plainCases)
    func aSequenceThatThrowsFailsTheRequestWithItsError(_ kind: TransportKind) async throws {
        struct Broken: Error, CustomStringConvertible {
            var description: String { "the upstream went away" }
        }
        let failing = AsyncThrowingStream<Data, any Error> { continuation in
            continuation.yield(Data("half".utf8))
            continuation.finish(throwing: Broken())
        }
        let request = try upload(kind) { $0.setBody(failing) }
        let error = await #expect(throws: SluiceError.self) { try await kind.makePerformer().perform(request) }
        #expect(error?.message == "the request body's async sequence failed: the upstream went away")
    }

    @Test(arguments: TransportKind.plainCases)
    func aLengthTheSequenceDoesNotKeepFailsTheRequest(_ kind: TransportKind) async throws {
        let request = try upload(kind) { $0.setBody(Self.words(3), length: 100) }
        let before = server.requestCount
        let error = await #expect(throws: SluiceError.self) { try await kind.makePerformer().perform(request) }
        #expect(error?.message == "the request body stream ended after 6 bytes, short of its Content-Length of 100")
        #expect(server.requestCount == before)
    }

    /// Cancelling the request stops a producer that is waiting: its sequence ends.
    @Test(arguments: TransportKind.plainCases)
    func cancellingTheRequestStopsTheProducer(_ kind: TransportKind) async throws {
        let (asked, asking) = AsyncStream<Void>.makeStream()
        let (ended, ending) = AsyncStream<Void>.makeStream()
        let (never, keepingOpen) = AsyncStream<Void>.makeStream()
        let calls = Locked(0)
        // A first chunk, then a wait that only cancellation ends.
        let endless = AsyncStream<Data>(unfolding: {
            let call = calls.withLock { count in
                count += 1
                return count
            }
            if call == 1 {
                asking.yield()
                return Data("start ".utf8)
            }
            for await _ in never {}
            ending.yield()
            return nil
        })
        let request = try upload(kind) { $0.setBody(endless) }
        let performer = kind.makePerformer()
        let task = Task { try await performer.perform(request) }
        for await _ in asked { break }
        task.cancel()
        await #expect(throws: (any Error).self) { try await task.value }
        for await _ in ended { break }
        keepingOpen.finish()
    }

    /// A retry sends a body made afresh for each attempt again from the start.
    @Test(arguments: TransportKind.plainCases)
    func aRetrySendsAFreshSequenceAgain(_ kind: TransportKind) async throws {
        let attempts = Locked(0)
        server.route("PUT", "/flaky") { request in
            let attempt = attempts.withLock { count in
                count += 1
                return count
            }
            return attempt == 1 ? .text("later", status: 503) : .text("got \(request.bodyText)")
        }
        var request = URLRequest(url: server.url("/flaky"))
        request.httpMethod = "PUT"
        request.setBody { Self.words(3) }
        let performer = kind.makePerformer().retrying(.init(maximumAttempts: 2, deadline: nil, randomFraction: { 0 }))
        let response = try await performer.perform(request)
        #expect(String(decoding: response.body, as: UTF8.self) == "got 0 1 2 ")
        #expect(attempts.withLock { $0 } == 2)
    }

    /// A sequence given once cannot be sent twice: the retry fails with an error that says what to do, rather than
    /// sending an empty or truncated body.
    @Test(arguments: TransportKind.plainCases)
    func aRetryOfASingleSequenceFailsClearly(_ kind: TransportKind) async throws {
        server.route("PUT", "/unavailable", response: .text("later", status: 503))
        var request = URLRequest(url: server.url("/unavailable"))
        request.httpMethod = "PUT"
        request.setBody(Self.words(3))
        let performer = kind.makePerformer().retrying(.init(maximumAttempts: 2, deadline: nil, randomFraction: { 0 }))
        let before = server.requestCount
        let error = await #expect(throws: SluiceError.self) { try await performer.perform(request) }
        #expect(
            error?.message
                == "the request failed after 2 attempts, the last with the request body is an async sequence that can be sent once, and was sent already; to send it again (a retry, a replay after 401, a redirect), give the body as a function that makes a fresh sequence for each attempt"
        )
        #expect(error?.attemptFailures.first == "503 Service Unavailable")
        #expect(server.requestCount == before + 1)
    }

    /// A replay after 401 sends a body made afresh for each attempt, with the refreshed credential.
    @Test(arguments: TransportKind.plainCases)
    func aReplayAfter401SendsTheBodyAgain(_ kind: TransportKind) async throws {
        server.route("PUT", "/guarded") { request in
            request.header("Authorization") == "Bearer fresh"
                ? .text("stored \(request.bodyText)") : .text("sign in", status: 401)
        }
        let store = CredentialStore(
            credential: .init(authorization: "Bearer stale"),
            hosts: ["127.0.0.1"],
            refresh: { _ in .init(authorization: "Bearer fresh") }
        )
        var request = URLRequest(url: server.url("/guarded"))
        request.httpMethod = "PUT"
        request.setBody(length: 6) { Self.words(3) }
        let response = try await kind.makePerformer().authenticated(by: store).perform(request)
        #expect(String(decoding: response.body, as: UTF8.self) == "stored 0 1 2 ")
    }
}

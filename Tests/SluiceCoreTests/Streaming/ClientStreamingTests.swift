import ClientFixtures
import Foundation
import SluiceCore
import SluiceTesting
import Testing

/// A performer that answers each streamed request with the next scripted head and body, and notes the requests.
final class ScriptedStreamPerformer: RequestPerformer {
    struct Reply: Sendable {
        var status: HTTPStatus = .ok
        var headers: HTTPHeaders = ["Content-Type": "text/event-stream"]
        var chunks: [String] = []
        var failure: (any Error & Sendable)?
    }

    private let replies: Locked<[Reply]>
    let requests = Locked<[URLRequest]>([])

    init(_ replies: [Reply]) {
        self.replies = Locked(replies)
    }

    func perform(_ request: URLRequest) async throws -> HTTPResponse {
        try await stream(request).collect(upTo: 1 << 20)
    }

    func stream(_ request: URLRequest) async throws -> HTTPResponse.Streamed {
        requests.withLock { $0.append(request) }
        guard let reply = replies.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else {
            throw URLError(.cannotConnectToHost)
        }
        let (body, writer) = HTTPBody.makeStream(expectedLength: nil)
        for chunk in reply.chunks {
            writer.write(Data(chunk.utf8))
        }
        writer.finish(throwing: reply.failure)
        return HTTPResponse.Streamed(status: reply.status, headers: reply.headers, body: body)
    }
}

@Suite struct ClientStreamingTests {
    let request = Raw(url: URL(fileURLWithPath: "/feed"))

    @Test func streamsTheBodyAndReportsItsBytesAndTimesWhenItEnds() async throws {
        let performer = ScriptedStreamPerformer([.init(headers: ["X-Head": "1"], chunks: ["abc", "defg"])])
        let log = EventLog()
        let client = APIClient(requestPerformer: performer.observed(by: log))
        let response = try await client.stream(request)
        #expect(response.headers["x-head"] == "1")
        #expect(log.events.map(\.kind) == [.started])
        #expect(String(decoding: try await response.body.collect(upTo: 100), as: UTF8.self) == "abcdefg")
        let finished = try #require(log.events.last)
        #expect(finished.kind == .finished)
        #expect(finished.error == nil)
        #expect(finished.metrics.responseBodyBytes == 7)
        #expect(finished.metrics.timeToFirstByte != nil)
        #expect(finished.metrics.streamedBody != nil)
        #expect(finished.response?.body.isEmpty == true)
    }

    @Test func aBodyCutShortFailsWithATransportErrorNamingTheBytesReceived() async throws {
        let performer = ScriptedStreamPerformer([
            .init(headers: ["Content-Length": "20"], chunks: ["0123456"], failure: URLError(.networkConnectionLost))
        ])
        let log = EventLog()
        let client = APIClient(requestPerformer: performer.observed(by: log))
        let response = try await client.stream(request)
        let error = await #expect(throws: SluiceError.self) { try await response.body.collect(upTo: 100) }
        #expect(error?.code == .transport)
        #expect(error?.stage == .transport)
        #expect(error?.message.hasPrefix("the response body failed after 7 of 20 bytes: ") == true)
        #expect(error?.request?.url == request.url)
        #expect(log.events.map(\.kind) == [.started, .finished])
        #expect(log.events.last?.error?.message == error?.message)
        #expect(log.events.last?.metrics.responseBodyBytes == 7)
    }

    @Test func droppingTheBodySendsTheFinishEventAsACancellation() async throws {
        let performer = ScriptedStreamPerformer([.init(chunks: ["unread"])])
        let log = EventLog()
        _ = try await APIClient(requestPerformer: performer.observed(by: log)).stream(request)
        let finished = try #require(log.events.last)
        #expect(finished.kind == .finished)
        #expect(finished.error?.code == .cancelled)
        #expect(finished.error?.message == "the response body was cancelled after 0 bytes")
    }

    @Test(.timeLimit(.minutes(1)))
    func leavingALoopEarlySendsTheFinishEventOnceWhileTheStreamIsStillHeld() async throws {
        let performer = ScriptedStreamPerformer([
            .init(headers: ["Content-Type": "text/plain"], chunks: ["one\ntwo\nthree\n"])
        ])
        let log = EventLog()
        let client = APIClient(requestPerformer: performer.observed(by: log))
        var held: ResponseStream<String>? = try await client.lines(request)
        for try await line in try #require(held) {
            #expect(line == "one")
            break
        }
        // The stream is still held; its loop is over, and so is the request.
        var arrivals = log.arrivals.makeAsyncIterator()
        #expect(await arrivals.next()?.kind == .started)
        let finished = try #require(await arrivals.next(), "no finish event while the stream is held")
        #expect(finished.kind == .finished)
        #expect(finished.error?.code == .cancelled)
        #expect(finished.error?.message == "the response body was cancelled after 14 bytes")
        #expect(finished.metrics.responseBodyBytes == 14)
        #expect(held?.response.status == .ok)
        held = nil
        #expect(log.events.map(\.kind) == [.started, .finished], "releasing the stream sends nothing more")
    }

    @Test(.timeLimit(.minutes(1)))
    func leavingAnEventLoopEarlySendsTheFinishEventWhileTheStreamIsStillHeld() async throws {
        let performer = ScriptedStreamPerformer([.init(chunks: ["data: first\n\ndata: second\n\n"])])
        let log = EventLog()
        let client = APIClient(requestPerformer: performer.observed(by: log))
        let events = try await client.events(request, reconnecting: nil)
        for try await event in events {
            #expect(event.data == "first")
            break
        }
        var arrivals = log.arrivals.makeAsyncIterator()
        #expect(await arrivals.next()?.kind == .started)
        let finished = try #require(await arrivals.next(), "no finish event while the stream is held")
        #expect(finished.kind == .finished)
        #expect(finished.error?.code == .cancelled)
        withExtendedLifetime(events) {}
    }

    @Test func releasingAStreamUnreadSendsTheFinishEvent() async throws {
        let performer = ScriptedStreamPerformer([.init(headers: ["Content-Type": "text/plain"], chunks: ["unread\n"])])
        let log = EventLog()
        _ = try await APIClient(requestPerformer: performer.observed(by: log)).lines(request)
        #expect(log.events.map(\.kind) == [.started, .finished])
        #expect(log.events.last?.error?.code == .cancelled)
    }

    @Test func anUnacceptedStatusFailsWithTheBodyReadForTheError() async throws {
        let performer = ScriptedStreamPerformer([
            .init(
                status: .notFound,
                headers: ["Content-Type": "application/json"],
                chunks: [#"{"error":"#, #""gone"}"#]
            )
        ])
        let error = await #expect(throws: SluiceError.self) {
            try await APIClient(requestPerformer: performer).stream(request)
        }
        #expect(error?.code == .status)
        #expect(error?.status == .notFound)
        #expect(error?.response?.body == Data(#"{"error":"gone"}"#.utf8))
    }

    @Test func readsLinesFromTheLoopbackServerAsTheyArrive() async throws {
        let server = try LoopbackServer()
        server.route(
            "/log",
            response: LoopbackServer.Response.text("one\ntwo\r\nthree").injecting(.chunked(chunkSize: 2))
        )
        let client = APIClient()
        var lines: [String] = []
        for try await line in try await client.lines(Raw(url: server.url("/log"))) {
            lines.append(line)
        }
        #expect(lines == ["one", "two", "three"])
    }

    @Test func decodesJSONLinesAndNamesTheLineThatDoesNotDecode() async throws {
        struct Record: Decodable, Sendable, Equatable {
            let id: Int
        }
        let performer = ScriptedStreamPerformer([.init(chunks: ["{\"id\":1}\n{\"id\":", "2}\n{\"id\":\"three\"}\n"])])
        let stream = try await APIClient(requestPerformer: performer).jsonLines(request, of: Record.self)
        var iterator = stream.makeAsyncIterator()
        #expect(try await iterator.next() == Record(id: 1))
        #expect(try await iterator.next() == Record(id: 2))
        let error = await #expect(throws: SluiceError.self) { try await iterator.next() }
        #expect(error?.code == .parse)
        #expect(error?.stage == .parse)
        #expect(error?.message.hasPrefix("stream line 3: cannot decode Record: ") == true)
        #expect((error?.underlyingError as? StreamParseError)?.line == 3)
    }

    @Test func aLineTooLongFailsInTheDeserializeStage() async throws {
        let performer = ScriptedStreamPerformer([.init(chunks: [String(repeating: "x", count: 40), "\n"])])
        let stream = try await APIClient(requestPerformer: performer).lines(request, maximumLength: 16)
        let error = await #expect(throws: SluiceError.self) {
            for try await _ in stream {}
        }
        #expect(error?.stage == .deserialize)
        #expect(error?.message == "line 1 is longer than the limit of 16 bytes")
    }

    @Test func cancellingTheReadingTaskEndsTheStreamAsCancelled() async throws {
        struct Endless: RequestPerformer {
            func perform(_ request: URLRequest) async throws -> HTTPResponse {
                throw URLError(.unsupportedURL)
            }

            func stream(_ request: URLRequest) async throws -> HTTPResponse.Streamed {
                HTTPResponse.Streamed(status: .ok, body: HTTPBody(EndlessChunks { _ in Data("tick\n".utf8) }))
            }
        }
        let stream = try await APIClient(requestPerformer: Endless()).lines(request)
        let task = Task {
            var count = 0
            for try await _ in stream {
                count += 1
                if count == 10 {
                    withUnsafeCurrentTask { $0?.cancel() }
                }
            }
            return count
        }
        let error = await #expect(throws: SluiceError.self) { try await task.value }
        #expect(error?.code == .cancelled)
    }

    @Test func anEventStreamMustSayItIsOne() async throws {
        let performer = ScriptedStreamPerformer([.init(headers: ["Content-Type": "application/json"], chunks: ["{}"])])
        let error = await #expect(throws: SluiceError.self) {
            try await APIClient(requestPerformer: performer).events(request)
        }
        #expect(error?.code == .deserialize)
        #expect(error?.message == #"the response is not an event stream: its Content-Type is "application/json""#)
    }

    @Test func reconnectsWithTheLastEventIDAfterTheServersRetryTime() async throws {
        let performer = ScriptedStreamPerformer([
            .init(chunks: ["retry: 5000\nid: 1\ndata: first\n\n", "id: 2\ndata: sec", "ond\n\n"]),
            .init(chunks: ["data: third\n\n"], failure: URLError(.networkConnectionLost)),
            .init(status: .noContent, headers: [:]),
        ])
        let clock = TestClock()
        let events = try await APIClient(requestPerformer: performer).events(request, clock: clock)
        let reader = Task {
            var data: [String] = []
            for try await event in events {
                data.append(event.data)
            }
            return data
        }
        await clock.waitForSleepers()
        #expect(clock.sleepers == [clock.now.advanced(by: .seconds(5))])
        clock.advance(by: .seconds(5))
        await clock.waitForSleepers()
        clock.advance(by: .seconds(5))
        #expect(try await reader.value == ["first", "second", "third"])
        let sent = performer.requests.withLock { $0.map { $0.value(forHTTPHeaderField: "Last-Event-ID") } }
        #expect(sent == [nil, "2", "2"])
    }

    @Test func givesUpAfterThePolicysAttemptsWithTheLastFailure() async throws {
        let performer = ScriptedStreamPerformer([.init(chunks: ["data: only\n\n"], failure: URLError(.timedOut))])
        let clock = TestClock()
        let policy = RetryingPerformer.Policy(maximumAttempts: 2)
        let events = try await APIClient(requestPerformer: performer).events(
            request,
            reconnecting: policy,
            clock: clock
        )
        let reader = Task {
            var data: [String] = []
            for try await event in events {
                data.append(event.data)
            }
            return data
        }
        await clock.waitForSleepers()
        clock.advance(by: .seconds(60))
        let error = await #expect(throws: SluiceError.self) { try await reader.value }
        #expect(error?.code == .transport)
        #expect(error?.message.contains("Could not connect") == true || error?.message.contains("URLError") == true)
        #expect(performer.requests.withLock { $0.count } == 2)
    }

    @Test func aStreamThatDoesNotReconnectEndsWithTheBody() async throws {
        let performer = ScriptedStreamPerformer([.init(chunks: ["data: a\n\ndata: b\n\n"])])
        let events = try await APIClient(requestPerformer: performer).events(request, reconnecting: nil)
        var data: [String] = []
        for try await event in events {
            data.append(event.data)
        }
        #expect(data == ["a", "b"])
        #expect(performer.requests.withLock { $0.count } == 1)
    }
}

import ClientFixtures
import Foundation
import SluiceCore
import SluiceTesting
import Testing

/// A test clock that says when a sleep on it has ended, however it ended.
private struct AnnouncingClock: Clock {
    let base: TestClock
    let woke: Signal

    var now: TestClock.Instant { base.now }
    var minimumResolution: Duration { base.minimumResolution }

    func sleep(until deadline: TestClock.Instant, tolerance: Duration?) async throws {
        defer { woke.fire() }
        try await base.sleep(until: deadline, tolerance: tolerance)
    }
}

@Suite struct MockStreamTests {
    struct Feed: Request {
        typealias ResponseObject = Data

        func build() throws -> URLRequest {
            URLRequest(url: URL(fileURLWithPath: "/feed"))
        }
    }

    @Test func aStubbedEventStreamArrivesEventByEventAsTheClockAllows() async throws {
        let clock = TestClock()
        let mock = MockClient()
        let events = [
            ServerSentEvent(data: "one"), ServerSentEvent(type: "done", data: "two\nlines", lastEventID: "9"),
        ]
        mock.stub(Feed.self, .stream(.events(events, every: .seconds(30), clock: clock)))
        let stream = try await mock.events(Feed(), reconnecting: nil)
        #expect(stream.response.headers[.contentType] == "text/event-stream")
        var iterator = stream.makeAsyncIterator()
        #expect(try await iterator.next() == ServerSentEvent(data: "one"))
        await clock.waitForSleepers()
        clock.advance(by: .seconds(30))
        #expect(try await iterator.next() == ServerSentEvent(type: "done", data: "two\nlines", lastEventID: "9"))
        #expect(try await iterator.next() == nil)
        try mock.verify()
    }

    @Test func aStubbedStreamFailsMidwayWithATransportErrorNamingTheBytes() async throws {
        let mock = MockClient()
        mock.stub(
            Feed.self,
            .stream(MockClient.StreamScript(parts: [.text("12345"), .failure(URLError(.networkConnectionLost))]))
        )
        let response = try await mock.stream(Feed())
        let error = await #expect(throws: SluiceError.self) { try await response.body.collect(upTo: 100) }
        #expect(error?.code == .transport)
        #expect(error?.message.hasPrefix("the response body failed after 5 bytes: ") == true)
    }

    @Test func performReadsAStubbedStreamWhole() async throws {
        let mock = MockClient()
        mock.stub(
            Feed.self,
            .stream(MockClient.StreamScript(parts: [.text("ab"), .pause(.milliseconds(1)), .text("cd")]))
        )
        #expect(try await mock.perform(Feed()) == Data("abcd".utf8))
    }

    @Test func aValueStubCannotStream() async throws {
        let mock = MockClient()
        mock.stub(Feed.self, .value(Data()))
        let error = await #expect(throws: SluiceError.self) { try await mock.stream(Feed()) }
        #expect(error?.message == "the stub for Feed answers a value, which cannot be streamed")
    }

    @Test func aStubbedStatusFailsTheStreamAsTheClientWould() async throws {
        let mock = MockClient()
        mock.stub(Feed.self, .json(#"{"message":"no"}"#, status: .forbidden))
        let error = await #expect(throws: SluiceError.self) { try await mock.lines(Feed()) }
        #expect(error?.code == .status)
        #expect(error?.response?.body == Data(#"{"message":"no"}"#.utf8))
    }

    @Test func aStreamingStubPerformerPlaysItsScriptForEveryRequest() async throws {
        let stub = StubPerformer(streaming: MockClient.StreamScript(parts: [.text("one\n"), .text("two\n")]))
        let client = APIClient(requestPerformer: stub)
        for _ in 0..<2 {
            var lines: [String] = []
            for try await line in try await client.lines(Feed()) {
                lines.append(line)
            }
            #expect(lines == ["one", "two"])
        }
        #expect(stub.requests.count == 2)
    }

    @Test func droppingAPlayedBodyStopsThePlay() async throws {
        let clock = TestClock()
        let pauseEnded = Signal("the play's pause ended")
        let stub = StubPerformer(
            streaming: MockClient.StreamScript(
                parts: [.pause(.seconds(1)), .text("never read")],
                clock: AnnouncingClock(base: clock, woke: pauseEnded)
            )
        )
        do {
            _ = try await stub.stream(URLRequest(url: URL(fileURLWithPath: "/feed")))
        }
        // The play is cancelled, so its pause ends without the clock moving.
        try await pauseEnded.wait()
        #expect(clock.sleepers.isEmpty)
        #expect(clock.now == TestClock.Instant(offset: .zero))
    }

    @Test(arguments: [
        ServerSentEvent(data: ""),
        ServerSentEvent(data: "plain"),
        ServerSentEvent(type: "update", data: "a\r\nb\rc\nd", lastEventID: "42", retry: .milliseconds(2_500)),
        ServerSentEvent(data: " leading space and: colon"),
    ])
    func anEncodedEventReadsBackAsItself(_ event: ServerSentEvent) async throws {
        let (chunks, input) = AsyncStream.makeStream(of: Data.self)
        input.yield(Data(event.encoded.utf8))
        input.finish()
        var read: [ServerSentEvent] = []
        for try await decoded in chunks.decodingServerSentEvents() {
            read.append(decoded)
        }
        var expected = event
        expected.data = event.data.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(
            of: "\r",
            with: "\n"
        )
        #expect(read == [expected])
    }
}

import Foundation
import Sluice
import SluiceTesting
import Testing

/// The built-in decorators' streaming form: what each does before the head, and what it does to the body after.
@Suite struct StreamingDecoratorTests {
    let request: URLRequest
    /// The clock of the waits and limits, moved only by the tests.
    let clock = TestClock()
    /// Waits of zero between attempts.
    let immediate = RetryPolicy(maximumAttempts: 3, deadline: .seconds(20), randomFraction: { 0 })

    init() throws {
        request = URLRequest(url: try testURL("https://api.example.com/feed"))
    }

    private static let unavailable = ScriptedStreams.Scripted(status: .serviceUnavailable, chunks: ["busy"])
    private static let hello = ScriptedStreams.Scripted(status: .ok, chunks: ["hel", "lo"], end: .finished)

    private func text(_ body: HTTPBody) async throws -> String {
        String(decoding: try await body.collect(upTo: 1 << 20), as: UTF8.self)
    }

    // MARK: - Observers

    @Test func reportsTheStartOfAStreamAndItsFinishWhenTheBodyEnds() async throws {
        let log = EventLog()
        let base = ScriptedStreams([Self.hello])
        // Called directly: the call owns its context, until the body ends.
        let response = try await base.observed(by: log).stream(request)
        #expect(log.events.map(\.kind) == [.started])
        #expect(try await text(response.body) == "hello")
        #expect(log.events.map(\.kind) == [.started, .finished])
        let finished = try #require(log.events.last)
        #expect(finished.response?.status == .ok)
        #expect(finished.response?.body.isEmpty == true, "the body was handed out, not kept")
        #expect(finished.metrics.responseBodyBytes == 5)
        #expect(finished.attempts == 1)
        #expect(finished.error == nil)
    }

    @Test func reportsAStreamDroppedBeforeItsEndAsCancelled() async throws {
        let log = EventLog()
        let base = ScriptedStreams([ScriptedStreams.Scripted(status: .ok, chunks: ["unread"])])
        _ = try await base.observed(by: log).stream(request)
        #expect(log.events.map(\.kind) == [.started, .finished])
        #expect(log.events.last?.error?.code == .cancelled)
        #expect(base.writers.first?.isTerminated == true)
    }

    @Test func leavesTheFinishOfAStreamToTheContextsOwner() async throws {
        let log = EventLog()
        let base = ScriptedStreams([Self.hello])
        let performer = base.observed(by: log)
        let context = RequestContext(request: request)
        let response = try await context.withCurrent { [request] in try await performer.stream(request) }
        #expect(try await text(response.body) == "hello")
        #expect(log.events.map(\.kind) == [.started])
        #expect(log.events.first?.id == context.id)
    }

    // MARK: - De-duplication

    @Test func neverSharesAStream() async throws {
        let base = ScriptedStreams { [clock] _, _ in
            try await clock.sleep(for: .seconds(1))
            return Self.hello
        }
        let performer = base.deduplicated()
        let request = self.request
        let streams = (0..<2).map { _ in Task { try await performer.stream(request) } }
        // Both identical streams are in the base performer at once.
        await clock.waitForSleepers(2)
        clock.advance(by: .seconds(1))
        for stream in streams {
            #expect(try await text(stream.value.body) == "hello")
        }
        #expect(base.requests.count == 2)
        #expect(performer.callsInFlight == 0)
    }
}

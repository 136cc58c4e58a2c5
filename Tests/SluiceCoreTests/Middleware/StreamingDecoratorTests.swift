import ClientFixtures
import Foundation
import SluiceCore
import SluiceTesting
import Testing

/// The built-in decorators' streaming form: what each does before the head, and what it does to the body after.
@Suite struct StreamingDecoratorTests {
    let request: URLRequest
    /// The clock of the waits and limits, moved only by the tests.
    let clock = TestClock()
    /// Waits of zero between attempts.
    let immediate = RetryingPerformer.Policy(maximumAttempts: 3, deadline: .seconds(20), randomFraction: { 0 })

    init() throws {
        request = URLRequest(url: try testURL("https://api.example.com/feed"))
    }

    private static let unavailable = ScriptedStreams.Scripted(status: .serviceUnavailable, chunks: ["busy"])
    private static let hello = ScriptedStreams.Scripted(status: .ok, chunks: ["hel", "lo"], end: .finished)

    private func text(_ body: HTTPBody) async throws -> String {
        String(decoding: try await body.collect(upTo: 1 << 20), as: UTF8.self)
    }

    // MARK: - Retry

    @Test func retriesA503HeadAndHandsOutTheNextBody() async throws {
        let base = ScriptedStreams([Self.unavailable, Self.hello])
        let response = try await base.retrying(immediate, clock: clock).stream(request)
        #expect(response.status == .ok)
        #expect(try await text(response.body) == "hello")
        #expect(base.requests.count == 2)
        #expect(base.writers.first?.isTerminated == true, "the retried 503's transfer was ended")
    }

    @Test func endsTheRetriedBodyBeforeWaitingForRetryAfter() async throws {
        var unavailable = Self.unavailable
        unavailable.headers = [.retryAfter: "2"]
        let base = ScriptedStreams([unavailable, Self.hello])
        let performer = base.retrying(immediate, clock: clock)
        let request = self.request
        let task = Task { try await performer.stream(request) }
        await clock.waitForSleepers()
        #expect(clock.sleepers == [clock.now.advanced(by: .seconds(2))])
        #expect(base.writers.first?.isTerminated == true, "the 503's transfer ended before the wait")
        clock.advance(by: .seconds(2))
        let response = try await task.value
        #expect(try await text(response.body) == "hello")
        #expect(base.requests.count == 2)
    }

    @Test func returnsTheLastRetryableHeadWithItsBodyToRead() async throws {
        let base = ScriptedStreams([
            ScriptedStreams.Scripted(status: .serviceUnavailable, chunks: ["busy"], end: .finished)
        ])
        let response = try await base.retrying(immediate, clock: clock).stream(request)
        #expect(response.status == .serviceUnavailable)
        #expect(try await text(response.body) == "busy")
        #expect(base.requests.count == 3)
    }

    @Test func cancelsTheTransferOfARetriedResponseOverTheNetwork() async throws {
        let server = try LoopbackServer()
        let served = Locked(0)
        server.route("/busy") { _ in
            served.withLock { served in
                served += 1
                // A 503 whose body would take a minute to arrive, then a quick 200.
                return served == 1
                    ? LoopbackServer.Response.text(String(repeating: "b", count: 20_000), status: 503)
                        .injecting(.drip(bytes: 100, every: .milliseconds(300)))
                    : .text("ready")
            }
        }
        let performer = NetworkRequestPerformer()
        let response = try await performer.retrying(immediate, clock: clock).stream(
            URLRequest(url: server.url("/busy"))
        )
        #expect(response.status == .ok)
        #expect(try await text(response.body) == "ready")
        // Fifteen seconds against the minute the 503's body would take, for a machine busy with other tests.
        try await performer.requestsInFlightGauge.wait(for: "the 503's transfer to end", timeout: .seconds(15)) {
            $0 == 0
        }
        #expect(server.receivedRequests.count == 2)
    }

    @Test func neverRetriesAnErrorInABodyHandedOut() async throws {
        let lost = URLError(.networkConnectionLost)
        let base = ScriptedStreams([ScriptedStreams.Scripted(status: .ok, chunks: ["part"], end: .failed(lost))])
        let response = try await base.retrying(immediate, clock: clock).stream(request)
        var iterator = response.body.makeAsyncIterator()
        #expect(try await iterator.next() == Data("part".utf8))
        let error = await #expect(throws: URLError.self) { try await iterator.next() }
        #expect(error?.code == .networkConnectionLost)
        #expect(base.requests.count == 1)
    }

    @Test func saysHowManyAttemptsFailedWhenNoHeadArrived() async throws {
        let refused = URLError(.cannotConnectToHost, userInfo: [NSLocalizedDescriptionKey: "connection refused"])
        let base = ScriptedStreams { _, _ in throw refused }
        let error = try await #require(throws: SluiceError.self) {
            try await base.retrying(immediate, clock: clock).stream(request)
        }
        #expect(base.requests.count == 3)
        #expect(error.attempts == 3)
        #expect(
            error.message == "the request failed after 3 attempts, the last with URLError -1004: connection refused"
        )
        #expect(
            error.description == """
                error: the request failed after 3 attempts, the last with URLError -1004: connection refused
                  --> GET https://api.example.com/feed [stage: transport]
                   |
                   | after 3 attempts; earlier ones failed with 1: URLError -1004: connection refused; 2: URLError -1004: connection refused
                """
        )
    }

    // MARK: - Authentication

    @Test func refreshesAndReplaysOnA401HeadBeforeAnyByte() async throws {
        // What the refresh saw of the 401's transfer.
        let scripted = Locked<ScriptedStreams?>(nil)
        let refusedEndedBeforeRefresh = Locked<Bool?>(nil)
        let store = CredentialStore(
            credential: CredentialStore.Credential(authorization: "Bearer old"),
            hosts: ["api.example.com"]
        ) {
            _ in
            refusedEndedBeforeRefresh.withLock { $0 = scripted.withLock { $0?.writers.first?.isTerminated } }
            return CredentialStore.Credential(authorization: "Bearer new")
        }
        let base = ScriptedStreams { request, _ in
            guard request.value(forHTTPHeaderField: "Authorization") == "Bearer new" else {
                return ScriptedStreams.Scripted(status: .unauthorized, chunks: ["denied"])
            }
            return Self.hello
        }
        scripted.withLock { $0 = base }
        let response = try await base.authenticated(by: store).stream(request)
        #expect(response.status == .ok)
        #expect(try await text(response.body) == "hello")
        #expect(base.requests.map { $0.value(forHTTPHeaderField: "Authorization") } == ["Bearer old", "Bearer new"])
        #expect(refusedEndedBeforeRefresh.withLock { $0 } == true, "the 401's transfer ended before the refresh")
        #expect(await store.refreshes == 1)
    }

    // MARK: - Time limit

    @Test func failsWhenNoHeadArrivesWithinTheLimit() async throws {
        let base = ScriptedStreams { [clock] _, _ in
            try await clock.sleep(for: .seconds(60))
            return Self.hello
        }
        let performer = base.timeLimited(to: .milliseconds(200), clock: clock)
        let request = self.request
        let task = Task { try await performer.stream(request) }
        // The head's wait and the limit's.
        await clock.waitForSleepers(2)
        clock.advance(by: .milliseconds(200))
        let error = try await #require(throws: URLError.self) { try await task.value }
        #expect(error.code == .timedOut)
        #expect(error.localizedDescription == "no response within the time limit of 200.00ms")
        #expect(clock.sleepers.isEmpty, "the 60-second head was cancelled")
    }

    @Test func failsTheBodyAndEndsItsTransferWhenTheLimitPassesWhileReading() async throws {
        let base = ScriptedStreams([ScriptedStreams.Scripted(status: .ok, chunks: ["abc"])])
        let response = try await base.timeLimited(to: .seconds(1), clock: clock).stream(request)
        let writer = try #require(base.writers.first)
        let (progress, report) = AsyncStream.makeStream(of: Int.self)
        let reader = Task {
            var received = 0
            for try await chunk in response.body {
                received += chunk.count
                report.yield(received)
            }
            return received
        }
        var reports = progress.makeAsyncIterator()
        #expect(await reports.next() == 3)
        let termination = Locked<HTTPBody.Termination?>(nil)
        writer.onTermination { reason in termination.withLock { $0 = reason } }
        // The rest of the limit, waited while the reader waits for the next chunk.
        await clock.waitForSleepers()
        #expect(clock.sleepers == [clock.now.advanced(by: .seconds(1))])
        clock.advance(by: .seconds(1))
        let error = try await #require(throws: URLError.self) { try await reader.value }
        #expect(error.code == .timedOut)
        #expect(
            error.localizedDescription == "the time limit of 1.00s passed while the body was being read, after 3 bytes"
        )
        #expect(termination.withLock { $0 } == .cancelled)
        #expect(writer.isTerminated)
    }

    @Test func failsTheBodyAtOnceWhenTheLimitPassedBetweenReads() async throws {
        let base = ScriptedStreams([ScriptedStreams.Scripted(status: .ok, chunks: ["a", "bc"])])
        let response = try await base.timeLimited(to: .seconds(1), clock: clock).stream(request)
        var iterator = response.body.makeAsyncIterator()
        #expect(try await iterator.next() == Data("a".utf8))
        // The reader takes its time: the limit bounds the whole stream, the reader's own time included.
        clock.advance(by: .seconds(2))
        let error = await #expect(throws: URLError.self) { try await iterator.next() }
        #expect(
            error?.localizedDescription == "the time limit of 1.00s passed while the body was being read, after 1 byte"
        )
        #expect(base.writers.first?.isTerminated == true)
        #expect(try await iterator.next() == nil, "a body that failed has ended")
    }

    @Test func passesABodyThatEndsWithinTheLimitThrough() async throws {
        let base = ScriptedStreams([Self.hello])
        let response = try await base.timeLimited(to: .seconds(30), clock: clock).stream(request)
        #expect(response.status == .ok)
        var iterator = response.body.makeAsyncIterator()
        #expect(try await iterator.next() == Data("hel".utf8))
        #expect(try await iterator.next() == Data("lo".utf8))
        #expect(try await iterator.next() == nil)
        #expect(clock.sleepers.isEmpty, "no wait is left behind")
        clock.advance(by: .seconds(60))
        #expect(try await iterator.next() == nil, "a body that ended stays ended, also once the limit has passed")
    }

    // MARK: - Observers

    @Test func reportsTheStartOfAStreamAndItsFinishWhenTheBodyEnds() async throws {
        let log = EventLog()
        let base = ScriptedStreams([Self.unavailable, Self.hello])
        // Called directly: the call owns its context, until the body ends.
        let response = try await base.retrying(immediate, clock: clock).observed(by: log).stream(request)
        #expect(log.events.map(\.kind) == [.started])
        #expect(try await text(response.body) == "hello")
        #expect(log.events.map(\.kind) == [.started, .finished])
        let finished = try #require(log.events.last)
        #expect(finished.response?.status == .ok)
        #expect(finished.response?.body.isEmpty == true, "the body was handed out, not kept")
        #expect(finished.metrics.responseBodyBytes == 5)
        #expect(finished.attempts == 2)
        #expect(finished.error == nil)
    }

    @Test func logsAndCountsAStreamWithoutItsBody() async throws {
        let lines = Locked<[String]>([])
        let metrics = MetricsObserver()
        let base = ScriptedStreams([Self.hello])
        let performer = base.observed(by: metrics).logged(bodyLimit: 1_024) { line in lines.withLock { $0.append(line) }
        }
        let response = try await performer.stream(request)
        #expect(try await text(response.body) == "hello")
        #expect(metrics.snapshot.finished == 1)
        #expect(metrics.snapshot.stageTotals.responseBodyBytes == 5)
        let finished = try #require(lines.withLock { $0 }.last)
        #expect(finished.hasPrefix("← #"))
        #expect(finished.hasSuffix(", 5 bytes in, 0 bytes out, 1 attempt"), "\(finished)")
        #expect(!finished.contains("body:"), "a streamed body is handed out, not kept, so never logged")
    }

    @Test func reportsAStreamDroppedBeforeItsEndAsCancelled() async throws {
        let log = EventLog()
        let base = ScriptedStreams([ScriptedStreams.Scripted(status: .ok, chunks: ["unread"])])
        _ = try await base.observed(by: log).stream(request)
        #expect(log.events.map(\.kind) == [.started, .finished])
        #expect(log.events.last?.error?.code == .cancelled)
        #expect(base.writers.first?.isTerminated == true)
    }

    @Test(.timeLimit(.minutes(1)))
    func reportsAStreamLeftBeforeItsEndOnceWhileTheResponseIsStillHeld() async throws {
        let log = EventLog()
        let base = ScriptedStreams([ScriptedStreams.Scripted(status: .ok, chunks: ["hel", "lo"])])
        // Called directly: the call owns its context, until its body's reader is done with it.
        var held: HTTPResponse.Streamed? = try await base.observed(by: log).stream(request)
        for try await chunk in try #require(held).body {
            #expect(chunk == Data("hel".utf8))
            break
        }
        var arrivals = log.arrivals.makeAsyncIterator()
        #expect(await arrivals.next()?.kind == .started)
        let finished = try #require(await arrivals.next(), "no finish event while the response is held")
        #expect(finished.kind == .finished)
        #expect(finished.error?.code == .cancelled)
        #expect(finished.metrics.responseBodyBytes == 3)
        #expect(base.writers.first?.isTerminated == true)
        #expect(held?.status == .ok)
        held = nil
        #expect(log.events.map(\.kind) == [.started, .finished], "releasing the response sends nothing more")
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

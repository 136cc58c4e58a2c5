import ClientFixtures
import Foundation
import SluiceCore
import SluiceTesting
import Testing

private struct Get: Request {
    typealias ResponseObject = Data
    var url: URL
    func build() throws -> URLRequest { URLRequest(url: url) }
}

@Suite struct TimeLimitedPerformerTests {
    /// The clock of the limits and of the slow performers' answers, moved only by the tests.
    let clock = TestClock()

    /// A performer that answers after `delay` on the test clock, noting whether it was cancelled while waiting.
    private func slow(_ delay: Duration, cancelled: Locked<Int>) -> StubPerformer {
        StubPerformer { [clock] _ in
            do {
                try await clock.sleep(for: delay)
            } catch {
                cancelled.withLock { $0 += 1 }
                throw error
            }
            return HTTPResponse(status: .ok, body: Data("done".utf8))
        }
    }

    @Test func passesAResponseWithinTheLimitThrough() async throws {
        let url = try testURL("https://api.example.com/report")
        let cancelled = Locked(0)
        let performer = slow(.milliseconds(1), cancelled: cancelled).timeLimited(to: .seconds(30), clock: clock)
        let task = Task { try await performer.perform(URLRequest(url: url)) }
        // The answer's wait and the limit's.
        await clock.waitForSleepers(2)
        clock.advance(by: .milliseconds(1))
        #expect(try await task.value.body == Data("done".utf8))
        #expect(cancelled.withLock { $0 } == 0)
        #expect(clock.sleepers.isEmpty, "the limit's wait ended with the answer")
    }

    @Test func cancelsTheTransportWhenTheLimitPasses() async throws {
        let url = try testURL("https://api.example.com/report")
        let cancelled = Locked(0)
        let client = APIClient(
            requestPerformer: slow(.seconds(60), cancelled: cancelled).timeLimited(to: .milliseconds(200), clock: clock)
        )
        let task = Task { try await client.perform(Get(url: url)) }
        await clock.waitForSleepers(2)
        clock.advance(by: .milliseconds(200))
        let error = try await #require(throws: SluiceError.self) { try await task.value }
        #expect(error.code == .timedOut)
        #expect(error.stage == .transport)
        #expect(
            error.description == """
                error: the request timed out during the transport stage
                  --> GET https://api.example.com/report [stage: transport]
                   |
                   | caused by: URLError -1001: no response within the time limit of 200.00ms
                """
        )
        #expect(clock.sleepers.isEmpty, "the 60-second answer was cancelled")
        #expect(cancelled.withLock { $0 } == 1)
    }

    @Test func limitsEachAttemptInsideARetryAndAllOfThemOutside() async throws {
        let url = try testURL("https://api.example.com/report")
        // The first two attempts hang; the third answers at once.
        let calls = Locked(0)
        let hanging = StubPerformer { [clock] _ in
            let call = calls.withLock { calls in
                calls += 1
                return calls
            }
            if call < 3 {
                try await clock.sleep(for: .seconds(60))
            }
            return HTTPResponse(status: .ok, body: Data("third".utf8))
        }
        // Waits of zero between attempts.
        let fast = RetryingPerformer.Policy(maximumAttempts: 3, deadline: .seconds(30), randomFraction: { 0 })
        let perAttempt = APIClient(
            requestPerformer: hanging.timeLimited(to: .milliseconds(100), clock: clock).retrying(fast, clock: clock)
        )
        let task = Task { try await perAttempt.response(for: Get(url: url)) }
        for _ in 1...2 {
            // A hanging attempt and its limit: the limit passes, and the attempt is retried.
            await clock.waitForSleepers(2)
            clock.advance(by: .milliseconds(100))
        }
        let response = try await task.value
        #expect(response.value == Data("third".utf8))
        #expect(hanging.requests.count == 3)

        // Outside the retry, one limit covers every attempt: the first hang uses it up.
        calls.withLock { $0 = 0 }
        let overall = APIClient(
            requestPerformer: hanging.retrying(fast, clock: clock).timeLimited(to: .milliseconds(100), clock: clock)
        )
        let overallTask = Task { try await overall.perform(Get(url: url)) }
        await clock.waitForSleepers(2)
        clock.advance(by: .milliseconds(100))
        let error = try await #require(throws: SluiceError.self) { try await overallTask.value }
        #expect(error.code == .timedOut)
        #expect(calls.withLock { $0 } == 1)
    }
}

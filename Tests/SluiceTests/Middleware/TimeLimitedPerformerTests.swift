import Foundation
import Sluice
import SluiceTesting
import Testing

private struct Get: Request {
    typealias ResponseObject = Data
    var url: URL
    func build() throws -> URLRequest { URLRequest(url: url) }
}

@Suite struct TimeLimitedPerformerTests {

    /// A performer that answers after `delay`, noting whether it was cancelled while waiting.
    private func slow(_ delay: Duration, cancelled: Locked<Int>) -> StubPerformer {
        StubPerformer { _ in
            do {
                try await Task.sleep(for: delay)
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
        let performer = slow(.milliseconds(1), cancelled: cancelled).timeLimited(to: .seconds(30))
        #expect(try await performer.perform(URLRequest(url: url)).body == Data("done".utf8))
        #expect(cancelled.withLock { $0 } == 0)
    }

    @Test func cancelsTheTransportWhenTheLimitPasses() async throws {
        let url = try testURL("https://api.example.com/report")
        let cancelled = Locked(0)
        let client = APIClient(
            requestPerformer: slow(.seconds(60), cancelled: cancelled).timeLimited(to: .milliseconds(200))
        )
        let start = ContinuousClock.now
        let error = try await #require(throws: SluiceError.self) { try await client.perform(Get(url: url)) }
        let elapsed = ContinuousClock.now - start
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
        #expect(elapsed < .seconds(30), "took \(elapsed)")
        #expect(cancelled.withLock { $0 } == 1)
    }

    @Test func limitsEachAttemptInsideARetryAndAllOfThemOutside() async throws {
        let url = try testURL("https://api.example.com/report")
        // The first two attempts hang; the third answers at once.
        let calls = Locked(0)
        let hanging = StubPerformer { _ in
            let call = calls.withLock { calls in
                calls += 1
                return calls
            }
            if call < 3 {
                try await Task.sleep(for: .seconds(60))
            }
            return HTTPResponse(status: .ok, body: Data("third".utf8))
        }
        let fast = RetryPolicy(maximumAttempts: 3, baseDelay: .milliseconds(5), deadline: .seconds(30))
        let perAttempt = APIClient(requestPerformer: hanging.timeLimited(to: .milliseconds(100)).retrying(fast))
        let response = try await perAttempt.response(for: Get(url: url))
        #expect(response.value == Data("third".utf8))
        #expect(hanging.requests.count == 3)

        // Outside the retry, one limit covers every attempt: the first hang uses it up.
        calls.withLock { $0 = 0 }
        let overall = APIClient(requestPerformer: hanging.retrying(fast).timeLimited(to: .milliseconds(100)))
        let error = try await #require(throws: SluiceError.self) { try await overall.perform(Get(url: url)) }
        #expect(error.code == .timedOut)
        #expect(calls.withLock { $0 } == 1)
    }
}

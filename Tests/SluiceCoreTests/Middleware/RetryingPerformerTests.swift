import Foundation
import SluiceCore
import SluiceTesting
import Testing

/// A JSON body the retry tests decode.
private struct Outcome: Decodable, Sendable {
    var ok: Bool
}

private struct Call: Request {
    typealias ResponseObject = Outcome
    var url: URL
    var method = "GET"
    var headers: [String: String] = [:]

    func build() throws -> URLRequest {
        var request = URLRequest(url: url)
        request.httpMethod = method
        for (name, value) in headers {
            request.setValue(value, forHTTPHeaderField: name)
        }
        return request
    }
}

/// A route that answers with the given responses in turn, then with the last one.
private func sequence(
    _ responses: [LoopbackServer.Response]
) -> @Sendable (LoopbackServer.Request) -> LoopbackServer.Response {
    let served = Locked(0)
    return { _ in
        let index = served.withLock { served in
            defer { served += 1 }
            return served
        }
        return responses[min(index, responses.count - 1)]
    }
}

@Suite struct RetryingPerformerTests {
    let server: LoopbackServer
    /// Waits of zero: the jitter draws no time at all.
    ///
    /// No deadline: it is measured on the real clock from the first
    /// attempt, which a machine busy with the rest of the suite can hold up for longer than any bound these tests
    /// could name; the deadline's own tests set one on the test clock.
    let fast = RetryingPerformer.Policy(
        maximumAttempts: 3,
        baseDelay: .milliseconds(5),
        deadline: nil,
        randomFraction: { 0 }
    )
    /// The clock the waits are measured on, moved only by the tests.
    let clock = TestClock()

    init() throws {
        server = try LoopbackServer()
    }

    private func client(_ policy: RetryingPerformer.Policy) -> APIClient {
        APIClient(requestPerformer: NetworkRequestPerformer().retrying(policy, clock: clock))
    }

    /// Waits until the retry sleeps, checks it asked for `delay`, and lets the wait pass (the one it asked for, so that
    /// a wrong wait fails the test rather than hangs it).
    private func passWait(of delay: Duration, sourceLocation: SourceLocation = #_sourceLocation) async {
        await clock.waitForSleepers()
        let asked = clock.sleepers.map { clock.now.duration(to: $0) }
        #expect(asked == [delay], sourceLocation: sourceLocation)
        clock.advance(by: asked.max() ?? delay)
    }

    @Test func carriesHeadersThatOuterPerformersAddedToEveryRebuiltAttempt() async throws {
        server.route(
            "GET",
            "/guarded",
            respond: sequence([.json(#"{"ok": false}"#, status: 503), .json(#"{"ok": true}"#)])
        )
        let tokens = CredentialStore(
            credential: CredentialStore.Credential(authorization: "Bearer abc"),
            hosts: ["127.0.0.1"]
        ) { _ in
            CredentialStore.Credential(authorization: "Bearer refreshed")
        }
        // The retry is inside the authentication: each attempt is rebuilt, and must still carry the credential.
        let client = APIClient(requestPerformer: NetworkRequestPerformer().retrying(fast).authenticated(by: tokens))
        let call = Call(url: server.url("/guarded"), headers: ["X-Trace": "built"])
        #expect(try await client.perform(call).ok)
        #expect(server.receivedRequests.map { $0.header("Authorization") } == ["Bearer abc", "Bearer abc"])
        #expect(server.receivedRequests.map { $0.header("X-Trace") } == ["built", "built"])
    }

    @Test func honoursRetryAfterAndSucceedsOnTheThirdAttempt() async throws {
        let unavailable = LoopbackServer.Response.json(#"{"ok": false}"#, status: 503).addingHeader("Retry-After", "1")
        server.route("GET", "/flaky", respond: sequence([unavailable, unavailable, .json(#"{"ok": true}"#)]))
        let client = client(fast)
        let task = Task { try await client.response(for: Call(url: server.url("/flaky"))) }
        // Two waits of the second Retry-After asks for.
        await passWait(of: .seconds(1))
        await passWait(of: .seconds(1))
        let response = try await task.value
        #expect(response.value.ok)
        #expect(server.receivedRequests.count == 3)
        #expect(clock.now.offset == .seconds(2))
    }

    @Test func readsRetryAfterAsAnHTTPDate() async throws {
        // An hour ahead, so that however slow the machine the date is still ahead when the performer reads it and the
        // wait is always one the test clock sees (a date already past asks for no wait at all); no policy deadline,
        // so that the hour is waited.
        let written = Date()
        let inAnHour = written.addingTimeInterval(3600)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let limited = LoopbackServer.Response.json(#"{"ok": false}"#, status: 429)
            .addingHeader("Retry-After", formatter.string(from: inAnHour))
        server.route("GET", "/limited", respond: sequence([limited, .json(#"{"ok": true}"#)]))
        var patient = fast
        patient.deadline = nil
        let client = client(patient)
        let task = Task { try await client.perform(Call(url: server.url("/limited"))) }
        await clock.waitForSleepers()
        let read = Date()
        // The date has whole seconds, and the performer compared it with its own clock somewhere between `written`
        // and `read`: the wait is what was left of the hour then.
        let asked = try #require(clock.sleepers.first).offset
        let shortest = inAnHour.timeIntervalSince1970.rounded(.down) - read.timeIntervalSince1970
        #expect(asked <= .seconds(3600), "asked for \(asked)")
        #expect(asked >= .milliseconds(Int64((shortest * 1000).rounded(.down))), "asked for \(asked)")
        clock.advance(by: asked)
        #expect(try await task.value.ok)
        #expect(server.receivedRequests.count == 2)
    }

    @Test func doesNotRetryAPostUnlessItOptsIn() async throws {
        server.route("POST", "/orders", response: .json(#"{"ok": false}"#, status: 503))
        let plain = try await #require(throws: SluiceError.self) {
            try await client(fast).perform(Call(url: server.url("/orders"), method: "POST"))
        }
        #expect(plain.status == .serviceUnavailable)
        #expect(plain.attempts == 1)
        #expect(server.receivedRequests.count == 1)

        let keyed = try await #require(throws: SluiceError.self) {
            try await client(fast).perform(
                Call(url: server.url("/orders"), method: "POST", headers: ["Idempotency-Key": "order-17"])
            )
        }
        #expect(keyed.attempts == 3)
        #expect(server.receivedRequests.count == 4)

        var anyMethod = fast
        anyMethod.retriesNonIdempotentMethods = true
        _ = try? await client(anyMethod).perform(Call(url: server.url("/orders"), method: "POST"))
        #expect(server.receivedRequests.count == 7)
    }

    @Test func saysHowManyAttemptsFailedAndWhy() async throws {
        server.route("GET", "/down", response: .json(#"{"ok": false}"#, status: 503))
        let error = try await #require(throws: SluiceError.self) {
            try await client(fast).perform(Call(url: server.url("/down")))
        }
        #expect(error.code == .status)
        #expect(error.attempts == 3)
        #expect(error.attemptFailures == ["503 Service Unavailable", "503 Service Unavailable"])
        #expect(
            error.description.contains(
                "   | after 3 attempts; earlier ones failed with 1: 503 Service Unavailable; 2: 503 Service Unavailable"
            )
        )
    }

    @Test func retriesTransportFailuresThenReportsThemAll() async throws {
        server.route("GET", "/dropped", response: LoopbackServer.Response(fault: .resetConnection))
        let error = try await #require(throws: SluiceError.self) {
            try await client(fast).perform(Call(url: server.url("/dropped")))
        }
        #expect(error.code == .transport)
        #expect(error.attempts == 3)
        #expect(error.attemptFailures.count == 2)
        #expect(error.message.hasPrefix("the request failed after 3 attempts, the last with URLError"))
        #expect(server.receivedRequests.count == 3)
    }

    @Test(arguments: [URLError.Code.timedOut, .cannotConnectToHost, .networkConnectionLost])
    func retriesTransientTransportFailuresWithoutAClient(_ code: URLError.Code) async throws {
        let stub = StubPerformer { _ in throw URLError(code) }
        let url = try #require(URL(string: "https://api.example.com/flaky"))
        // Called directly, with no client around it: the error still counts the attempts and their failures.
        let error = try await #require(throws: SluiceError.self) {
            try await stub.retrying(fast, clock: clock).perform(URLRequest(url: url))
        }
        #expect(stub.requests.count == 3)
        #expect(error.code == (code == .timedOut ? .timedOut : .transport))
        #expect(error.attempts == 3)
        #expect(error.attemptFailures.count == 2)
        #expect(error.message.hasPrefix("the request failed after 3 attempts, the last with URLError"))
    }

    @Test func retriesOnlyTheStatusesAndErrorsThePolicyNames() async throws {
        var policy = fast
        policy.retryableStatuses = [418]
        policy.retryableErrors = []
        let teapot = StubPerformer(always: HTTPResponse(status: 418))
        let url = try #require(URL(string: "https://api.example.com/tea"))
        #expect(try await teapot.retrying(policy, clock: clock).perform(URLRequest(url: url)).status.code == 418)
        #expect(teapot.requests.count == 3)
        let unavailable = StubPerformer(always: HTTPResponse(status: .serviceUnavailable))
        _ = try await unavailable.retrying(policy).perform(URLRequest(url: url))
        #expect(unavailable.requests.count == 1)
        let lost = StubPerformer { _ in throw URLError(.networkConnectionLost) }
        await #expect(throws: URLError.self) { try await lost.retrying(policy).perform(URLRequest(url: url)) }
        #expect(lost.requests.count == 1)
    }

    @Test func followsRetryAfterOnlyFor429And503() async throws {
        // A 500 asking for 30 seconds is retried after the policy's own short backoff.
        let failing = StubPerformer(always: HTTPResponse(status: .internalServerError, headers: ["Retry-After": "30"]))
        let url = try #require(URL(string: "https://api.example.com/boom"))
        var halfJitter = fast
        halfJitter.randomFraction = { 0.5 }
        let performer = failing.retrying(halfJitter, clock: clock)
        let task = Task { try await performer.perform(URLRequest(url: url)) }
        await passWait(of: .microseconds(2_500))
        await passWait(of: .milliseconds(5))
        _ = try await task.value
        #expect(failing.requests.count == 3)
    }

    @Test func startsNoAttemptWhoseBackoffPassesTheDeadline() async throws {
        let failing = StubPerformer(always: HTTPResponse(status: .badGateway))
        let url = try #require(URL(string: "https://api.example.com/boom"))
        // The drawn wait is 10 seconds, past the 1-second deadline: one attempt, then the 502 as it is.
        let policy = RetryingPerformer.Policy(
            maximumAttempts: 5,
            baseDelay: .seconds(20),
            maximumDelay: .seconds(20),
            deadline: .seconds(1),
            randomFraction: { 0.5 }
        )
        #expect(try await failing.retrying(policy, clock: clock).perform(URLRequest(url: url)).status == .badGateway)
        #expect(failing.requests.count == 1)
        #expect(clock.sleepers.isEmpty)
    }

    @Test func startsNoAttemptAfterTheDeadline() async throws {
        let later = LoopbackServer.Response.json(#"{"ok": false}"#, status: 503).addingHeader("Retry-After", "30")
        server.route("GET", "/later", response: later)
        var policy = fast
        policy.deadline = .seconds(2)
        let error = try await #require(throws: SluiceError.self) {
            try await client(policy).perform(Call(url: server.url("/later")))
        }
        #expect(error.status == .serviceUnavailable)
        #expect(server.receivedRequests.count == 1)
        // The 30-second wait was never begun.
        #expect(clock.sleepers.isEmpty)
        #expect(clock.now.offset == .zero)
    }

    @Test func stopsWaitingAtOnceWhenCancelled() async throws {
        let later = LoopbackServer.Response.json(#"{"ok": false}"#, status: 503).addingHeader("Retry-After", "20")
        server.route("GET", "/wait", response: later)
        let client = client(RetryingPerformer.Policy(maximumAttempts: 3, deadline: .seconds(60)))
        let task = Task { try await client.perform(Call(url: server.url("/wait"))) }
        await clock.waitForSleepers()
        #expect(clock.sleepers == [clock.now.advanced(by: .seconds(20))])
        task.cancel()
        let error = try await #require(throws: SluiceError.self) { try await task.value }
        // The 20-second wait ended with cancel(), the clock never moving.
        #expect(error.code == .cancelled)
        #expect(clock.sleepers.isEmpty)
        #expect(clock.now.offset == .zero)
        #expect(server.receivedRequests.count == 1)
    }

    @Test func drawsBackoffWithFullJitterUnderAGrowingCeiling() {
        let low = RetryingPerformer.Policy(
            baseDelay: .milliseconds(100),
            maximumDelay: .seconds(1),
            randomFraction: { 0 }
        )
        let high = RetryingPerformer.Policy(
            baseDelay: .milliseconds(100),
            maximumDelay: .seconds(1),
            randomFraction: { 0.999_999 }
        )
        #expect(low.backoff(before: 2) == .zero)
        #expect(high.backoff(before: 2) <= .milliseconds(100))
        #expect(high.backoff(before: 3) > .milliseconds(199))
        #expect(high.backoff(before: 4) > .milliseconds(399))
        #expect(high.backoff(before: 10) <= .seconds(1))
    }

    @Test func rebuildsTheRequestForEachAttempt() async throws {
        let built = Locked(0)
        struct Counted: Request {
            typealias ResponseObject = Outcome
            var url: URL
            var built: Locked<Int>
            func build() throws -> URLRequest {
                let count = built.withLock { count in
                    count += 1
                    return count
                }
                var request = URLRequest(url: url)
                request.setValue(String(count), forHTTPHeaderField: "X-Build")
                return request
            }
        }
        let unavailable = LoopbackServer.Response.json(#"{"ok": false}"#, status: 502)
        server.route("GET", "/rebuild", respond: sequence([unavailable, .json(#"{"ok": true}"#)]))
        #expect(try await client(fast).perform(Counted(url: server.url("/rebuild"), built: built)).ok)
        #expect(server.receivedRequests.map { $0.header("X-Build") } == ["1", "2"])
    }
}

import Dispatch
import SluiceCore

/// Something a test waits for that the code it drives says has happened: a stub, a route or a refresh closure fires
/// the signal when the awaited thing happens, and the test waits for it rather than sleeping or polling.
///
/// ```swift
/// let arrived = Signal("the request at the server")
/// server.route("/slow") { _ in
///     arrived.fire()
///     return LoopbackResponse.text("late").delayed(by: .seconds(30))
/// }
/// let task = Task { try await client.perform(Slow(url: server.url("/slow"))) }
/// try await arrived.wait()
/// task.cancel()
/// ```
///
/// The signal counts how often it was fired, so a test can wait for the second time as well as the first. A wait is
/// bounded so that a regression fails the test rather than hangs it; the bound is a guard, never a measure: a wait
/// ends as soon as the signal fires.
package final class Signal: Sendable {
    /// One task or thread waiting for the signal's count to reach ``count``.
    private struct Waiter {
        var count: Int
        var wake: @Sendable (Result<Void, any Error>) -> Void
    }

    private struct State {
        var fired = 0
        var nextWaiter = 0
        var waiters: [Int: Waiter] = [:]
        /// Waits that gave up (timed out or were cancelled) before they began to wait, with what they end with.
        var gaveUpEarly: [Int: any Error] = [:]

        mutating func newWaiter() -> Int {
            nextWaiter += 1
            return nextWaiter
        }
    }

    /// What is awaited, for the message of a wait that runs out.
    package let what: String
    private let state = Locked(State())

    /// Creates a signal that has not fired.
    ///
    /// - Parameter what: What is awaited, such as "the request at the server", for the message of a wait that runs
    ///   out.
    package init(_ what: String) {
        self.what = what
    }

    /// How often the signal has fired.
    package var count: Int { state.withLock { $0.fired } }

    /// Says that the awaited thing has happened (once more), waking every wait whose count it reaches.
    package func fire() {
        let woken = state.withLock { state in
            state.fired += 1
            let fired = state.fired
            let due = state.waiters.filter { $0.value.count <= fired }
            for id in due.keys {
                state.waiters.removeValue(forKey: id)
            }
            return due.values.map(\.wake)
        }
        for wake in woken {
            wake(.success(()))
        }
    }

    /// Waits until the signal has fired `count` times in all.
    ///
    /// - Parameters:
    ///   - count: How often the signal must have fired; 1 by default.
    ///   - timeout: The longest to wait, in real time; 30 seconds by default.
    /// - Throws: ``WaitTimeout`` naming what was awaited when the signal has not fired `count` times within
    ///   `timeout`, or `CancellationError` when the waiting task is cancelled.
    package func wait(count: Int = 1, timeout: Duration = .seconds(30)) async throws {
        let id = state.withLock { $0.newWaiter() }
        let giveUp = Task { [self] in
            // Cancelled when the wait ended first: nothing to give up.
            guard (try? await Task.sleep(for: timeout)) != nil else { return }
            self.giveUp(id, with: timedOut(after: timeout, count: count))
        }
        defer { giveUp.cancel() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let ready = state.withLock { state -> Result<Void, any Error>? in
                    if let error = state.gaveUpEarly.removeValue(forKey: id) {
                        return .failure(error)
                    }
                    if state.fired >= count {
                        return .success(())
                    }
                    state.waiters[id] = Waiter(count: count) { continuation.resume(with: $0) }
                    return nil
                }
                if let ready {
                    continuation.resume(with: ready)
                }
            }
        } onCancel: {
            self.giveUp(id, with: CancellationError())
        }
    }

    /// Blocks the calling thread until the signal has fired `count` times in all, for code that runs outside any
    /// task: a loopback route's closure on a connection's thread, a synchronous test.
    ///
    /// - Parameters:
    ///   - count: How often the signal must have fired; 1 by default.
    ///   - timeout: The longest to wait, in real time; 30 seconds by default.
    /// - Throws: ``WaitTimeout`` naming what was awaited when the signal has not fired `count` times within
    ///   `timeout`.
    package func block(count: Int = 1, timeout: Duration = .seconds(30)) throws {
        let semaphore = DispatchSemaphore(value: 0)
        let id = state.withLock { state -> Int? in
            guard state.fired < count else { return nil }
            let id = state.newWaiter()
            state.waiters[id] = Waiter(count: count) { _ in semaphore.signal() }
            return id
        }
        guard let id else { return }
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        guard semaphore.wait(timeout: .now() + seconds) == .timedOut else { return }
        // Fired between the timeout and taking the waiter back: the wait is over all the same.
        guard state.withLock({ $0.waiters.removeValue(forKey: id) }) != nil else { return }
        throw timedOut(after: timeout, count: count)
    }

    /// The error of a wait for `count` firings that ran out after `timeout`.
    private func timedOut(after timeout: Duration, count: Int) -> WaitTimeout {
        WaitTimeout(description: "waited \(timeout) for \(what): fired \(self.count) of \(count) times")
    }

    /// Ends a wait with `error`, unless it has ended already; a wait that has not begun yet ends with it as it begins.
    private func giveUp(_ id: Int, with error: any Error) {
        let waiter = state.withLock { state -> Waiter? in
            guard let waiter = state.waiters.removeValue(forKey: id) else {
                state.gaveUpEarly[id] = error
                return nil
            }
            return waiter
        }
        waiter?.wake(.failure(error))
    }
}

/// What is thrown when what a test waits for does not happen in time.
package struct WaitTimeout: Error, CustomStringConvertible {
    package let description: String
}

import Dispatch
import SluiceCore

/// Something a test waits for that the code it drives says has happened: a stub, a route or a refresh closure fires
/// the signal when the awaited thing happens, and the test waits for it rather than sleeping or polling.
///
/// ```swift
/// let arrived = Signal("the request at the server")
/// server.route("/slow") { _ in
///     arrived.fire()
///     return LoopbackServer.Response.text("late").delayed(by: .seconds(30))
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
    /// A thread blocked until the signal's count reaches ``count``.
    private struct Blocked {
        var count: Int
        var semaphore: DispatchSemaphore
    }

    /// What is awaited, for the message of a wait that runs out.
    package let what: String
    /// How often the signal has fired; tasks wait on it.
    private let fired = Gauge()
    /// The threads blocked in ``block(count:timeout:)``, by number.
    private let blocked = Locked((next: 0, threads: [Int: Blocked]()))

    /// Creates a signal that has not fired.
    ///
    /// - Parameter what: What is awaited, such as "the request at the server", for the message of a wait that runs
    ///   out.
    package init(_ what: String) {
        self.what = what
    }

    /// How often the signal has fired.
    package var count: Int { fired.value }

    /// Says that the awaited thing has happened (once more), waking every wait whose count it reaches.
    package func fire() {
        fired.add(1)
        // After the count has changed: a thread that blocks from now on sees the new count, one blocked before is
        // here.
        let woken = blocked.withLock { blocked in
            let count = fired.value
            let due = blocked.threads.filter { $0.value.count <= count }
            for id in due.keys {
                blocked.threads.removeValue(forKey: id)
            }
            return due.values.map(\.semaphore)
        }
        for semaphore in woken {
            semaphore.signal()
        }
    }

    /// Waits until the signal has fired `count` times in all.
    ///
    /// - Parameters:
    ///   - count: How often the signal must have fired; 1 by default.
    ///   - timeout: The longest to wait, in real time; 2 minutes by default, which a busy machine does not reach where the
    ///     code is right.
    /// - Throws: ``WaitTimeout`` naming what was awaited when the signal has not fired `count` times within
    ///   `timeout`, or `CancellationError` when the waiting task is cancelled.
    package func wait(count: Int = 1, timeout: Duration = .seconds(120)) async throws {
        try await bounded(by: timeout, timedOut: timedOut(after: timeout, count: count)) { [fired] in
            try await fired.wait(until: { $0 >= count })
        }
    }

    /// Blocks the calling thread until the signal has fired `count` times in all, for code that runs outside any
    /// task: a loopback route's closure on a connection's thread, a synchronous test.
    ///
    /// - Parameters:
    ///   - count: How often the signal must have fired; 1 by default.
    ///   - timeout: The longest to wait, in real time; 2 minutes by default, which a busy machine does not reach where the
    ///     code is right.
    /// - Throws: ``WaitTimeout`` naming what was awaited when the signal has not fired `count` times within
    ///   `timeout`.
    package func block(count: Int = 1, timeout: Duration = .seconds(120)) throws {
        let semaphore = DispatchSemaphore(value: 0)
        let id = blocked.withLock { blocked -> Int? in
            guard fired.value < count else { return nil }
            blocked.next += 1
            blocked.threads[blocked.next] = Blocked(count: count, semaphore: semaphore)
            return blocked.next
        }
        guard let id else { return }
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        guard semaphore.wait(timeout: .now() + seconds) == .timedOut else { return }
        // Fired between the timeout and taking the thread back: the wait is over all the same.
        guard blocked.withLock({ $0.threads.removeValue(forKey: id) }) != nil else { return }
        throw timedOut(after: timeout, count: count)
    }

    /// The error of a wait for `count` firings that ran out after `timeout`.
    private func timedOut(after timeout: Duration, count: Int) -> WaitTimeout {
        WaitTimeout(description: "waited \(timeout) for \(what): fired \(self.count) of \(count) times")
    }
}

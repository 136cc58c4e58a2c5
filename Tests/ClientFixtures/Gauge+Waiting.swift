package import SluiceCore

extension Gauge {
    /// Waits until `condition` holds of the count, for a state that the code under test counts in a gauge: the
    /// transfers a performer has in flight, the connections a pool or the loopback server holds open, the callers
    /// waiting for a shared call.
    ///
    /// The wait ends at the change that makes the condition hold, or at once when it holds already; `timeout` only
    /// bounds a wait for a condition that never comes to hold (see ``bounded(by:timedOut:_:)``).
    ///
    /// ```swift
    /// try await performer.callsInFlightGauge.wait(for: "the shared call to end") { $0 == 0 }
    /// ```
    ///
    /// - Parameters:
    ///   - what: What is awaited, for the failure message.
    ///   - timeout: The longest to wait, in real time; 2 minutes by default, which a busy machine does not reach where the
    ///     code is right.
    ///   - condition: What the count must satisfy; called with the gauge's lock held.
    /// - Throws: ``WaitTimeout`` naming `what` and the count when the condition does not hold within `timeout`, or
    ///   `CancellationError` when the waiting task is cancelled.
    package func wait(
        for what: String,
        timeout: Duration = .seconds(120),
        until condition: @escaping @Sendable (Int) -> Bool
    ) async throws {
        try await bounded(
            by: timeout,
            timedOut: WaitTimeout(description: "waited \(timeout) for \(what): the count is \(value)")
        ) {
            try await self.wait(until: condition)
        }
    }
}

/// A count that can be awaited: the transfers a performer has in flight, the connections a pool holds open, the
/// callers waiting for a shared call.
///
/// The count lives behind a lock, as a `Locked` counter's would, and changes with ``add(_:)``; a task that must know
/// when a condition on it comes to hold waits with ``wait(until:)`` rather than polling it:
///
/// ```swift
/// let inFlight = Gauge()
/// inFlight.add(1)
/// Task { inFlight.add(-1) }
/// try await inFlight.wait { $0 == 0 }
/// ```
///
/// A change costs one lock and unlock, as an increment behind `Locked` does, and allocates nothing while nobody
/// waits; only when tasks wait does it check their conditions. A count kept alongside other state is best changed
/// under that state's lock, so that no waiter sees a count the state never had: the gauge's lock is taken last and
/// calls nothing that takes another. Copies of a gauge share its count and its waiters.
package struct Gauge: Sendable {
    /// A task waiting for its condition to hold.
    private struct Waiter {
        var condition: @Sendable (Int) -> Bool
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var value: Int
        var waiters: [UInt64: Waiter] = [:]
        var lastWaiter: UInt64 = 0

        /// Takes the waiters whose condition the count now meets, to resume once the lock is released.
        mutating func takeSatisfiedWaiters() -> [CheckedContinuation<Void, any Error>] {
            let value = value
            let satisfied = waiters.filter { $0.value.condition(value) }
            for id in satisfied.keys {
                waiters.removeValue(forKey: id)
            }
            return satisfied.values.map(\.continuation)
        }
    }

    private let state: Locked<State>

    /// Creates a gauge with no waiters.
    ///
    /// - Parameter value: The count to start at; 0 by default.
    package init(_ value: Int = 0) {
        state = Locked(State(value: value))
    }

    /// The count now.
    package var value: Int { state.withLock { $0.value } }

    /// The tasks waiting for a condition on the count that does not hold yet.
    package var waiterCount: Int { state.withLock { $0.waiters.count } }

    /// Changes the count, and resumes every waiter whose condition the new count meets.
    ///
    /// - Parameter delta: What to add to the count; negative to take away.
    package func add(_ delta: Int) {
        let satisfied = state.withLock { state -> [CheckedContinuation<Void, any Error>]? in
            state.value += delta
            // The common case, on a request's way in and out: nobody waits, and nothing is allocated or retained.
            guard !state.waiters.isEmpty else { return nil }
            return state.takeSatisfiedWaiters()
        }
        guard let satisfied else { return }
        for continuation in satisfied {
            continuation.resume()
        }
    }

    /// Waits until `condition` holds of the count: returns at once when it holds already, and otherwise when a change
    /// makes it hold.
    ///
    /// The condition is called with the gauge's lock held, on the thread that changes the count: it must be quick and
    /// must not touch the gauge or what it counts. A wait in a task that is cancelled, before it began or while it
    /// waits, ends at once with `CancellationError` and leaves no waiter behind.
    ///
    /// - Parameter condition: What the count must satisfy, such as `{ $0 == 0 }`.
    /// - Throws: `CancellationError` when the waiting task is cancelled.
    package func wait(until condition: @escaping @Sendable (Int) -> Bool) async throws {
        let id = state.withLock { state in
            state.lastWaiter += 1
            return state.lastWaiter
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // A cancellation that comes before the waiter is added is seen here: the task is marked cancelled
                // before its handler runs, and the handler then finds no waiter to take.
                let outcome = state.withLock { state -> Result<Void, any Error>? in
                    if Task.isCancelled {
                        return .failure(CancellationError())
                    }
                    if condition(state.value) {
                        return .success(())
                    }
                    state.waiters[id] = Waiter(condition: condition, continuation: continuation)
                    return nil
                }
                if let outcome {
                    continuation.resume(with: outcome)
                }
            }
        } onCancel: {
            // Whoever takes the waiter out resumes it: this handler or a change, never both.
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }
}

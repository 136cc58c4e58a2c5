/// Runs a wait that a test makes, ending it with a ``WaitTimeout`` when it lasts longer than `timeout`, so that a
/// regression fails the test rather than hangs it.
///
/// The bound is a guard, never a measure: the wait ends as soon as what it awaits happens. When the bound runs out
/// first, the wait is cancelled and left to end on its own: a wait that ignores cancellation fails the test too,
/// rather than hangs it.
///
/// - Parameters:
///   - timeout: The longest to wait, in real time.
///   - timedOut: The error to throw when the bound runs out, made at that moment, so that it can say how far the wait
///     got.
///   - wait: The wait.
/// - Returns: What the wait returns.
/// - Throws: What `timedOut` makes when the bound runs out first, what `wait` throws, or `CancellationError` when
///   the calling task is cancelled.
package func bounded<Value: Sendable>(
    by timeout: Duration,
    timedOut: @autoclosure () -> WaitTimeout,
    _ wait: @escaping @Sendable () async throws -> Value
) async throws -> Value {
    // The first to end of the wait and the bound says how it ended: the wait's outcome, or nil for the bound.
    let (endings, ending) = AsyncStream.makeStream(of: Result<Value, any Error>?.self)
    let waiting = Task {
        do {
            ending.yield(.success(try await wait()))
        } catch {
            ending.yield(.failure(error))
        }
    }
    let bound = Task {
        // Cancelled when the wait ends first: nothing to bound any more.
        guard (try? await Task.sleep(for: timeout)) != nil else { return }
        ending.yield(nil)
    }
    defer {
        waiting.cancel()
        bound.cancel()
    }
    // Ends with nothing when the calling task is cancelled.
    var first = endings.makeAsyncIterator()
    switch await first.next() {
    case .some(.some(let outcome)):
        return try outcome.get()
    case .some(.none):
        throw timedOut()
    case .none:
        throw CancellationError()
    }
}

/// What is thrown when what a test waits for does not happen in time.
package struct WaitTimeout: Error, CustomStringConvertible {
    package let description: String

    /// Creates the error of a wait that ran out.
    ///
    /// - Parameter description: What was awaited and how far the wait got, such as "waited 30 seconds for the
    ///   request at the server: fired 0 of 1 times".
    package init(description: String) {
        self.description = description
    }
}

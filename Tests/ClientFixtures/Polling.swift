/// What is thrown when a polled condition does not come to hold in time.
package struct PollingTimeout: Error, CustomStringConvertible {
    package let description: String
}

/// Waits, polling every few milliseconds, until `condition` holds, so that a regression fails the test rather
/// than hangs it.
///
/// - Parameters:
///   - what: What is awaited, for the failure message.
///   - timeout: How long to wait at most.
///   - condition: The condition, read on each poll.
/// - Throws: ``PollingTimeout`` naming `what` when the condition does not hold within `timeout`.
package func waitUntil(_ what: String, timeout: Duration = .seconds(30), _ condition: () -> Bool) async throws {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        guard ContinuousClock.now < deadline else {
            throw PollingTimeout(description: "waited \(timeout) for \(what)")
        }
        try await Task.sleep(for: .milliseconds(5))
    }
}

/// Waits, polling every few milliseconds, until `condition` holds, so that a regression fails the test rather
/// than hangs it.
///
/// Only for a state that the code under test exposes without saying when it changes: the transfers a performer has
/// in flight, the connections a pool or the loopback server holds open, the callers waiting for a shared call, a
/// repository's subscribers. What a test's own stub, route or closure sees happen is awaited with a ``Signal`` fired
/// there instead. The poll asserts no timing: it returns as soon as the condition holds, and `timeout` only bounds a
/// wait for a condition that never comes to hold.
///
/// - Parameters:
///   - what: What is awaited, for the failure message.
///   - timeout: How long to wait at most.
///   - condition: The condition, read on each poll.
/// - Throws: ``WaitTimeout`` naming `what` when the condition does not hold within `timeout`.
package func waitUntil(_ what: String, timeout: Duration = .seconds(30), _ condition: () -> Bool) async throws {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        guard ContinuousClock.now < deadline else {
            throw WaitTimeout(description: "waited \(timeout) for \(what)")
        }
        try await Task.sleep(for: .milliseconds(5))
    }
}

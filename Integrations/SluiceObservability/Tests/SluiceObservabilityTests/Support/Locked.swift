import Foundation

/// A value behind a lock, for the test doubles that the server's threads and the tests' tasks share: every access
/// takes the lock, so `@unchecked Sendable` is safe.
final class Locked<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.withLock { body(&value) }
    }
}

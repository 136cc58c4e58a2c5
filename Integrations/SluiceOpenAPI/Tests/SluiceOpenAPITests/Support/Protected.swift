import Foundation

/// A value behind a lock, for what the tests' servers and performers record from several tasks at once.
///
/// `@unchecked Sendable`: the value is read and written only inside `withLock`, under the lock.
final class Protected<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

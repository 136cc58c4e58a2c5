/// A value guarded by a lock, for the little mutable state shared between tasks and URLSession callbacks.
///
/// `package` so that SluiceTesting's doubles use the same box.
///
/// `@unchecked Sendable`: the value is reached only inside `withLock`, which holds the `NSLock`, so no two
/// threads touch it at once.
package final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value.
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

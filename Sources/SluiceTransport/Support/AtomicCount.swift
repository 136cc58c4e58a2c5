import CSluiceSystem

/// A count that threads change and read without a lock: one word, changed with the C compilers' atomic builtins.
///
/// The operations are relaxed: the count orders no other memory, so it suits a figure read as a hint (how many
/// requests are in flight), not a flag that publishes other state. Swift's own `Atomic` needs macOS 15 and iOS 18.
final class AtomicCount: @unchecked Sendable {
    /// The word, allocated once and changed only atomically.
    private let word: UnsafeMutablePointer<Int>

    /// A count starting at `value`.
    ///
    /// - Parameter value: The count to start at; 0 by default.
    init(_ value: Int = 0) {
        word = .allocate(capacity: 1)
        word.initialize(to: value)
    }

    deinit {
        word.deallocate()
    }

    /// Adds to the count.
    ///
    /// - Parameter delta: What to add; negative to take away.
    /// - Returns: The count after the change.
    @discardableResult
    func add(_ delta: Int) -> Int {
        sluice_atomic_add(word, delta)
    }

    /// The count now.
    var value: Int { sluice_atomic_load(word) }
}

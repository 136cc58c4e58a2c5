import SluiceCore

/// A stub registered on a ``MockClient``: what it matches, what it answers, and how often it was used.
public final class Stub: Sendable, CustomStringConvertible {
    /// What the stub matches, such as `any GetUser`.
    public let description: String
    let matches: @Sendable (any Request) -> Bool
    let answer: any Sendable
    private let state = Locked((calls: 0, expected: ClosedRange<Int>?.none))

    init<Value>(description: String, matches: @escaping @Sendable (any Request) -> Bool, answer: MockResponse<Value>) {
        self.description = description
        self.matches = matches
        self.answer = answer
    }

    /// How many requests the stub has answered.
    public var calls: Int { state.withLock { $0.calls } }

    /// Sets how many requests the stub is expected to answer, for ``MockClient/verify()``.
    ///
    /// - Parameter calls: The exact number of calls.
    /// - Returns: The stub.
    @discardableResult
    public func expect(calls: Int) -> Stub {
        expect(calls: calls...calls)
    }

    /// Sets how many requests the stub is expected to answer, for ``MockClient/verify()``.
    ///
    /// - Parameter calls: The accepted numbers of calls, such as `0...` for a stub that may go unused.
    /// - Returns: The stub.
    @discardableResult
    public func expect(calls: ClosedRange<Int>) -> Stub {
        state.withLock { $0.expected = calls }
        return self
    }

    /// Sets how many requests the stub is expected to answer, at least.
    ///
    /// - Parameter calls: The fewest calls accepted.
    /// - Returns: The stub.
    @discardableResult
    public func expect(calls: PartialRangeFrom<Int>) -> Stub {
        expect(calls: calls.lowerBound...Int.max)
    }

    func recordCall() {
        state.withLock { $0.calls += 1 }
    }

    /// What is wrong with the stub's use, or `nil` when it was used as expected.
    var unmetExpectation: String? {
        let (calls, expected) = state.withLock { ($0.calls, $0.expected) }
        let range = expected ?? 1...Int.max
        guard !range.contains(calls) else { return nil }
        let wanted =
            range.upperBound == Int.max
            ? "at least \(range.lowerBound) \(range.lowerBound == 1 ? "call" : "calls")"
            : range.lowerBound == range.upperBound
                ? "\(range.lowerBound) \(range.lowerBound == 1 ? "call" : "calls")"
                : "\(range.lowerBound) to \(range.upperBound) calls"
        return "\(description): expected \(wanted), got \(calls)"
    }
}

/// Stubs of a ``MockClient`` that were not used as expected.
public struct MockVerificationError: Error, Sendable, CustomStringConvertible {
    /// One line per stub: what it matches, what was expected and what happened.
    public let failures: [String]

    /// The failures, one per line, under a headline.
    public var description: String {
        "\(failures.count) \(failures.count == 1 ? "stub was" : "stubs were") not used as expected:\n"
            + failures.map { "  - \($0)" }.joined(separator: "\n")
    }
}

import SluiceCore

extension MockClient {
    /// A stub registered on a ``MockClient``: what it matches, what it answers, and how often it was used.
    public final class Stub: Sendable, CustomStringConvertible {
        /// What the stub matches, such as `any GetUser`.
        public let description: String
        let matches: @Sendable (any Request) -> Bool
        let answer: any Sendable
        private let state = Locked((calls: 0, expected: ClosedRange<Int>?.none))

        init<Value>(
            description: String,
            matches: @escaping @Sendable (any Request) -> Bool,
            answer: MockClient.Response<Value>
        ) {
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
        public func expect(calls: Int) -> MockClient.Stub {
            expect(calls: calls...calls)
        }

        /// Sets how many requests the stub is expected to answer, for ``MockClient/verify()``.
        ///
        /// - Parameter calls: The accepted numbers of calls, such as `0...` for a stub that may go unused.
        /// - Returns: The stub.
        @discardableResult
        public func expect(calls: ClosedRange<Int>) -> MockClient.Stub {
            state.withLock { $0.expected = calls }
            return self
        }

        /// Sets how many requests the stub is expected to answer, at least.
        ///
        /// - Parameter calls: The fewest calls accepted.
        /// - Returns: The stub.
        @discardableResult
        public func expect(calls: PartialRangeFrom<Int>) -> MockClient.Stub {
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
}

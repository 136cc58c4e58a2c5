import SluiceCore

/// A clock that moves only when a test moves it, so that retry waits, deadlines and time limits are tested without
/// waiting for them.
///
/// Pass it wherever Sluice takes a clock (`RetryingPerformer`, `TimeLimitedPerformer`,
/// `APIClient`'s deadline); wait until the code under test sleeps on it, check how long it asked for, and
/// move it on:
///
/// ```swift
/// let clock = TestClock()
/// let client = APIClient(requestPerformer: stub.retrying(.default, clock: clock))
/// let profile = Task { try await client.perform(GetProfile(id: 1)) }
///
/// await clock.waitForSleepers()
/// #expect(clock.sleepers == [clock.now.advanced(by: .seconds(2))])  // what Retry-After asked for
/// clock.advance(by: .seconds(2))
/// #expect(try await profile.value.name == "Ada")
/// ```
///
/// A sleep whose deadline has passed returns at once; a sleeping task that is cancelled stops sleeping at once with
/// `CancellationError`. Copies of a clock share its time and its sleepers.
public struct TestClock: Clock, Sendable {
    /// An instant on a test clock: the time since the clock was made.
    public struct Instant: InstantProtocol, CustomStringConvertible {
        /// The time since the clock was made.
        public var offset: Duration

        /// Creates an instant.
        ///
        /// - Parameter offset: The time since the clock was made.
        public init(offset: Duration) {
            self.offset = offset
        }

        /// The instant `duration` after this one.
        ///
        /// - Parameter duration: The time to add.
        /// - Returns: The later instant.
        public func advanced(by duration: Duration) -> Instant {
            Instant(offset: offset + duration)
        }

        /// The time from this instant to another.
        ///
        /// - Parameter other: The other instant.
        /// - Returns: The time between them, negative when `other` is earlier.
        public func duration(to other: Instant) -> Duration {
            other.offset - offset
        }

        /// Whether one instant is earlier than another.
        ///
        /// - Parameters:
        ///   - lhs: One instant.
        ///   - rhs: Another.
        /// - Returns: `true` when `lhs` is earlier.
        public static func < (lhs: Instant, rhs: Instant) -> Bool {
            lhs.offset < rhs.offset
        }

        /// The offset, such as `2.0 seconds`.
        public var description: String { "\(offset)" }
    }

    private struct Sleeper {
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct Watcher {
        var id: Int
        var count: Int
        var continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var nextID = 0
        var sleepers: [Int: Sleeper] = [:]
        var cancelledEarly: Set<Int> = []
        var watchers: [Watcher] = []
        /// Waits whose timeout passed before they started watching.
        var expiredWaits: Set<Int> = []

        /// Takes the watchers whose count of sleepers is reached, to resume outside the lock.
        mutating func satisfiedWatchers() -> [CheckedContinuation<Void, Never>] {
            let count = sleepers.count
            let satisfied = watchers.filter { $0.count <= count }.map(\.continuation)
            watchers.removeAll { $0.count <= count }
            return satisfied
        }
    }

    private let state = Locked(State())

    /// Creates a clock at offset zero, with no sleepers.
    public init() {}

    /// The clock's current instant; it changes only with ``advance(by:)``.
    public var now: Instant { state.withLock { $0.now } }

    /// The smallest step the clock tells apart: any.
    public var minimumResolution: Duration { .zero }

    /// The deadlines of the tasks sleeping on the clock, earliest first.
    public var sleepers: [Instant] { state.withLock { $0.sleepers.values.map(\.deadline).sorted() } }

    /// Sleeps until the clock reaches `deadline`, or returns at once when it has.
    ///
    /// - Parameters:
    ///   - deadline: The instant to wake at.
    ///   - tolerance: Ignored: the clock wakes sleepers exactly.
    /// - Throws: `CancellationError` when the sleeping task is cancelled.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (outcome, watchers) = state.withLock {
                    state -> (Result<Void, any Error>?, [CheckedContinuation<Void, Never>]) in
                    if state.cancelledEarly.remove(id) != nil {
                        return (.failure(CancellationError()), [])
                    }
                    if deadline <= state.now {
                        return (.success(()), [])
                    }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return (nil, state.satisfiedWatchers())
                }
                if let outcome {
                    continuation.resume(with: outcome)
                }
                for watcher in watchers {
                    watcher.resume()
                }
            }
        } onCancel: {
            let sleeper = state.withLock { state in
                guard let sleeper = state.sleepers.removeValue(forKey: id) else {
                    state.cancelledEarly.insert(id)
                    return Sleeper?.none
                }
                return sleeper
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock on, waking every sleeper whose deadline it reaches.
    ///
    /// - Parameter duration: How far to move it; not negative.
    public func advance(by duration: Duration) {
        precondition(duration >= .zero, "a test clock moves forwards only")
        let woken = state.withLock { state in
            state.now = state.now.advanced(by: duration)
            let now = state.now
            let due = state.sleepers.filter { $0.value.deadline <= now }
            for id in due.keys {
                state.sleepers.removeValue(forKey: id)
            }
            return due.values.sorted { $0.deadline < $1.deadline }.map(\.continuation)
        }
        for continuation in woken {
            continuation.resume()
        }
    }

    /// Waits until at least `count` tasks are sleeping on the clock, or until `timeout` of real time has passed.
    ///
    /// Call it after starting the work under test and before ``advance(by:)``, so that the clock does not move
    /// before the work sleeps on it. The timeout keeps a test whose work never sleeps from hanging: the wait ends
    /// anyway, and the test fails on what it checks next (``sleepers`` says how many are sleeping).
    ///
    /// - Parameters:
    ///   - count: The number of sleepers to wait for; 1 by default.
    ///   - timeout: The longest to wait, in real time; 60 seconds by default.
    public func waitForSleepers(_ count: Int = 1, timeout: Duration = .seconds(60)) async {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        let state = self.state
        let giveUp = Task {
            // Cancelled when the wait ended first: nothing to give up.
            guard (try? await Task.sleep(for: timeout)) != nil else { return }
            let watcher = state.withLock { state -> CheckedContinuation<Void, Never>? in
                guard let index = state.watchers.firstIndex(where: { $0.id == id }) else {
                    state.expiredWaits.insert(id)
                    return nil
                }
                return state.watchers.remove(at: index).continuation
            }
            watcher?.resume()
        }
        defer { giveUp.cancel() }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state in
                guard state.sleepers.count < count, state.expiredWaits.remove(id) == nil else { return true }
                state.watchers.append(Watcher(id: id, count: count, continuation: continuation))
                return false
            }
            if ready {
                continuation.resume()
            }
        }
    }
}

import ClientFixtures
import SluiceCore
import Testing

/// The count that tasks await: a wait ends at the change that makes its condition hold, at once when it holds, and
/// on cancellation, leaving nothing behind.
@Suite struct GaugeTests {
    /// A condition that says when it is checked, so that a test knows the waiter is in place without polling: a waiter
    /// is added under the same lock as its first check.
    private struct Watched: Sendable {
        let checked = Signal("the condition checked")
        let seen = Locked<[Int]>([])

        func condition(_ holds: @escaping @Sendable (Int) -> Bool) -> @Sendable (Int) -> Bool {
            { [checked, seen] value in
                seen.withLock { $0.append(value) }
                checked.fire()
                return holds(value)
            }
        }
    }

    /// How waiting tasks ended, awaited at most 30 seconds in all, so that a wait that never ends fails the test
    /// rather than hangs it.
    private func ends(of waiters: [Task<Void, any Error>]) async throws -> [Result<Void, any Error>] {
        try await bounded(
            by: .seconds(30),
            timedOut: WaitTimeout(description: "waited 30 seconds for \(waiters.count) waits to end")
        ) {
            var ends: [Result<Void, any Error>] = []
            for waiter in waiters {
                ends.append(await waiter.result)
            }
            return ends
        }
    }

    /// How a waiting task ended, awaited at most 30 seconds.
    private func end(of waiter: Task<Void, any Error>) async throws -> Result<Void, any Error> {
        try await ends(of: [waiter])[0]
    }

    @Test func aWaitEndsAtTheChangeThatMakesItsConditionHold() async throws {
        let gauge = Gauge()
        let watched = Watched()
        let waiter = Task { try await gauge.wait(until: watched.condition { $0 == 3 }) }
        try await watched.checked.wait()
        #expect(gauge.waiterCount == 1)

        gauge.add(1)
        gauge.add(1)
        // Checked at each change, and still waiting after the two that leave the condition false.
        #expect(watched.seen.withLock { $0 } == [0, 1, 2])
        #expect(gauge.waiterCount == 1)

        gauge.add(1)
        try await end(of: waiter).get()
        #expect(watched.seen.withLock { $0 } == [0, 1, 2, 3])
        #expect(gauge.waiterCount == 0)
        gauge.add(1)
        #expect(watched.seen.withLock { $0 }.count == 4, "a waiter that has ended is checked no more")
    }

    @Test func aChangeResumesOnlyTheWaitersWhoseConditionHolds() async throws {
        let gauge = Gauge(5)
        let low = Watched()
        let zero = Watched()
        let waitingForLow = Task { try await gauge.wait(until: low.condition { $0 <= 2 }) }
        let waitingForZero = Task { try await gauge.wait(until: zero.condition { $0 == 0 }) }
        try await low.checked.wait()
        try await zero.checked.wait()
        #expect(gauge.waiterCount == 2)

        gauge.add(-3)
        try await end(of: waitingForLow).get()
        #expect(gauge.waiterCount == 1)

        gauge.add(-2)
        try await end(of: waitingForZero).get()
        #expect(gauge.waiterCount == 0)
        #expect(gauge.value == 0)
    }

    @Test func aWaitEndsAtOnceWhenItsConditionHoldsAlready() async throws {
        let gauge = Gauge(4)
        try await gauge.wait(for: "a count of 4") { $0 == 4 }
        try await gauge.wait(for: "a count of at least 1") { $0 >= 1 }
        #expect(gauge.waiterCount == 0)
        #expect(gauge.value == 4)
    }

    @Test func aCancelledWaiterEndsWithCancellationErrorAndIsRemoved() async throws {
        let gauge = Gauge()
        let watched = Watched()
        let waiter = Task { try await gauge.wait(until: watched.condition { $0 == 1 }) }
        try await watched.checked.wait()
        #expect(gauge.waiterCount == 1)

        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await end(of: waiter).get() }
        #expect(gauge.waiterCount == 0)
        // The change the cancelled waiter waited for finds nobody to resume, and checks nothing.
        gauge.add(1)
        #expect(watched.seen.withLock { $0 } == [0])
    }

    @Test(arguments: [false, true])
    func aWaitInATaskCancelledBeforeItBeganEndsWithCancellationError(conditionHolds: Bool) async throws {
        let gauge = Gauge(conditionHolds ? 1 : 0)
        let waiter = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await gauge.wait(until: { $0 == 1 })
        }
        await #expect(throws: CancellationError.self) { try await end(of: waiter).get() }
        #expect(gauge.waiterCount == 0)
    }

    @Test func aBoundedWaitThatRunsOutSaysWhatItAwaitedAndLeavesNoWaiter() async throws {
        let gauge = Gauge(2)
        let error = await #expect(throws: WaitTimeout.self) {
            try await gauge.wait(for: "the connections to close", timeout: .milliseconds(1)) { $0 == 0 }
        }
        #expect(error?.description == "waited 0.001 seconds for the connections to close: the count is 2")
        #expect(gauge.waiterCount == 0)
    }

    /// Every wait ends once, and none is left behind, with many waiters and changers at once.
    ///
    /// Tasks wait for counts along the way while others change the count. Waiters that can never be satisfied are
    /// cancelled as the changes begin; others, for counts from the start to the end, are cancelled halfway, so that
    /// cancellation races with the changes that satisfy them.
    @Test func manyWaitersAndChangersAtOnce() async throws {
        let gauge = Gauge()
        let changers = 8
        let steps = 2_000
        let total = changers * steps
        // Never satisfied: the count never goes below zero, since each changer takes away only what it added.
        let hopeless = (0..<50).map { _ in Task { try await gauge.wait(until: { $0 < 0 }) } }
        // Either ending is right for these, as long as there is one.
        let racing = (0..<50).map { number in
            Task { try await gauge.wait(until: { $0 >= number * total / 50 }) }
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for threshold in stride(from: total / 50, through: total, by: total / 50) {
                group.addTask {
                    try await gauge.wait(for: "a count of \(threshold)") { $0 >= threshold }
                }
            }
            group.addTask {
                try await gauge.wait(for: "half the changes") { $0 >= total / 2 }
                for task in racing {
                    task.cancel()
                }
            }
            for _ in 0..<changers {
                group.addTask {
                    for _ in 0..<steps {
                        gauge.add(1)
                        gauge.add(-1)
                        gauge.add(1)
                    }
                }
            }
            for task in hopeless {
                task.cancel()
            }
            try await group.waitForAll()
        }
        for end in try await ends(of: hopeless) {
            #expect(throws: CancellationError.self) { try end.get() }
        }
        for case .failure(let error) in try await ends(of: racing) {
            #expect(error is CancellationError)
        }
        #expect(gauge.value == total)
        #expect(gauge.waiterCount == 0)
    }
}

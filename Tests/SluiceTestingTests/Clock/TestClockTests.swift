import SluiceCore
import SluiceTesting
import Testing

@Suite struct TestClockTests {
    @Test func wakesASleeperOnlyWhenAdvancedToItsDeadline() async throws {
        let clock = TestClock()
        let woke = Locked(false)
        let sleeper = Task {
            try await clock.sleep(for: .seconds(5))
            woke.withLock { $0 = true }
        }
        await clock.waitForSleepers()
        #expect(clock.sleepers == [TestClock.Instant(offset: .seconds(5))])
        clock.advance(by: .seconds(4))
        #expect(clock.sleepers.count == 1)
        #expect(!woke.withLock { $0 })
        clock.advance(by: .seconds(1))
        try await sleeper.value
        #expect(woke.withLock { $0 })
        #expect(clock.now == TestClock.Instant(offset: .seconds(5)))
        #expect(clock.sleepers.isEmpty)
    }

    @Test func returnsAtOnceForADeadlineThatHasPassed() async throws {
        let clock = TestClock()
        clock.advance(by: .seconds(2))
        try await clock.sleep(until: TestClock.Instant(offset: .seconds(1)))
        try await clock.sleep(for: .zero)
        #expect(clock.sleepers.isEmpty)
    }

    @Test func stopsASleeperAtOnceWhenItsTaskIsCancelled() async throws {
        let clock = TestClock()
        let sleeper = Task { try await clock.sleep(for: .seconds(60)) }
        await clock.waitForSleepers()
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(clock.sleepers.isEmpty)
        #expect(clock.now == TestClock.Instant(offset: .zero))
    }

    @Test func waitsForSeveralSleepersAndWakesThemInDeadlineOrder() async throws {
        let clock = TestClock()
        let order = Locked<[Int]>([])
        let sleepers = [3, 1, 2].map { seconds in
            Task {
                try await clock.sleep(for: .seconds(seconds))
                order.withLock { $0.append(seconds) }
            }
        }
        await clock.waitForSleepers(3)
        #expect(clock.sleepers.map(\.offset) == [.seconds(1), .seconds(2), .seconds(3)])
        clock.advance(by: .seconds(1))
        try await sleepers[1].value
        clock.advance(by: .seconds(2))
        for sleeper in sleepers {
            try await sleeper.value
        }
        #expect(order.withLock { $0 }.first == 1)
        #expect(Set(order.withLock { $0 }) == [1, 2, 3])
    }

    @Test func measuresInstantsAsOffsets() {
        let start = TestClock.Instant(offset: .seconds(1))
        let later = start.advanced(by: .milliseconds(1_500))
        #expect(start.duration(to: later) == .milliseconds(1_500))
        #expect(start < later)
        #expect(later.description == "2.5 seconds")
        #expect(TestClock().minimumResolution == .zero)
    }
}

@Suite struct TestClockWaitTests {
    @Test func waitingForSleepersThatNeverComeEndsAfterTheTimeout() async {
        let clock = TestClock()
        await clock.waitForSleepers(timeout: .milliseconds(50))
        #expect(clock.sleepers.isEmpty)
    }

    @Test func aSleeperArrivingBeforeTheTimeoutEndsTheWait() async throws {
        let clock = TestClock()
        let sleeper = Task { try await clock.sleep(for: .seconds(5)) }
        await clock.waitForSleepers(timeout: .seconds(30))
        #expect(clock.sleepers == [clock.now.advanced(by: .seconds(5))])
        clock.advance(by: .seconds(5))
        try await sleeper.value
    }
}

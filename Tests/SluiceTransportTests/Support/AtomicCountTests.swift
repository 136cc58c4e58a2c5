import Testing

@testable import SluiceTransport

/// The lock-free count behind the transport's requests in flight: changes from many threads at once all count.
@Suite struct AtomicCountTests {
    @Test func addsAndReads() {
        let count = AtomicCount(3)
        #expect(count.add(2) == 5)
        #expect(count.add(-6) == -1)
        #expect(count.value == -1)
    }

    /// Eight tasks add and take away 20,000 times each at once; every change counts, and the thread sanitizer in CI
    /// sees no race.
    @Test func changesFromManyThreadsAtOnceAllCount() async {
        let count = AtomicCount()
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for _ in 0..<20_000 {
                        count.add(task % 2 == 0 ? 1 : 2)
                    }
                    for _ in 0..<10_000 {
                        count.add(-1)
                    }
                }
            }
        }
        // Four tasks add 20,000 and four add 40,000; each takes 10,000 away.
        #expect(count.value == 4 * 20_000 + 4 * 40_000 - 8 * 10_000)
    }
}

import Foundation
import Testing

@testable import SluiceTransport

/// An event loop's timers and its choice to poll for the next response.
@Suite struct EventLoopTests {
    /// Timers fire in the order of their deadlines; a cancelled one never fires, though it was the earliest; and a
    /// timer that a timer's job schedules fires too.
    @Test(.timeLimit(.minutes(1))) func timersFireInOrderAndACancelledOneNever() async throws {
        let loop = EventLoop.currentOrNext()
        let fired = Locked<[Int]>([])
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            // Resumed when both timers that end the test have fired, whatever order a busy machine runs them in.
            let remaining = Locked(2)
            let finish: @Sendable () -> Void = {
                if remaining.withLock({ count in
                    count -= 1
                    return count == 0
                }) {
                    done.resume()
                }
            }
            loop.execute {
                let now = loop.now
                let cancelled = loop.schedule(at: now + .milliseconds(1)) { fired.withLock { $0.append(0) } }
                _ = loop.schedule(at: now + .milliseconds(30)) {
                    fired.withLock { $0.append(3) }
                    finish()
                }
                _ = loop.schedule(at: now + .milliseconds(10)) {
                    fired.withLock { $0.append(1) }
                    _ = loop.schedule(at: loop.now + .milliseconds(5)) {
                        fired.withLock { $0.append(2) }
                        finish()
                    }
                }
                loop.cancelTimer(cancelled)
            }
        }
        let order = fired.withLock { $0 }
        #expect(order.first == 1, "\(order)")
        #expect(order.sorted() == [1, 2, 3], "\(order)")
    }

    /// A loop polls after a response that came within the polling window of its request, and sleeps after one that
    /// took longer, as through a proxy or from another host.
    @Test func pollsOnlyAfterAQuickResponse() {
        #expect(EventLoop.pollsForTheNextResponse(after: .microseconds(40)))
        #expect(!EventLoop.pollsForTheNextResponse(after: EventLoop.pollingWindow))
        #expect(!EventLoop.pollsForTheNextResponse(after: .milliseconds(20)))
    }
}

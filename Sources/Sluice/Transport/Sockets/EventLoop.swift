import Foundation

/// What a descriptor registered on an ``EventLoop`` is told when it becomes ready; called on the loop's thread.
protocol ReadinessHandler: AnyObject {
    /// The descriptor can be read (or has ended, or failed) and/or written.
    func handle(readable: Bool, writable: Bool)
}

/// A thread that waits on many non-blocking sockets at once (epoll on Linux, kqueue on Apple platforms), runs their
/// handlers as they become ready, runs jobs handed to it from other threads, and fires timers.
///
/// Everything registered with a loop is touched on the loop's thread only; other threads reach it through
/// ``execute(_:)``. `@unchecked Sendable` for that reason: the handler table and the timers are the loop thread's
/// alone, and the job queue is behind a lock.
final class EventLoop: @unchecked Sendable {
    /// The loops Sluice's own transport shares: one per core, at most four; connections are spread over them.
    static let shared: [EventLoop] = {
        let count = max(1, min(4, ProcessInfo.processInfo.activeProcessorCount))
        return (0..<count).map { EventLoop(name: "sluice-loop-\($0)") }
    }()

    /// The next loop of ``shared`` to hand out.
    private static let nextShared = Locked(0)

    /// One of the shared loops, in turn.
    static func next() -> EventLoop {
        let index = nextShared.withLock { index in
            defer { index = (index + 1) % shared.count }
            return index
        }
        return shared[index]
    }

    private struct Queue {
        var jobs: [@Sendable () -> Void] = []
        var wakePending = false
    }

    private struct Timer {
        var deadline: ContinuousClock.Instant
        var job: () -> Void
    }

    /// Where the loop's connections receive: one buffer, since they read one at a time on the loop's thread.
    let receiveBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 16)

    private let selector: Selector
    private let queue = Locked(Queue())
    private let clock = ContinuousClock()
    // The loop thread's alone.
    private var handlers: [Int32: (handler: any ReadinessHandler, interest: Interest)] = [:]
    private var timers: [UInt64: Timer] = [:]
    private var nextTimerIdentifier: UInt64 = 0

    /// Starts a loop on a thread of its own.
    ///
    /// - Parameter name: The thread's name, as debuggers show it.
    init(name: String) {
        do {
            selector = try Selector()
        } catch {
            // Only exhausted descriptors or memory stop a selector being made, when the first request is sent.
            fatalError("Sluice's event loop could not start: \(error)")
        }
        let thread = Thread { [unowned(unsafe) self] in self.run() }
        thread.name = name
        thread.start()
    }

    /// Runs a job on the loop's thread, after the readiness reports it is handling now.
    ///
    /// - Parameter job: The work; it must not block.
    func execute(_ job: @escaping @Sendable () -> Void) {
        let wake = queue.withLock { queue in
            queue.jobs.append(job)
            defer { queue.wakePending = true }
            return !queue.wakePending
        }
        if wake {
            selector.wake()
        }
    }

    /// Starts watching a descriptor; call on the loop's thread.
    func register(_ descriptor: Int32, _ handler: any ReadinessHandler, interest: Interest) {
        handlers[descriptor] = (handler, interest)
        selector.add(descriptor, interest)
    }

    /// Changes what a watched descriptor waits for; call on the loop's thread.
    func setInterest(_ interest: Interest, for descriptor: Int32) {
        guard let entry = handlers[descriptor], entry.interest != interest else { return }
        handlers[descriptor] = (entry.handler, interest)
        selector.modify(descriptor, from: entry.interest, to: interest)
    }

    /// Stops watching a descriptor, before it is closed; call on the loop's thread.
    func deregister(_ descriptor: Int32) {
        guard let entry = handlers.removeValue(forKey: descriptor) else { return }
        selector.remove(descriptor, entry.interest)
    }

    /// Runs a job on the loop's thread at a time; call on the loop's thread.
    ///
    /// - Returns: The timer, to cancel with ``cancelTimer(_:)``.
    func schedule(at deadline: ContinuousClock.Instant, _ job: @escaping () -> Void) -> UInt64 {
        nextTimerIdentifier += 1
        timers[nextTimerIdentifier] = Timer(deadline: deadline, job: job)
        return nextTimerIdentifier
    }

    /// Cancels a timer that has not fired; call on the loop's thread.
    func cancelTimer(_ identifier: UInt64) {
        timers[identifier] = nil
    }

    /// The current time on the loop's clock.
    var now: ContinuousClock.Instant { clock.now }

    private func run() {
        while true {
            let woken = selector.wait(milliseconds: nextTimeout()) { readiness in
                handlers[readiness.descriptor]?.handler.handle(
                    readable: readiness.readable,
                    writable: readiness.writable
                )
            }
            if woken {
                selector.acknowledgeWake()
                let jobs = queue.withLock { queue in
                    queue.wakePending = false
                    return queue.jobs.isEmpty ? [] : queue.jobs.swapAndClear()
                }
                for job in jobs {
                    job()
                }
            }
            fireDueTimers()
        }
    }

    /// Milliseconds until the earliest timer, rounded up; -1 when there is none.
    private func nextTimeout() -> Int32 {
        guard let earliest = timers.values.lazy.map(\.deadline).min() else { return -1 }
        return (earliest - clock.now).pollMilliseconds
    }

    private func fireDueTimers() {
        guard !timers.isEmpty else { return }
        let now = clock.now
        let due = timers.filter { $0.value.deadline <= now }.sorted { $0.value.deadline < $1.value.deadline }
        for (identifier, timer) in due where timers.removeValue(forKey: identifier) != nil {
            timer.job()
        }
    }
}

extension Array {
    /// Returns the elements and leaves the array empty, keeping no storage.
    fileprivate mutating func swapAndClear() -> [Element] {
        var taken: [Element] = []
        swap(&self, &taken)
        return taken
    }
}

extension Duration {
    /// This duration as a `poll`-style timeout: whole milliseconds rounded up, at least 0, at most `Int32.max`.
    package var pollMilliseconds: Int32 {
        guard self > .zero else {
            return 0
        }
        let (seconds, attoseconds) = components
        let milliseconds = (Double(seconds) * 1_000 + Double(attoseconds) / 1e15).rounded(.up)
        return milliseconds >= Double(Int32.max) ? Int32.max : Int32(milliseconds)
    }
}

import Foundation

/// What a descriptor registered on an ``EventLoop`` is told when it becomes ready, and at each tick; called on the
/// loop's thread.
protocol ReadinessHandler: AnyObject {
    /// The descriptor can be read (or has ended, or failed) and/or written.
    func handle(readable: Bool, writable: Bool)

    /// The loop's regular check, every ``EventLoop/tickInterval`` while anything is registered: time to fail what
    /// has waited too long.
    func tick(now: ContinuousClock.Instant)
}

/// A thread that waits on many non-blocking sockets at once (epoll on Linux, kqueue on Apple platforms), runs their
/// handlers as they become ready, runs jobs handed to it from other threads, and fires timers.
///
/// The handler table and the timers are touched on the loop's thread only; other threads reach them through
/// ``execute(_:)``. Interest in a registered descriptor may change from any thread (epoll and kqueue allow it), so
/// that a connection can send a request from the task that makes it and have the loop wait for the answer, without
/// waking the loop to send. `@unchecked Sendable` for that reason: the handler table and the timers are the loop
/// thread's alone, and the job queue is behind a lock.
final class EventLoop: @unchecked Sendable {
    /// The loops Sluice's own transport shares: one per core, at most four; connections are spread over them.
    static let shared: [EventLoop] = {
        let count = max(1, min(4, ProcessInfo.processInfo.activeProcessorCount))
        return (0..<count).map { EventLoop(name: "sluice-loop-\($0)") }
    }()

    /// The next loop of ``shared`` to hand out.
    private static let nextShared = Locked(0)

    /// The shared loop whose thread is calling, if any: a task running on a loop's executor opens its connections
    /// there, so that its requests and their answers never leave that thread.
    static var current: EventLoop? {
        let thread = Thread.current
        return shared.first { $0.thread === thread }
    }

    /// The calling thread's loop, or one of the shared loops in turn.
    static func currentOrNext() -> EventLoop {
        current ?? next()
    }

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
    private var handlers: [Int32: any ReadinessHandler] = [:]
    private var lastTick: ContinuousClock.Instant

    /// How often the registered handlers are ticked, while there are any: the precision of idle timeouts.
    static let tickInterval = Duration.milliseconds(25)
    private var timers: [UInt64: Timer] = [:]
    private var nextTimerIdentifier: UInt64 = 0
    /// No timer is due before this; `nil` when there is none.
    ///
    /// A cancelled timer may leave it early, which costs one early look, not a scan of the timers every time the loop
    /// wakes.
    private var earliestTimer: ContinuousClock.Instant?

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
        lastTick = clock.now
        let thread = Thread { [unowned(unsafe) self] in
            // Named from the thread itself: on Linux a name set before the start is not given to the system thread.
            Thread.current.name = name
            self.run()
        }
        self.thread = thread
        thread.start()
    }

    /// The loop's thread; set once, before it starts.
    private var thread: Thread?

    /// Whether the calling thread is the loop's.
    var isCurrent: Bool { Thread.current === thread }

    /// Runs a job on the loop's thread, after the readiness reports it is handling now.
    ///
    /// A job from the loop's own thread does not wake it: the loop runs the jobs queued before it waits again.
    ///
    /// - Parameter job: The work; it must not block.
    func execute(_ job: @escaping @Sendable () -> Void) {
        let fromLoop = isCurrent
        let wake = queue.withLock { queue in
            queue.jobs.append(job)
            guard !fromLoop else { return false }
            defer { queue.wakePending = true }
            return !queue.wakePending
        }
        if wake {
            selector.wake()
        }
    }

    /// Starts watching a descriptor; call on the loop's thread.
    func register(_ descriptor: Int32, _ handler: any ReadinessHandler, interest: Interest) {
        handlers[descriptor] = handler
        selector.add(descriptor, interest)
    }

    /// Hands a watched descriptor to another handler, which takes it as it is; call on the loop's thread.
    ///
    /// For a stream made ready by one handler (connecting, a tunnel, TLS) and used by another (a protocol's
    /// connection): the descriptor stays registered, with the interest its first handler left.
    func replaceHandler(of descriptor: Int32, with handler: any ReadinessHandler) {
        handlers[descriptor] = handler
    }

    /// Changes what a watched descriptor waits for; any thread may call it, with what the descriptor waited for
    /// until now, which its handler keeps.
    func changeInterest(of descriptor: Int32, from old: Interest, to new: Interest) {
        selector.modify(descriptor, from: old, to: new)
    }

    /// Stops watching a descriptor, before it is closed; call on the loop's thread.
    func deregister(_ descriptor: Int32, interest: Interest) {
        guard handlers.removeValue(forKey: descriptor) != nil else { return }
        selector.remove(descriptor, interest)
    }

    /// Runs a job on the loop's thread at a time; call on the loop's thread.
    ///
    /// - Returns: The timer, to cancel with ``cancelTimer(_:)``.
    func schedule(at deadline: ContinuousClock.Instant, _ job: @escaping () -> Void) -> UInt64 {
        nextTimerIdentifier += 1
        timers[nextTimerIdentifier] = Timer(deadline: deadline, job: job)
        earliestTimer = min(earliestTimer ?? deadline, deadline)
        return nextTimerIdentifier
    }

    /// Cancels a timer that has not fired; call on the loop's thread.
    func cancelTimer(_ identifier: UInt64) {
        timers[identifier] = nil
        if timers.isEmpty {
            earliestTimer = nil
        }
    }

    /// The current time on the loop's clock.
    var now: ContinuousClock.Instant { clock.now }

    /// How long a loop keeps polling without sleeping after it delivered a response, while no more than one request
    /// is in flight on the transport.
    ///
    /// A client that sends one request after another would otherwise have its loop fall asleep between sending the
    /// next request and its answer, and be woken by the kernel for every response: on loopback, that wake-up was a
    /// third of a request's time. Polling this long after a response takes the next one as it comes, for up to this
    /// much CPU per response. Only then: in the middle of a body, or with more requests in flight, the loop has work
    /// often enough, and polling would take CPU from the server or the other loops (measured: a tenth fewer requests
    /// at 16 in flight, a fifth less throughput on 1.5 MB bodies). And only after a response that began within this
    /// window of its request: a server that answers later (through a proxy, on another host) would not answer the
    /// next one within it either, and the loop would spin for nothing (measured through squid on loopback: 180 µs of
    /// CPU a request instead of 120).
    static let pollingWindow = Duration.microseconds(150)

    /// The requests in flight on Sluice's own transport, across its loops; counted by the performer.
    ///
    /// Changed twice a request by every task and read by each polling loop on every turn: a lock here was taken so
    /// often that it was 1.5% of the client's CPU at sixteen connections.
    static let requestsInFlight = AtomicCount()

    /// Until when the loop polls rather than sleeps; the loop thread's alone.
    private var pollingUntil: ContinuousClock.Instant?

    /// Keeps the loop polling for ``pollingWindow`` if no other request is in flight and the response came quickly;
    /// call on the loop's thread, when a response has been delivered.
    ///
    /// - Parameter wait: How long the response's first byte took to come after its request was started.
    func pollForTheNextResponse(after wait: Duration) {
        guard Self.pollsForTheNextResponse(after: wait) else { return }
        pollingUntil = clock.now + Self.pollingWindow
    }

    /// Whether a response that took this long to begin makes polling for the next one worth its CPU.
    ///
    /// - Parameter wait: How long the response's first byte took to come after its request was started.
    /// - Returns: Whether the wait was shorter than ``pollingWindow``.
    static func pollsForTheNextResponse(after wait: Duration) -> Bool {
        wait < pollingWindow
    }

    private func run() {
        while true {
            var timeout = nextTimeout()
            if timeout != 0, let until = pollingUntil {
                if clock.now < until && Self.requestsInFlight.value <= 1 {
                    timeout = 0
                } else {
                    pollingUntil = nil
                }
            }
            let woken = selector.wait(milliseconds: timeout) { readiness in
                handlers[readiness.descriptor]?.handle(
                    readable: readiness.readable,
                    writable: readiness.writable
                )
            }
            if woken {
                selector.acknowledgeWake()
            }
            let now = clock.now
            fireDueTimers(now: now)
            tickIfDue(now: now)
            // Jobs from other threads (which woke the loop) and from this one (which did not); a job may queue
            // another, which runs in the next round, after the next readiness reports.
            let jobs = queue.withLock { queue in
                if woken {
                    queue.wakePending = false
                }
                return queue.jobs.isEmpty ? [] : queue.jobs.swapAndClear()
            }
            for job in jobs {
                job()
            }
        }
    }

    /// Milliseconds until the earliest timer or the next tick, rounded up; -1 when there is neither; 0 when jobs
    /// wait.
    private func nextTimeout() -> Int32 {
        if queue.withLock({ !$0.jobs.isEmpty }) {
            return 0
        }
        var earliest = earliestTimer
        if !handlers.isEmpty {
            let tick = lastTick + Self.tickInterval
            earliest = min(earliest ?? tick, tick)
        }
        guard let earliest else { return -1 }
        return (earliest - clock.now).pollMilliseconds
    }

    private func tickIfDue(now: ContinuousClock.Instant) {
        guard now - lastTick >= Self.tickInterval else { return }
        lastTick = now
        for handler in handlers.values {
            handler.tick(now: now)
        }
    }

    private func fireDueTimers(now: ContinuousClock.Instant) {
        guard let earliestTimer, earliestTimer <= now else { return }
        let due = timers.filter { $0.value.deadline <= now }.sorted { $0.value.deadline < $1.value.deadline }
        for (identifier, timer) in due where timers.removeValue(forKey: identifier) != nil {
            timer.job()
        }
        // What the jobs scheduled counts too.
        self.earliestTimer = timers.values.lazy.map(\.deadline).min()
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

@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *)
extension EventLoop: TaskExecutor {
    /// Runs a task's job on the loop's thread, after the readiness reports it is handling now.
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        execute { [unowned(unsafe) self] in
            job.runSynchronously(on: self.asUnownedTaskExecutor())
        }
    }
}

// The readiness interfaces of each system: epoll and eventfd on Linux (declared by CSluiceSystem, since the Swift
// overlay of Glibc leaves them out), kqueue on Apple platforms.
#if canImport(Darwin)
import Darwin
#else
import CSluiceSystem
import Glibc
#endif

/// What a registered descriptor waits for.
struct Interest: OptionSet, Sendable {
    let rawValue: UInt8

    /// Bytes to read, the end of the stream, or an error.
    static let readable = Interest(rawValue: 1)
    /// Room to write, a finished connection attempt, or an error.
    static let writable = Interest(rawValue: 2)
}

/// One readiness report: a descriptor and what it is ready for.
///
/// An error or hang-up reports both, so that whoever waits learns of it by reading or writing.
struct Readiness {
    /// The descriptor.
    var descriptor: Int32
    /// Whether a read would not block.
    var readable: Bool
    /// Whether a write would not block.
    var writable: Bool
}

#if canImport(Darwin)
/// The system's readiness queue, kqueue, with a user event that wakes it from another thread.
struct Selector {
    private let queue: Int32
    private static let wakeIdentifier: UInt = 0

    /// Creates the queue.
    init() throws(SocketError) {
        let queue = kqueue()
        guard queue >= 0 else { throw SocketError("kqueue", errno: errno) }
        var wake = kevent(
            ident: Selector.wakeIdentifier,
            filter: Int16(EVFILT_USER),
            flags: UInt16(EV_ADD | EV_CLEAR),
            fflags: 0,
            data: 0,
            udata: nil
        )
        guard kevent(queue, &wake, 1, nil, 0, nil) == 0 else {
            let error = SocketError("kevent", errno: errno)
            Darwin.close(queue)
            throw error
        }
        self.queue = queue
    }

    /// Closes the queue; the selector is not to be used after.
    func close() {
        Darwin.close(queue)
    }

    /// Starts watching a descriptor.
    func add(_ descriptor: Int32, _ interest: Interest) {
        change(descriptor, from: [], to: interest)
    }

    /// Changes what a watched descriptor waits for.
    func modify(_ descriptor: Int32, from old: Interest, to new: Interest) {
        change(descriptor, from: old, to: new)
    }

    /// Stops watching a descriptor.
    func remove(_ descriptor: Int32, _ interest: Interest) {
        change(descriptor, from: interest, to: [])
    }

    private func change(_ descriptor: Int32, from old: Interest, to new: Interest) {
        var changes: [kevent] = []
        for (flag, filter) in [(Interest.readable, EVFILT_READ), (Interest.writable, EVFILT_WRITE)] {
            if old.contains(flag) != new.contains(flag) {
                let action = new.contains(flag) ? EV_ADD : EV_DELETE
                changes.append(
                    kevent(
                        ident: UInt(descriptor),
                        filter: Int16(filter),
                        flags: UInt16(action),
                        fflags: 0,
                        data: 0,
                        udata: nil
                    )
                )
            }
        }
        if !changes.isEmpty {
            _ = kevent(queue, changes, Int32(changes.count), nil, 0, nil)
        }
    }

    /// Waits for readiness or a wake-up, at most `milliseconds` (-1 for no limit).
    func wait(milliseconds: Int32, _ report: (Readiness) -> Void) -> Bool {
        var events = [kevent](repeating: kevent(), count: 128)
        var timeout = timespec(tv_sec: Int(milliseconds / 1_000), tv_nsec: Int(milliseconds % 1_000) * 1_000_000)
        let count = withUnsafePointer(to: &timeout) { pointer in
            kevent(queue, nil, 0, &events, Int32(events.count), milliseconds < 0 ? nil : pointer)
        }
        guard count > 0 else { return false }
        var woken = false
        for event in events[0..<Int(count)] {
            if event.filter == Int16(EVFILT_USER) {
                woken = true
                continue
            }
            let failed = event.flags & UInt16(EV_EOF | EV_ERROR) != 0
            report(
                Readiness(
                    descriptor: Int32(event.ident),
                    readable: event.filter == Int16(EVFILT_READ) || failed,
                    writable: event.filter == Int16(EVFILT_WRITE) || failed
                )
            )
        }
        return woken
    }

    /// Wakes a thread waiting in ``wait(milliseconds:_:)``.
    func wake() {
        var event = kevent(
            ident: Selector.wakeIdentifier,
            filter: Int16(EVFILT_USER),
            flags: 0,
            fflags: UInt32(NOTE_TRIGGER),
            data: 0,
            udata: nil
        )
        _ = kevent(queue, &event, 1, nil, 0, nil)
    }

    /// Takes note of a wake-up; a kqueue user event with `EV_CLEAR` resets itself.
    func acknowledgeWake() {}
}
#else
/// The system's readiness queue, epoll, with an eventfd that wakes it from another thread.
struct Selector {
    private let queue: Int32
    private let wakeDescriptor: Int32

    /// Creates the queue.
    init() throws(SocketError) {
        let queue = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard queue >= 0 else { throw SocketError("epoll_create1", errno: errno) }
        let wakeDescriptor = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard wakeDescriptor >= 0 else {
            let error = SocketError("eventfd", errno: errno)
            Glibc.close(queue)
            throw error
        }
        var event = epoll_event()
        event.events = EPOLLIN.rawValue
        event.data.fd = wakeDescriptor
        guard epoll_ctl(queue, EPOLL_CTL_ADD, wakeDescriptor, &event) == 0 else {
            let error = SocketError("epoll_ctl", errno: errno)
            Glibc.close(wakeDescriptor)
            Glibc.close(queue)
            throw error
        }
        self.queue = queue
        self.wakeDescriptor = wakeDescriptor
    }

    /// Closes the queue and its wake-up descriptor; the selector is not to be used after.
    func close() {
        Glibc.close(wakeDescriptor)
        Glibc.close(queue)
    }

    /// Starts watching a descriptor.
    ///
    /// A descriptor that waits for nothing is left out of the epoll set, and each change adds or removes it: epoll
    /// reports an error or a hang-up whatever a descriptor waits for, over and over while it lasts, so a connection
    /// that stopped reading for a slow consumer would otherwise keep its loop spinning once the peer reset it.
    func add(_ descriptor: Int32, _ interest: Interest) {
        guard !interest.isEmpty else { return }
        control(EPOLL_CTL_ADD, descriptor, interest)
    }

    /// Changes what a watched descriptor waits for.
    func modify(_ descriptor: Int32, from old: Interest, to new: Interest) {
        switch (old.isEmpty, new.isEmpty) {
        case (true, true): return
        case (true, false): control(EPOLL_CTL_ADD, descriptor, new)
        case (false, true): remove(descriptor, old)
        case (false, false): control(EPOLL_CTL_MOD, descriptor, new)
        }
    }

    /// Stops watching a descriptor.
    func remove(_ descriptor: Int32, _ interest: Interest) {
        guard !interest.isEmpty else { return }
        var event = epoll_event()
        _ = epoll_ctl(queue, EPOLL_CTL_DEL, descriptor, &event)
    }

    private func control(_ operation: Int32, _ descriptor: Int32, _ interest: Interest) {
        var event = epoll_event()
        var flags: UInt32 = 0
        if interest.contains(.readable) { flags |= EPOLLIN.rawValue | EPOLLRDHUP.rawValue }
        if interest.contains(.writable) { flags |= EPOLLOUT.rawValue }
        event.events = flags
        event.data.fd = descriptor
        _ = epoll_ctl(queue, operation, descriptor, &event)
    }

    /// Waits for readiness or a wake-up, at most `milliseconds` (-1 for no limit), and reports each ready
    /// descriptor.
    ///
    /// - Returns: Whether another thread woke the loop.
    func wait(milliseconds: Int32, _ report: (Readiness) -> Void) -> Bool {
        withUnsafeTemporaryAllocation(of: epoll_event.self, capacity: 128) { events in
            let count = epoll_wait(queue, events.baseAddress, Int32(events.count), milliseconds)
            guard count > 0 else { return false }
            var woken = false
            let failure = EPOLLERR.rawValue | EPOLLHUP.rawValue
            for index in 0..<Int(count) {
                let event = events[index]
                if event.data.fd == wakeDescriptor {
                    woken = true
                    continue
                }
                let failed = event.events & failure != 0
                report(
                    Readiness(
                        descriptor: event.data.fd,
                        readable: event.events & (EPOLLIN.rawValue | EPOLLRDHUP.rawValue) != 0 || failed,
                        writable: event.events & EPOLLOUT.rawValue != 0 || failed
                    )
                )
            }
            return woken
        }
    }

    /// Wakes a thread waiting in ``wait(milliseconds:_:)``.
    func wake() {
        var one: UInt64 = 1
        _ = write(wakeDescriptor, &one, 8)
    }

    /// Resets the eventfd after a wake-up, so that the next wait blocks again.
    func acknowledgeWake() {
        var count: UInt64 = 0
        _ = read(wakeDescriptor, &count, 8)
    }
}
#endif

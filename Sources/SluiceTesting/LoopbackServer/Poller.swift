import SluiceCore

// poll(2) and errno come from the C library, which is Darwin on Apple platforms and Glibc on Linux.
#if canImport(Darwin)
import Darwin
#else
import Glibc
#endif

/// The outcome of waiting on a descriptor with ``Poller``.
enum PollOutcome: Equatable {
    /// The descriptor is ready for the requested events, or has an error or hang-up to report.
    case ready
    /// The server is stopping; the caller should give up.
    case stopped
    /// The timeout passed first.
    case timedOut
    /// `poll` itself failed with this `errno`.
    case failed(Int32)
}

/// Waits on a descriptor and on the server's stop pipe at once, so that every blocking point is interruptible.
enum Poller {
    /// Waits until `descriptor` is ready for `events`, the stop pipe becomes readable, or `timeout` passes.
    ///
    /// Interrupted calls (`EINTR`) are retried with the remaining time, so the wait never ends early.
    ///
    /// - Parameters:
    ///   - descriptor: The descriptor to watch, or `nil` to wait only for the stop pipe.
    ///   - events: The `poll` events to wait for, such as `POLLIN`.
    ///   - stopDescriptor: The read end of the stop pipe; stopping wins when both are ready.
    ///   - timeout: How long to wait at most, or `nil` to wait without limit.
    /// - Returns: Why the wait ended.
    static func wait(
        for descriptor: Int32?,
        events: Int16,
        orStop stopDescriptor: Int32,
        timeout: Duration?
    ) -> PollOutcome {
        let clock = ContinuousClock()
        let deadline = timeout.map { clock.now + $0 }
        var descriptors = [pollfd(fd: stopDescriptor, events: Int16(POLLIN), revents: 0)]
        if let descriptor {
            descriptors.append(pollfd(fd: descriptor, events: events, revents: 0))
        }
        while true {
            var milliseconds: Int32 = -1
            if let deadline {
                let remaining = deadline - clock.now
                milliseconds = remaining.pollMilliseconds
            }
            for index in descriptors.indices {
                descriptors[index].revents = 0
            }
            let result = poll(&descriptors, nfds_t(descriptors.count), milliseconds)
            if result < 0 {
                let code = errno
                if code == EINTR || code == EAGAIN {
                    continue
                }
                return .failed(code)
            }
            if descriptors[0].revents != 0 {
                return .stopped
            }
            if descriptors.count > 1 && descriptors[1].revents != 0 {
                return .ready
            }
            if let deadline, clock.now >= deadline {
                return .timedOut
            }
            // A zero result before the deadline means poll rounded the timeout down; poll again for the rest.
        }
    }
}

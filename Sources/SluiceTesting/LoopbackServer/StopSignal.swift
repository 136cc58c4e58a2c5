// pipe(2), fcntl(2) and write(2) come from the C library, which is Darwin on Apple platforms and Glibc on Linux.
#if canImport(Darwin)
import Darwin
#else
import Glibc
#endif

/// A one-shot, broadcast "the server is stopping" signal that every thread can wait on with `poll`.
///
/// It is a pipe: ``fire()`` writes one byte and nobody ever reads it, so the read end stays readable for good and
/// every present and future `poll` on it returns at once. That lets a single event wake the accept loop, blocked
/// reads and writes, response delays and drip pauses together, without sleeping or busy-waiting.
///
/// The descriptors are closed in `deinit`, which runs only after the server and all of its threads have dropped
/// their references, so no thread can ever poll a closed or reused descriptor.
final class StopSignal: Sendable {
    /// The read end of the pipe, for ``Poller``.
    let readDescriptor: Int32

    /// The write end of the pipe, used once by ``fire()``.
    private let writeDescriptor: Int32

    /// Creates the pipe, with both ends non-blocking and close-on-exec.
    ///
    /// - Throws: ``SluiceTestingError`` naming `pipe` or `fcntl` when the system refuses.
    init() throws(SluiceTestingError) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            throw SluiceTestingError("pipe", errno: errno)
        }
        for descriptor in ends {
            let flags = fcntl(descriptor, F_GETFL)
            if flags < 0 || fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) < 0
                || fcntl(descriptor, F_SETFD, FD_CLOEXEC) < 0
            {
                let code = errno
                _ = close(ends[0])
                _ = close(ends[1])
                throw SluiceTestingError("fcntl", errno: code)
            }
        }
        readDescriptor = ends[0]
        writeDescriptor = ends[1]
    }

    deinit {
        _ = close(readDescriptor)
        _ = close(writeDescriptor)
    }

    /// Signals every waiter; calling it again does nothing more.
    func fire() {
        var byte: UInt8 = 1
        // EAGAIN means the pipe is full, which can only happen if it already holds our byte: the signal is set.
        while write(writeDescriptor, &byte, 1) < 0 && errno == EINTR {}
    }

    /// Whether ``fire()`` has been called.
    var hasFired: Bool {
        Poller.wait(for: nil, events: 0, orStop: readDescriptor, timeout: .zero) == .stopped
    }

    /// Waits for the given time, or less if the signal fires meanwhile.
    ///
    /// - Parameter duration: How long to wait at most.
    /// - Returns: `true` when the signal fired (at once, or during the wait); `false` after the full duration.
    func waitForStop(upTo duration: Duration) -> Bool {
        switch Poller.wait(for: nil, events: 0, orStop: readDescriptor, timeout: duration) {
        case .stopped:
            true
        case .ready, .timedOut:
            false
        case .failed:
            // poll cannot fail on a valid pipe; if it does anyway, report stopping rather than spinning.
            true
        }
    }
}

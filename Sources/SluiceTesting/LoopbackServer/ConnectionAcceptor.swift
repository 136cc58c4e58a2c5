import Dispatch
import SluiceCore

// POLLIN comes from the C library, which is Darwin on Apple platforms and Glibc on Linux.
#if canImport(Darwin)
import Darwin
#else
import Glibc
#endif

/// Accepts connections on the listening socket and starts a thread for each, until the server stops.
///
/// It runs on its own thread and waits in `poll` on the listening socket and the stop signal together, so stopping
/// never has to close a descriptor under a blocked `accept`.
struct ConnectionAcceptor: Sendable {
    /// How long to back off when the process is out of descriptors, threads or memory.
    private static let exhaustionBackoff = Duration.milliseconds(50)

    /// The non-blocking listening socket; closed by ``run()`` when it returns.
    let listener: Socket

    /// Routes, request log and counters.
    let state: ServerState

    /// The server's stop signal.
    let stop: StopSignal

    /// Tracks every thread the server started, so that ``LoopbackServer/stop()`` can wait for them.
    let threads: DispatchGroup

    /// Accepts connections until the server stops or the listening socket breaks, then closes it.
    func run() {
        defer { listener.closeDescriptor() }
        while true {
            let outcome = Poller.wait(
                for: listener.descriptor,
                events: Int16(POLLIN),
                orStop: stop.readDescriptor,
                timeout: nil
            )
            guard outcome == .ready else {
                return
            }
            switch listener.acceptConnection() {
            case .accepted(let connection):
                if !launch(connection) && stop.waitForStop(upTo: Self.exhaustionBackoff) {
                    return
                }
            case .retry:
                continue
            case .exhausted:
                if stop.waitForStop(upTo: Self.exhaustionBackoff) {
                    return
                }
            case .failed:
                return
            }
        }
    }

    /// Starts the thread that serves a new connection.
    ///
    /// - Parameter connection: The accepted connection.
    /// - Returns: `false` when no thread could be started; the connection has then been closed.
    private func launch(_ connection: Socket) -> Bool {
        guard state.connectionAccepted() else {
            connection.closeDescriptor()  // Stopping: the connection arrived too late.
            return true
        }
        threads.enter()
        let result = ThreadLauncher.start(name: "loopback-conn") { [state, stop, threads] in
            var handler = ConnectionHandler(socket: connection, stop: stop, state: state)
            handler.run()
            state.connectionClosed()
            threads.leave()
        }
        guard result == 0 else {
            connection.closeDescriptor()
            state.connectionClosed()
            threads.leave()
            return false
        }
        return true
    }
}

import SluiceCore

// Sockets come from the C library, which is Darwin on Apple platforms and Glibc on Linux; the two spell a few
// constants differently, and each difference below is marked where it occurs.
#if canImport(Darwin)
import Darwin
#else
import Glibc
#endif

/// The outcome of one `accept` on the non-blocking listening socket.
enum AcceptResult {
    /// A new connection, already non-blocking, close-on-exec and with `TCP_NODELAY`.
    case accepted(Socket)
    /// Nothing to accept now, or a transient error; poll again.
    case retry
    /// The process or system is out of descriptors or memory; back off briefly, then poll again.
    case exhausted
    /// The listening socket is broken (`errno` given); stop accepting.
    case failed(Int32)
}

/// What the loopback server does with a socket beyond what Sluice's own transport does: listen, accept, wait to send
/// everything, and tell a closed peer from one that sent more.
extension Socket {
    /// Creates a non-blocking TCP socket listening on 127.0.0.1 at a port the system picks.
    ///
    /// - Parameter backlog: The length of the queue of connections not yet accepted.
    /// - Returns: The listening socket and its port.
    /// - Throws: ``SluiceTestingError`` naming the system call that failed.
    static func listenOnLoopback(backlog: Int32) throws(SluiceTestingError) -> (socket: Socket, port: Int) {
        let listener: Socket
        do {
            listener = try Socket.stream(family: AF_INET)
        } catch {
            throw SluiceTestingError(error.call, errno: error.code)
        }
        let descriptor = listener.descriptor
        do throws(SluiceTestingError) {
            var address = sockaddr_in()
            // Only BSD-derived systems have (and want) the sin_len field.
            #if canImport(Darwin)
            address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
            #endif
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = 0
            address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
            let bound = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                    bind(descriptor, socketAddress, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard bound == 0 else {
                throw SluiceTestingError("bind", errno: errno)
            }
            guard listen(descriptor, backlog) == 0 else {
                throw SluiceTestingError("listen", errno: errno)
            }
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let named = withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                    getsockname(descriptor, socketAddress, &length)
                }
            }
            guard named == 0 else {
                throw SluiceTestingError("getsockname", errno: errno)
            }
            return (listener, Int(UInt16(bigEndian: address.sin_port)))
        } catch {
            listener.closeDescriptor()
            throw error
        }
    }

    /// Accepts one pending connection and prepares it for the server's non-blocking I/O.
    ///
    /// - Returns: The new connection, or why there is none.
    func acceptConnection() -> AcceptResult {
        let accepted = accept(descriptor, nil, nil)
        guard accepted >= 0 else {
            switch errno {
            case EAGAIN, EWOULDBLOCK, EINTR, ECONNABORTED, EPROTO, EPERM:
                return .retry
            case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                return .exhausted
            case let code:
                return .failed(code)
            }
        }
        let connection = Socket(descriptor: accepted)
        do {
            try connection.configure()
            // Small writes (drip faults, tiny responses) must leave at once instead of waiting for Nagle's algorithm.
            connection.disableNagle()
        } catch {
            connection.closeDescriptor()
            return .retry
        }
        return .accepted(connection)
    }

    /// Whether the peer has closed its end or reset the connection, looking at what is readable without
    /// consuming it.
    ///
    /// - Returns: `true` when a read would report the end of the stream or a connection error.
    func peerHasClosed() -> Bool {
        pendingInput() == .closed
    }

    /// Sends every byte, waiting for buffer space as needed; stopping the server or a peer error ends it early.
    ///
    /// - Parameters:
    ///   - bytes: The bytes to send.
    ///   - stop: The server's stop signal.
    /// - Returns: `true` when every byte was handed to the kernel.
    func sendAll(_ bytes: ArraySlice<UInt8>, stop: StopSignal) -> Bool {
        var offset = bytes.startIndex
        while offset < bytes.endIndex {
            let result = bytes[offset...].withUnsafeBytes { sendSome($0) }
            switch result {
            case .transferred(let count):
                offset += count
            case .wouldBlock:
                let outcome = Poller.wait(
                    for: descriptor,
                    events: Int16(POLLOUT),
                    orStop: stop.readDescriptor,
                    timeout: nil
                )
                guard outcome == .ready else {
                    return false
                }
            case .endOfStream, .failed:
                return false
            }
        }
        return true
    }
}

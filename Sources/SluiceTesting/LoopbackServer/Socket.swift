// Sockets come from the C library, which is Darwin on Apple platforms and Glibc on Linux; the two spell a few
// constants differently, and each difference below is marked where it occurs.
#if canImport(Darwin)
import Darwin
#else
import Glibc
#endif

/// The outcome of one `recv` or `send` on a non-blocking socket.
enum SocketIOResult: Equatable {
    /// This many bytes were transferred (always more than zero).
    case transferred(Int)
    /// Nothing can be transferred now; wait with ``Poller`` and try again.
    case wouldBlock
    /// The peer closed its sending side (`recv` returned 0).
    case endOfStream
    /// The call failed with this `errno`, such as `ECONNRESET` or `EPIPE`.
    case failed(Int32)
}

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

/// A thin, copyable handle on a socket descriptor with the few system calls the server needs.
///
/// It does not own the descriptor: whoever created it calls ``closeDescriptor()`` exactly once.
struct Socket: Sendable {
    /// The file descriptor.
    let descriptor: Int32

    /// Creates a non-blocking TCP socket listening on 127.0.0.1 at a port the system picks.
    ///
    /// - Parameter backlog: The length of the queue of connections not yet accepted.
    /// - Returns: The listening socket and its port.
    /// - Throws: ``LoopbackServerError`` naming the system call that failed.
    static func listenOnLoopback(backlog: Int32) throws(LoopbackServerError) -> (socket: Socket, port: Int) {
        // Darwin declares SOCK_STREAM as an Int32; Glibc imports it as a member of the __socket_type enum.
        #if canImport(Darwin)
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #else
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        guard descriptor >= 0 else {
            throw LoopbackServerError("socket", errno: errno)
        }
        let listener = Socket(descriptor: descriptor)
        do throws(LoopbackServerError) {
            try listener.configure()
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
                throw LoopbackServerError("bind", errno: errno)
            }
            guard listen(descriptor, backlog) == 0 else {
                throw LoopbackServerError("listen", errno: errno)
            }
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let named = withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                    getsockname(descriptor, socketAddress, &length)
                }
            }
            guard named == 0 else {
                throw LoopbackServerError("getsockname", errno: errno)
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
        do throws(LoopbackServerError) {
            try connection.configure()
            var one: Int32 = 1
            // Small writes (drip faults, tiny responses) must leave at once instead of waiting for Nagle's algorithm.
            _ = setsockopt(accepted, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            // Darwin has no MSG_NOSIGNAL, so writes to a vanished peer are kept from raising SIGPIPE per socket.
            #if canImport(Darwin)
            _ = setsockopt(accepted, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
            #endif
        } catch {
            connection.closeDescriptor()
            return .retry
        }
        return .accepted(connection)
    }

    /// Reads whatever is available, up to the buffer's size.
    ///
    /// - Parameter buffer: Where to put the bytes.
    /// - Returns: How many bytes arrived, or why none did.
    func receive(into buffer: UnsafeMutableRawBufferPointer) -> SocketIOResult {
        while true {
            let count = recv(descriptor, buffer.baseAddress, buffer.count, 0)
            if count > 0 {
                return .transferred(count)
            }
            if count == 0 {
                return .endOfStream
            }
            switch errno {
            case EINTR:
                continue
            case EAGAIN, EWOULDBLOCK:
                return .wouldBlock
            case let code:
                return .failed(code)
            }
        }
    }

    /// Whether the peer has closed its end or reset the connection, looking at what is readable without
    /// consuming it.
    ///
    /// - Returns: `true` when a read would report the end of the stream or a connection error.
    func peerHasClosed() -> Bool {
        var byte: UInt8 = 0
        while true {
            let count = recv(descriptor, &byte, 1, Int32(MSG_PEEK))
            if count > 0 {
                return false
            }
            if count == 0 {
                return true
            }
            switch errno {
            case EINTR:
                continue
            case EAGAIN, EWOULDBLOCK:
                return false
            default:
                return true
            }
        }
    }

    /// Writes as much of the buffer as the socket takes now, without raising `SIGPIPE` if the peer is gone.
    ///
    /// - Parameter buffer: The bytes to send; must not be empty.
    /// - Returns: How many bytes were sent, or why none were.
    func sendSome(_ buffer: UnsafeRawBufferPointer) -> SocketIOResult {
        // Linux suppresses SIGPIPE per call with MSG_NOSIGNAL; Darwin uses SO_NOSIGPIPE, set in acceptConnection().
        #if canImport(Darwin)
        let flags: Int32 = 0
        #else
        let flags = Int32(MSG_NOSIGNAL)
        #endif
        while true {
            let count = send(descriptor, buffer.baseAddress, buffer.count, flags)
            if count >= 0 {
                return count == 0 ? .wouldBlock : .transferred(count)
            }
            switch errno {
            case EINTR:
                continue
            case EAGAIN, EWOULDBLOCK:
                return .wouldBlock
            case let code:
                return .failed(code)
            }
        }
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

    /// Half-closes the connection: the peer sees end-of-stream, and we can still read what it sends.
    func shutdownWriting() {
        // Glibc imports SHUT_WR from an anonymous enum (an Int), Darwin as an Int32 macro.
        _ = shutdown(descriptor, Int32(SHUT_WR))
    }

    /// Makes the next ``closeDescriptor()`` reset the connection (RST) instead of closing it gracefully (FIN).
    func enableResetOnClose() {
        var option = linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
    }

    /// Closes the descriptor; call exactly once.
    func closeDescriptor() {
        // Retrying close after EINTR could close a descriptor another thread has just been given, so never retry.
        _ = close(descriptor)
    }

    /// Makes the socket non-blocking and close-on-exec (so child processes of the tests do not inherit it).
    private func configure() throws(LoopbackServerError) {
        let flags = fcntl(descriptor, F_GETFL)
        guard flags >= 0, fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) == 0 else {
            throw LoopbackServerError("fcntl", errno: errno)
        }
        guard fcntl(descriptor, F_SETFD, FD_CLOEXEC) == 0 else {
            throw LoopbackServerError("fcntl", errno: errno)
        }
    }
}

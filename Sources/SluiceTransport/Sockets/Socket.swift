// Sockets come from the C library, which is Darwin on Apple platforms and Glibc on Linux; the two spell a few
// constants differently, and each difference below is marked where it occurs.
#if canImport(Darwin)
import Darwin
#else
import Glibc
#endif

/// The outcome of one `recv` or `send` on a non-blocking socket.
package enum SocketIOResult: Equatable, Sendable {
    /// This many bytes were transferred (always more than zero).
    case transferred(Int)
    /// Nothing can be transferred now; wait for readiness and try again.
    case wouldBlock
    /// The peer closed its sending side (`recv` returned 0).
    case endOfStream
    /// The call failed with this `errno`, such as `ECONNRESET` or `EPIPE`.
    case failed(Int32)
}

extension SocketIOResult {
    /// What a transfer call that failed with `code` means: ``wouldBlock`` for a socket not ready, ``failed(_:)``
    /// otherwise, or `nil` for a call a signal interrupted, which is made again.
    package init?(failedWith code: Int32) {
        switch code {
        case EINTR:
            return nil
        case EAGAIN, EWOULDBLOCK:
            self = .wouldBlock
        default:
            self = .failed(code)
        }
    }
}

/// A system call that failed, with its `errno`.
package struct SocketError: Error, Sendable, CustomStringConvertible {
    /// The system call, such as `connect`.
    package let call: String
    /// The `errno` it set.
    package let code: Int32

    /// Creates an error for a failed call.
    package init(_ call: String, errno code: Int32) {
        self.call = call
        self.code = code
    }

    /// The call and the system's words for the error, such as `connect: Connection refused (errno 111)`.
    package var description: String {
        "\(call): \(String(cString: strerror(code))) (errno \(code))"
    }
}

/// A thin, copyable handle on a non-blocking socket descriptor with the few system calls HTTP needs, shared by
/// Sluice's own transport and the loopback test server.
///
/// It does not own the descriptor: whoever created it calls ``closeDescriptor()`` exactly once.
package struct Socket: Sendable, Hashable {
    /// The file descriptor.
    package let descriptor: Int32

    /// Wraps a descriptor.
    package init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Creates a non-blocking, close-on-exec stream socket of a family (`AF_INET`, `AF_INET6`, `AF_UNIX`).
    ///
    /// - Parameter family: The address family.
    /// - Returns: The socket, configured; TCP sockets send small writes at once (`TCP_NODELAY`).
    /// - Throws: ``SocketError`` naming the call that failed.
    package static func stream(family: Int32) throws(SocketError) -> Socket {
        // Darwin declares SOCK_STREAM as an Int32; Glibc imports it as a member of the __socket_type enum.
        #if canImport(Darwin)
        let descriptor = socket(family, SOCK_STREAM, 0)
        #else
        let descriptor = socket(family, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        guard descriptor >= 0 else {
            throw SocketError("socket", errno: errno)
        }
        let created = Socket(descriptor: descriptor)
        do throws(SocketError) {
            try created.configure()
        } catch {
            created.closeDescriptor()
            throw error
        }
        if family != AF_UNIX {
            created.disableNagle()
        }
        return created
    }

    /// Starts connecting to an address.
    ///
    /// - Parameter address: The peer.
    /// - Returns: `true` when connected already, `false` when the connection is under way: wait until the socket
    ///   is writable, then read ``pendingError()``.
    /// - Throws: ``SocketError`` when the attempt failed at once (`ECONNREFUSED` on a Unix socket, `ENOENT`…).
    package func connect(to address: SocketAddress) throws(SocketError) -> Bool {
        let result = address.withSockaddr { pointer, length in
            // The C function, not this method.
            #if canImport(Darwin)
            Darwin.connect(descriptor, pointer, length)
            #else
            Glibc.connect(descriptor, pointer, length)
            #endif
        }
        if result == 0 {
            return true
        }
        switch errno {
        case EINPROGRESS, EINTR:
            return false
        case let code:
            throw SocketError("connect", errno: code)
        }
    }

    /// The error of a connection attempt that has finished (`SO_ERROR`); 0 when it succeeded.
    package func pendingError() -> Int32 {
        var code: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &code, &length) == 0 else {
            return errno
        }
        return code
    }

    /// Reads whatever is available, up to the buffer's size.
    ///
    /// - Parameter buffer: Where to put the bytes.
    /// - Returns: How many bytes arrived, or why none did.
    package func receive(into buffer: UnsafeMutableRawBufferPointer) -> SocketIOResult {
        while true {
            let count = recv(descriptor, buffer.baseAddress, buffer.count, 0)
            if count > 0 {
                return .transferred(count)
            }
            if count == 0 {
                return .endOfStream
            }
            if let failure = SocketIOResult(failedWith: errno) {
                return failure
            }
        }
    }

    /// What waits to be read, looked at without consuming it.
    package enum PendingInput: Equatable, Sendable {
        /// Nothing: a read would block.
        case nothing
        /// Bytes.
        case data
        /// The end of the stream, or an error such as a reset.
        case closed
    }

    /// What a read would return now, looked at without consuming it (`MSG_PEEK`).
    ///
    /// - Returns: Whether bytes, the end of the stream (or an error), or nothing wait.
    package func pendingInput() -> PendingInput {
        var byte: UInt8 = 0
        while true {
            let count = recv(descriptor, &byte, 1, Int32(MSG_PEEK))
            if count > 0 {
                return .data
            }
            if count == 0 {
                return .closed
            }
            switch SocketIOResult(failedWith: errno) {
            case nil: continue
            case .wouldBlock?: return .nothing
            default: return .closed
            }
        }
    }

    /// Writes as much of the buffer as the socket takes now, without raising `SIGPIPE` if the peer is gone.
    ///
    /// - Parameter buffer: The bytes to send; must not be empty.
    /// - Returns: How many bytes were sent, or why none were.
    package func sendSome(_ buffer: UnsafeRawBufferPointer) -> SocketIOResult {
        // Linux suppresses SIGPIPE per call with MSG_NOSIGNAL; Darwin uses SO_NOSIGPIPE, set in configure().
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
            if let failure = SocketIOResult(failedWith: errno) {
                return failure
            }
        }
    }

    /// Half-closes the connection: the peer sees end-of-stream, and we can still read what it sends.
    package func shutdownWriting() {
        // Glibc imports SHUT_WR from an anonymous enum (an Int), Darwin as an Int32 macro.
        _ = shutdown(descriptor, Int32(SHUT_WR))
    }

    /// Makes the next ``closeDescriptor()`` reset the connection (RST) instead of closing it gracefully (FIN).
    package func enableResetOnClose() {
        var option = linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
    }

    /// Sends small writes at once instead of waiting for Nagle's algorithm to gather them.
    package func disableNagle() {
        var one: Int32 = 1
        _ = setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Closes the descriptor; call exactly once.
    package func closeDescriptor() {
        // Retrying close after EINTR could close a descriptor another thread has just been given, so never retry.
        _ = close(descriptor)
    }

    /// Makes the socket non-blocking and close-on-exec (so child processes do not inherit it), and on Darwin, which
    /// has no `MSG_NOSIGNAL`, keeps writes to a vanished peer from raising `SIGPIPE`.
    package func configure() throws(SocketError) {
        let flags = fcntl(descriptor, F_GETFL)
        guard flags >= 0, fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) == 0 else {
            throw SocketError("fcntl", errno: errno)
        }
        guard fcntl(descriptor, F_SETFD, FD_CLOEXEC) == 0 else {
            throw SocketError("fcntl", errno: errno)
        }
        #if canImport(Darwin)
        var one: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }
}

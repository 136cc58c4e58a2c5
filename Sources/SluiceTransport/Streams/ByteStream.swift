/// The bytes a connection exchanges with its server: a socket's, plain, or the plaintext of TLS over it.
///
/// A connection reads and writes through it and never sees which: the two forms answer in the same terms
/// (``SocketIOResult``). The socket stays visible for what only the descriptor does: registering with the event
/// loop, the connection attempt, closing. A struct with an optional TLS stream rather than a protocol, so that the
/// plain form costs one test of `nil` a call, no dynamic dispatch and no allocation.
struct ByteStream: Sendable {
    /// The socket under the stream.
    let socket: Socket
    /// TLS over the socket, for `https://`; `nil` for plain bytes.
    let tls: TLSStream?

    /// Reads what is available, up to the buffer's size.
    ///
    /// - Parameter buffer: Where to put the bytes.
    /// - Returns: How many bytes arrived, or why none did.
    func receive(into buffer: UnsafeMutableRawBufferPointer) -> SocketIOResult {
        if let tls {
            return tls.receive(into: buffer)
        }
        return socket.receive(into: buffer)
    }

    /// Writes as much of the buffer as the stream takes now.
    ///
    /// - Parameter buffer: The bytes; not empty.
    /// - Returns: How many were taken, or why none were.
    func sendSome(_ buffer: UnsafeRawBufferPointer) -> SocketIOResult {
        if let tls {
            return tls.sendSome(buffer)
        }
        return socket.sendSome(buffer)
    }

    /// Sends what the stream took and still holds (TLS records); `.wouldBlock` while some wait for the socket.
    func flush() -> SocketIOResult {
        tls?.flush() ?? .endOfStream
    }

    /// Whether bytes wait inside the stream, to be read though the socket may be quiet (TLS records read ahead).
    var hasBufferedInput: Bool {
        tls?.hasBufferedInput ?? false
    }

    /// The words for a read or write that failed with `code`: the system's, or TLS's.
    func failureDescription(call: String, code: Int32) -> String {
        tls?.failure ?? SocketError(call, errno: code).description
    }

    /// Ends the stream as its protocol ends it (`close_notify` for TLS), and closes the descriptor; call once, after
    /// the socket has left the event loop.
    ///
    /// The connection is shut down before the descriptor is closed: a program the application is starting holds a
    /// copy of every descriptor until it runs its new image, and while a copy lives `close` alone leaves the
    /// connection open, so the server would learn of the end only later.
    func close() {
        tls?.shutdown()
        socket.shutdownWriting()
        socket.closeDescriptor()
    }
}

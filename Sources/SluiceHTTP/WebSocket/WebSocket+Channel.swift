extension WebSocket {
    /// What carries a ``WebSocket``'s messages once its opening handshake is done: Sluice's own connection, URLSession's
    /// `URLSessionWebSocketTask`, or a script in tests.
    ///
    /// A ``WebSocket`` is a handle on one channel; a performer that opens WebSockets its own way makes a channel and
    /// returns ``WebSocket/init(channel:subprotocol:compressesMessages:response:)``. A channel is used from several tasks at
    /// once (one reading, others sending or closing), so every requirement must be safe to call concurrently.
    public protocol Channel: Sendable {
        /// The next message from the server.
        ///
        /// - Returns: The message, or `nil` after a closing handshake with 1000, 1001 or no code.
        /// - Throws: ``SluiceError`` when the connection failed or closed with another code; `CancellationError` when the
        ///   task was cancelled, which must close the connection.
        func receive() async throws -> WebSocket.Message?

        /// Sends a message, suspending while the channel's buffer is full.
        ///
        /// - Parameter message: The message.
        /// - Throws: ``SluiceError`` when the connection failed or is closing.
        func send(_ message: WebSocket.Message) async throws

        /// Starts the closing handshake with a code and a reason, and returns once the connection is closed, or, where the
        /// channel cannot tell (URLSession's), once the closing frame is on its way.
        ///
        /// - Parameters:
        ///   - code: Why the client closes.
        ///   - reason: A short text, at most 123 bytes of UTF-8.
        func close(code: WebSocket.CloseCode, reason: String) async

        /// Closes at once, because the ``WebSocket`` handle was released: a closing frame with 1001 where one can still
        /// go, no wait for the answer.
        func abort()

        /// The code and reason of the server's closing frame, once it has arrived; `nil` before, and for a connection that
        /// ended without one. The code is `nil` for a closing frame that carried none.
        var closeStatus: (code: WebSocket.CloseCode?, reason: String)? { get }
    }
}

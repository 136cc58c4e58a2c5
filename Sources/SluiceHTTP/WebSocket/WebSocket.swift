import Foundation

/// A WebSocket (RFC 6455): messages as an `AsyncSequence`, and ``send(_:)`` with back-pressure.
///
/// Open one through a client, so that its middleware applies to the handshake, with
/// ``Client/webSocket(_:protocols:configuration:)``, or from a request with a performer's
/// ``RequestPerformer/webSocket(_:protocols:configuration:)``: Sluice's own transport (``SocketRequestPerformer``)
/// or URLSession's (``NetworkRequestPerformer``). What follows is the behaviour on Sluice's own transport; see
/// ``NetworkRequestPerformer/webSocket(_:protocols:configuration:)`` for what differs on URLSession's.
///
/// ```swift
/// let performer = SocketRequestPerformer()
/// let socket = try await performer.webSocket(URLRequest(url: url))
/// try await socket.send(.text("hello"))
/// for try await message in socket.messages {
///     print(message)
/// }
/// ```
///
/// **Reading.** ``messages`` yields each whole message, text or binary, however many frames carried it; one task
/// reads at a time. The socket is read only while the reader keeps up: once ``Configuration/readAhead`` bytes of
/// messages wait unread, reading stops until the reader has taken half of them. The sequence ends after a closing handshake with
/// 1000 (normal closure), 1001 (going away) or no code, and throws a ``SluiceError`` of the ``SluiceError/Code/close``
/// code for any other code, and for a connection that ended without a closing frame. Cancelling the reading task
/// sends a closing frame with 1001 and closes the connection.
///
/// **Writing.** ``send(_:)`` frames and masks a message and writes as much as the socket takes; it suspends while
/// more than ``Configuration/sendBuffer`` bytes wait to go out, so a fast sender uses bounded memory. The messages of
/// a run (sent in quick succession with none received between them) are written together by the connection's loop
/// a moment later: `send(_:)` may return before such a message has reached the system.
///
/// **Control frames.** Pings are answered with pongs; ``Configuration/pingInterval`` sends keep-alive pings and
/// closes a connection whose server does not answer within ``Configuration/pingTimeout``. ``close(code:reason:)``
/// runs the closing handshake; a server's closing frame is answered with its own code.
///
/// **Compression.** ``Configuration/compression`` offers `permessage-deflate` (RFC 7692), through the system's zlib
/// loaded at run time; a compressed message may decompress to at most ``Configuration/maximumMessageSize`` bytes.
///
/// **Hostile servers.** Every frame is checked as RFC 6455 asks of a client: no mask, no reserved bits or opcodes, no
/// fragmented or oversized control frames, lengths in their shortest form, fragments in order, UTF-8 checked as it
/// arrives, at most ``Configuration/maximumFrameSize`` and ``Configuration/maximumMessageSize`` bytes. A violation
/// closes the connection with the code the rule calls for (1002, 1007 or 1009) and reaches the reader as a
/// ``SluiceError`` of the ``SluiceError/Code/frame`` code naming the rule and the byte where the frame began.
///
/// See <doc:WebSockets> for more.
public final class WebSocket: Sendable {
    /// The messages, as they arrive.
    public struct Messages: AsyncSequence, Sendable {
        /// A message.
        public typealias Element = Message

        fileprivate let socket: WebSocket

        /// Reads the next message each time.
        public struct AsyncIterator: AsyncIteratorProtocol, Sendable {
            fileprivate let socket: WebSocket

            /// The next message, or `nil` after a normal closing handshake.
            ///
            /// - Throws: ``SluiceError`` when the connection failed or closed with a code other than 1000 or 1001,
            ///   `CancellationError` when the task was cancelled, which closes the connection.
            public mutating func next() async throws -> Message? {
                try await socket.receive()
            }
        }

        /// Makes the iterator.
        public func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(socket: socket)
        }
    }

    private let channel: any WebSocket.Channel

    /// The subprotocol the server chose among those offered, if any.
    public let subprotocol: String?

    /// Whether messages are compressed both ways with `permessage-deflate`, which
    /// ``Configuration/compression`` offers and the server accepted.
    public let compressesMessages: Bool

    /// The server's answer to the opening handshake (101 Switching Protocols) and its fields, where the channel has
    /// one.
    public let response: HTTPResponse?

    /// Wraps a channel whose opening handshake is done: what a performer that opens WebSockets its own way returns.
    ///
    /// Releasing the WebSocket aborts the channel (``WebSocket/Channel/abort()``).
    ///
    /// - Parameters:
    ///   - channel: What carries the messages.
    ///   - subprotocol: The subprotocol the server chose, if any.
    ///   - compressesMessages: Whether the messages are compressed with `permessage-deflate`.
    ///   - response: The server's answer to the opening handshake, if there is one to show.
    public init(
        channel: any WebSocket.Channel,
        subprotocol: String? = nil,
        compressesMessages: Bool = false,
        response: HTTPResponse? = nil
    ) {
        self.channel = channel
        self.response = response
        self.subprotocol = subprotocol
        self.compressesMessages = compressesMessages
    }

    deinit {
        channel.abort()
    }

    /// Closes at once, as releasing the WebSocket does.
    package func abort() {
        channel.abort()
    }

    /// The messages from the server, as they arrive; read them from one task at a time.
    public var messages: Messages { Messages(socket: self) }

    /// The next message from the server.
    ///
    /// - Returns: The message, or `nil` after a closing handshake with 1000, 1001 or no code.
    /// - Throws: ``SluiceError`` when the connection failed or closed with another code; `CancellationError` when the
    ///   task was cancelled, which closes the connection.
    public func receive() async throws -> Message? {
        try await channel.receive()
    }

    /// Sends a message, suspending while more than ``Configuration/sendBuffer`` bytes wait to go out.
    ///
    /// - Parameter message: The message: text goes as UTF-8 in one text frame, data in one binary frame.
    /// - Throws: ``SluiceError`` when the connection failed or is closing.
    public func send(_ message: Message) async throws {
        try await channel.send(message)
    }

    /// Runs the closing handshake: sends a closing frame, then waits until the server answers and closes the
    /// connection, or ``Configuration/closeTimeout`` passes.
    ///
    /// Messages that arrive before the server's closing frame can still be read from ``messages``.
    ///
    /// - Parameters:
    ///   - code: Why; ``CloseCode/normalClosure`` by default.
    ///   - reason: A short text for the server, at most 123 bytes of UTF-8 (longer is cut).
    public func close(code: CloseCode = .normalClosure, reason: String = "") async {
        await channel.close(code: code, reason: reason)
    }

    /// The code and reason of the server's closing frame, once it has arrived.
    ///
    /// `nil` before, and for a connection that ended without one. The code is `nil` for a closing frame that carried
    /// none.
    public var closeStatus: (code: CloseCode?, reason: String)? {
        channel.closeStatus
    }
}

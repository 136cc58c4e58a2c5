extension WebSocket {
    /// The limits and timers of a ``WebSocket``.
    public struct Configuration: Sendable {
        /// The most payload bytes in one frame from the server; 16 MiB by default.
        ///
        /// Under `permessage-deflate` a compressed frame may be larger by deflate's overhead on bytes it cannot shrink
        /// (a thousandth, and 64 bytes), so that a message of ``maximumMessageSize`` bytes still passes.
        public var maximumFrameSize: Int
        /// The most bytes in one message from the server, its fragments added up; 16 MiB by default.
        public var maximumMessageSize: Int
        /// The most bytes of messages read ahead of the reader before the socket stops being read; 1 MiB by default.
        ///
        /// Reading resumes once the reader has taken half of them.
        ///
        /// A message larger than this is still read whole, up to ``maximumMessageSize``.
        public var readAhead: Int
        /// The most bytes waiting to be sent before ``WebSocket/send(_:)`` suspends; 1 MiB by default.
        ///
        /// A message larger than this is taken whole, and its sender waits until it has gone out.
        public var sendBuffer: Int
        /// The longest the opening handshake may take once connected, from the request to the server's answer; 30 s by
        /// default.
        public var handshakeTimeout: Duration
        /// How often a ping is sent while the connection is open, or `nil` (the default) for none.
        public var pingInterval: Duration?
        /// How long the server has to answer a keep-alive ping before the connection is closed as dead; 20 s by
        /// default.
        public var pingTimeout: Duration
        /// How long the server has to answer a closing frame and close the connection before the client closes it;
        /// 10 s by default.
        public var closeTimeout: Duration
        /// Whether `permessage-deflate` (RFC 7692) is offered, to compress messages both ways with the system's zlib;
        /// `false` by default.
        ///
        /// Where zlib cannot be loaded it is not offered. A compressed message from the server may decompress to at
        /// most ``maximumMessageSize`` bytes, and at most ``maximumDecompressionRatio`` times its compressed size; its
        /// text is checked as UTF-8 once decompressed, at its end.
        public var compression: Bool
        /// The most a compressed message from the server may expand, as a multiple of its compressed size, once it has
        /// decompressed to more than 64 KiB; 100 by default, or `nil` for no bound but ``maximumMessageSize``.
        ///
        /// The bound the HTTP transport holds response bodies to
        /// (``SocketRequestPerformer/Configuration/maximumDecompressionRatio``): a message that expands more fails the
        /// reader with a ``SluiceError`` of the frame stage naming the ratio and the bytes in and out, and the
        /// connection closes with 1009 (message too big).
        public var maximumDecompressionRatio: Int?

        /// Creates a configuration; every parameter has the default its property documents.
        ///
        /// - Parameters:
        ///   - maximumFrameSize: The most payload bytes in one frame from the server.
        ///   - maximumMessageSize: The most bytes in one message from the server.
        ///   - readAhead: The most bytes of messages read ahead of the reader.
        ///   - sendBuffer: The most bytes waiting to be sent before a sender suspends.
        ///   - handshakeTimeout: The longest the opening handshake may take once connected.
        ///   - pingInterval: How often a keep-alive ping is sent, or `nil` for none.
        ///   - pingTimeout: How long the server has to answer a keep-alive ping.
        ///   - closeTimeout: How long the server has to finish the closing handshake.
        ///   - compression: Whether `permessage-deflate` is offered.
        ///   - maximumDecompressionRatio: The most a compressed message may expand, or `nil` for no bound.
        public init(
            maximumFrameSize: Int = 16 << 20,
            maximumMessageSize: Int = 16 << 20,
            readAhead: Int = 1 << 20,
            sendBuffer: Int = 1 << 20,
            handshakeTimeout: Duration = .seconds(30),
            pingInterval: Duration? = nil,
            pingTimeout: Duration = .seconds(20),
            closeTimeout: Duration = .seconds(10),
            compression: Bool = false,
            maximumDecompressionRatio: Int? = 100
        ) {
            self.maximumFrameSize = max(125, maximumFrameSize)
            self.maximumMessageSize = max(0, maximumMessageSize)
            self.readAhead = max(1, readAhead)
            self.sendBuffer = max(1, sendBuffer)
            self.handshakeTimeout = handshakeTimeout
            self.pingInterval = pingInterval
            self.pingTimeout = pingTimeout
            self.closeTimeout = closeTimeout
            self.compression = compression
            self.maximumDecompressionRatio = maximumDecompressionRatio.map { max(1, $0) }
        }
    }
}

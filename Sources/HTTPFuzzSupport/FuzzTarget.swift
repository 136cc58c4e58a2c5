/// The parsers of bytes from the network that the fuzzer exercises, each with the invariants it checks.
///
/// The fuzzer picks one by name from `SLUICE_FUZZ_TARGET`; the tests replay the inputs each one found.
package enum FuzzTarget: String, CaseIterable, Sendable {
    /// The HTTP/1.1 response parser of Sluice's own transport.
    case responseParser = "response-parser"
    /// The line splitter under every typed stream, read as lines.
    case lines
    /// The server-sent events parser.
    case serverSentEvents = "server-sent-events"
    /// The multipart form encoder's boundary and part headers.
    case multipart
    /// The check of every request before it is sent, and the head the transport writes for what it accepts.
    case requestValidation = "request-validation"
    /// The decoder of compressed response bodies (`gzip`, `deflate`, `br`, `zstd`) of Sluice's own transport.
    case contentDecoder = "content-decoder"
    /// The WebSocket frame parser, and the reassembly of fragmented messages.
    case webSocketFrames = "websocket-frames"
    /// The HTTP/2 session of Sluice's own transport: nghttp2's frame reading, and the limits and events around it.
    case http2Frames = "http2-frames"

    /// Checks one input of the fuzzer.
    ///
    /// - Parameter bytes: The fuzzer's input, read as a ``ChunkedInput``.
    /// - Returns: A description of the broken invariant, or `nil` when they all hold.
    package func violation(in bytes: some Collection<UInt8>) async -> String? {
        await violation(in: ChunkedInput(bytes))
    }

    /// Checks one input.
    ///
    /// - Parameter input: The payload, how it is cut and the target's flags.
    /// - Returns: A description of the broken invariant, or `nil` when they all hold.
    package func violation(in input: ChunkedInput) async -> String? {
        switch self {
        case .responseParser: ResponseParserInvariants.violation(in: input)
        case .lines: await LineInvariants.violation(in: input)
        case .serverSentEvents: await ServerSentEventInvariants.violation(in: input)
        case .multipart: MultipartInvariants.violation(in: input)
        case .requestValidation: RequestValidationInvariants.violation(in: input)
        case .contentDecoder: ContentDecoderInvariants.violation(in: input)
        case .webSocketFrames: WebSocketFrameInvariants.violation(in: input)
        case .http2Frames: HTTP2FrameInvariants.violation(in: input)
        }
    }
}

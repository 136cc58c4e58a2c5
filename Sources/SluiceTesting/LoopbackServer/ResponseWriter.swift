import Foundation
import SluiceCore

/// What happens to a connection after a response has been written.
enum ConnectionDisposition: Equatable {
    /// Read the next request.
    case keepOpen
    /// Close gracefully: half-close, drain what the client still sends, then close (FIN).
    case close
    /// Reset the connection (RST).
    case reset
    /// The peer is gone or the server is stopping: close at once.
    case abort
}

/// What the writer needs to know about the request it answers.
struct ResponseContext {
    /// The request method; `HEAD` responses carry no body.
    let method: String
    /// The request's minor HTTP version; HTTP/1.0 clients cannot receive chunked bodies.
    let minorVersion: Int
    /// Whether the client allows (and the server wants) the connection to stay open afterwards.
    let keepAlive: Bool
    /// The request's `Range` field value, or `nil`.
    var range: String? = nil
    /// The request's `If-Range` field value, or `nil`.
    var ifRange: String? = nil
}

/// Serializes a ``LoopbackServer/Response`` and writes it to a connection, applying its fault.
///
/// Bodies are written piece by piece through a small buffer that is flushed whenever it fills and before every pause,
/// and every flush waits until the socket takes the bytes, so a client that reads slowly slows the writer down and a
/// generated body is never held in memory.
struct ResponseWriter {
    /// The interim response sent before reading a body the client announced with `Expect: 100-continue`.
    static let continueResponse = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

    /// The connection to write to.
    let socket: Socket

    /// Interrupts writes and drip pauses when the server stops.
    let stop: StopSignal

    /// Writes a route's response (after its delay has passed).
    ///
    /// - Parameters:
    ///   - response: The response; an invalid status or header turns it into a 500 that explains why.
    ///   - context: The request being answered.
    /// - Returns: What to do with the connection next.
    func send(_ response: LoopbackServer.Response, context: ResponseContext) -> ConnectionDisposition {
        var (answer, window) = response.answeringRange(of: context)
        if let refusal = Self.refusal(of: answer) {
            answer = refusal
            window = nil
        }
        let kind = answer.fault?.kind
        if kind == .closeWithoutResponse {
            return .close
        }
        if kind == .resetConnection {
            return .reset
        }
        if case .raw(let pieces, let pause, let thenClose) = kind {
            for (index, piece) in pieces.enumerated() {
                if index > 0 && pause > .zero {
                    guard !stop.waitForStop(upTo: pause) else { return .abort }
                }
                guard socket.sendAll(piece[...], stop: stop) else { return .abort }
            }
            return thenClose ? .close : .keepOpen
        }
        let message = Self.compose(answer, window: window, context: context)
        var output = OutputBuffer(socket: socket, stop: stop, drip: message.drip)
        guard output.write(message.head[...]) else {
            return .abort
        }
        var remainingBeforeCut = message.cutAfter
        var pieces = message.pieces
        while let piece = pieces?.next() {
            if piece.delay > .zero {
                guard output.flush(), waitOutDelay(piece.delay) else {
                    return .abort
                }
            }
            guard !piece.bytes.isEmpty else {
                continue
            }
            var bytes = piece.bytes
            let isCut = remainingBeforeCut.map { $0 < bytes.count } ?? false
            if let remaining = remainingBeforeCut {
                bytes = bytes.prefix(remaining)
                remainingBeforeCut = remaining - bytes.count
            }
            if isCut && bytes.isEmpty {
                // The cut falls before this piece: nothing of it, not even its chunk-size line, is sent.
                return output.flush() ? .close : .abort
            }
            if message.chunked {
                guard output.write(Array("\(String(piece.bytes.count, radix: 16))\r\n".utf8)[...]) else {
                    return .abort
                }
            }
            guard output.write(bytes) else {
                return .abort
            }
            if isCut {
                return output.flush() ? .close : .abort
            }
            if message.chunked {
                guard output.write(Self.lineEnd[...]) else {
                    return .abort
                }
            }
        }
        if message.chunked && pieces != nil {
            guard output.write(Self.lastChunk[...]) else {
                return .abort
            }
        }
        guard output.flush() else {
            return .abort
        }
        return message.closeAfter ? .close : .keepOpen
    }

    /// Waits out a response's delay or a pause in its body, watching the connection meanwhile.
    ///
    /// A client that closes its end during the delay (a cancelled request) is taken to have gone away: the
    /// response is not sent and the connection ends at once, so tests can see that a client let go. Bytes a
    /// pipelining client sends meanwhile stay in the socket for the next request.
    ///
    /// - Parameter delay: How long to wait.
    /// - Returns: `true` when the delay passed with the client still there; `false` when the server is stopping or
    ///   the client went away.
    func waitOutDelay(_ delay: Duration) -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + delay
        switch Poller.wait(for: socket.descriptor, events: Int16(POLLIN), orStop: stop.readDescriptor, timeout: delay) {
        case .stopped, .failed:
            return false
        case .timedOut:
            return true
        case .ready:
            if socket.peerHasClosed() {
                return false
            }
            // The client sent more (a pipelined request): no need to watch the socket for the rest of the delay.
            return !stop.waitForStop(upTo: deadline - clock.now)
        }
    }

    /// Answers a request the server refuses, then asks for the connection to be closed.
    ///
    /// - Parameter rejection: The status and explanation.
    /// - Returns: ``ConnectionDisposition/close``, or ``ConnectionDisposition/abort`` if the write failed.
    func send(_ rejection: RequestRejection) -> ConnectionDisposition {
        let context = ResponseContext(method: "GET", minorVersion: 1, keepAlive: false)
        return send(.text(rejection.reason, status: rejection.status), context: context)
    }

    /// The 404 answer for a request no route matches.
    ///
    /// - Parameter request: The unmatched request.
    /// - Returns: A plain-text 404 naming the method and path.
    static func notFound(_ request: LoopbackServer.Request) -> LoopbackServer.Response {
        LoopbackServer.Response(
            status: 404,
            headers: [.init("Content-Type", "text/plain")],
            body: Data("no route for \(request.method) \(request.path)".utf8)
        )
    }

    /// A framed response: the head, the body's pieces, and how to send them.
    private struct Message {
        /// The status line and header block.
        var head: [UInt8]
        /// The body's pieces, or `nil` when no body is sent (`HEAD`, `204`, `304`).
        var pieces: BodyPieces?
        /// Whether each piece goes as a chunk of the chunked transfer coding.
        var chunked: Bool
        /// Whether the connection closes after the response.
        var closeAfter: Bool
        /// How many body bytes to send before cutting the connection, or `nil` to send them all.
        var cutAfter: Int?
        /// The drip fault's piece size and pause, or `nil`.
        var drip: (bytes: Int, interval: Duration)?
    }

    /// The line ending after each chunk's data.
    private static let lineEnd = Array("\r\n".utf8)

    /// The zero-size chunk that ends a chunked body, with no trailer fields.
    private static let lastChunk = Array("0\r\n\r\n".utf8)

    /// Frames a valid response: the head with the server-managed headers, the body's pieces, and whether the
    /// connection closes afterwards.
    private static func compose(
        _ response: LoopbackServer.Response,
        window: Range<Int64>?,
        context: ResponseContext
    ) -> Message {
        let kind = response.fault?.kind
        let status = response.status
        let bodyAllowed = context.method != "HEAD" && status != 204 && status != 304
        let total = response.stream?.totalLength ?? Int64(response.body.count)
        let window = window ?? 0..<total
        // A streamed body's length is announced only when asked for, or when a range fixes it.
        let lengthKnown = (response.stream?.announcesLength ?? true) || window != 0..<total
        // Framing is the server's job: whatever the route said about it is replaced by the truth.
        var headers = response.headers.filter { !$0.hasName("Content-Length") && !$0.hasName("Transfer-Encoding") }
        let connectionOptions = headers.tokens(named: "Connection")
        var closeAfter = !context.keepAlive || connectionOptions.contains("close")
        var chunked = false
        var maximumPieceSize: Int?
        if case .chunked(let chunkSize) = kind {
            maximumPieceSize = chunkSize
        }
        if maximumPieceSize != nil || !lengthKnown {
            if context.minorVersion > 0 {
                headers.append(HTTPHeaders.Field("Transfer-Encoding", "chunked"))
                chunked = bodyAllowed
            } else {
                // HTTP/1.0 has no chunked coding: the body is delimited by closing the connection instead.
                closeAfter = true
            }
        } else if status != 204 && status != 304 {
            headers.append(HTTPHeaders.Field("Content-Length", String(window.count)))
        }
        var cutAfter: Int?
        var drip: (bytes: Int, interval: Duration)?
        switch kind {
        case .closeMidBody(let afterBytes):
            cutAfter = afterBytes
            closeAfter = true
        case .drip(let bytes, let interval):
            drip = (bytes, interval)
        default:
            break
        }
        if connectionOptions.isEmpty {
            if case .closeMidBody = kind {
                // A real connection drop is not announced, so neither is this one.
            } else if closeAfter {
                headers.append(HTTPHeaders.Field("Connection", "close"))
            } else if context.minorVersion == 0 {
                headers.append(HTTPHeaders.Field("Connection", "keep-alive"))
            }
        }
        let pieces =
            bodyAllowed
            ? BodyPieces(
                body: response.body,
                stream: response.stream,
                window: window,
                maximumPieceSize: maximumPieceSize
            ) : nil
        return Message(
            head: head(status: status, headers: headers),
            pieces: pieces,
            chunked: chunked,
            closeAfter: closeAfter,
            cutAfter: cutAfter,
            drip: drip
        )
    }

    /// A 500 explaining what is wrong with the response, so that a route can never corrupt the stream, or `nil` when
    /// the response is valid.
    private static func refusal(of response: LoopbackServer.Response) -> LoopbackServer.Response? {
        guard (200...999).contains(response.status) else {
            return .text("LoopbackServer: route returned invalid status \(response.status)", status: 500)
        }
        return invalidHeader(in: response.headers).map { header in
            .text("LoopbackServer: route returned invalid header \(header.name.name.debugDescription)", status: 500)
        }
    }

    /// The first header field whose name is not a token or whose value holds CR, LF or NUL, or `nil`.
    static func invalidHeader(in headers: [HTTPHeaders.Field]) -> HTTPHeaders.Field? {
        headers.first { header in
            !HTTPToken.isToken(header.name.name.utf8)
                || header.value.utf8.contains { $0 == 0 || $0 == UInt8(ascii: "\r") || $0 == UInt8(ascii: "\n") }
        }
    }

    /// The status line and header block, ending with the empty line.
    private static func head(status: Int, headers: [HTTPHeaders.Field]) -> [UInt8] {
        var text = "HTTP/1.1 \(status) \(HTTPStatus(code: status).reasonPhrase)\r\n"
        for header in headers {
            text += "\(header.name): \(header.value)\r\n"
        }
        text += "\r\n"
        return Array(text.utf8)
    }
}

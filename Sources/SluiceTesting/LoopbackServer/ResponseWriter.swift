import Foundation
import Sluice

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
}

/// Serializes a ``LoopbackResponse`` and writes it to a connection, applying its fault.
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
    func send(_ response: LoopbackResponse, context: ResponseContext) -> ConnectionDisposition {
        let response = Self.validated(response)
        let kind = response.fault?.kind
        if kind == .closeWithoutResponse {
            return .close
        }
        if kind == .resetConnection {
            return .reset
        }
        let message = Self.compose(response, context: context)
        switch kind {
        case .closeMidBody(let afterBytes):
            let partial = message.head + message.payload.prefix(afterBytes)
            return socket.sendAll(partial[...], stop: stop) ? .close : .abort
        case .drip(let bytes, let interval):
            let whole = message.head + message.payload
            for offset in stride(from: 0, to: whole.count, by: bytes) {
                if offset > 0 && stop.waitForStop(upTo: interval) {
                    return .abort
                }
                guard socket.sendAll(whole[offset..<min(offset + bytes, whole.count)], stop: stop) else {
                    return .abort
                }
            }
        default:
            guard socket.sendAll((message.head + message.payload)[...], stop: stop) else {
                return .abort
            }
        }
        return message.closeAfter ? .close : .keepOpen
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
    static func notFound(_ request: LoopbackRequest) -> LoopbackResponse {
        LoopbackResponse(
            status: 404,
            headers: [LoopbackHeader("Content-Type", "text/plain")],
            body: Data("no route for \(request.method) \(request.path)".utf8)
        )
    }

    /// Frames a valid response: the head with the server-managed headers, the (possibly chunked) payload, and
    /// whether the connection closes afterwards.
    private static func compose(
        _ response: LoopbackResponse,
        context: ResponseContext
    ) -> (head: [UInt8], payload: [UInt8], closeAfter: Bool) {
        let kind = response.fault?.kind
        let status = response.status
        let bodyAllowed = context.method != "HEAD" && status != 204 && status != 304
        var payload = bodyAllowed ? Array(response.body) : []
        // Framing is the server's job: whatever the route said about it is replaced by the truth.
        var headers = response.headers.filter { !$0.hasName("Content-Length") && !$0.hasName("Transfer-Encoding") }
        let connectionOptions = headers.tokens(named: "Connection")
        var closeAfter = !context.keepAlive || connectionOptions.contains("close")
        switch kind {
        case .chunked(let chunkSize) where context.minorVersion > 0:
            headers.append(LoopbackHeader("Transfer-Encoding", "chunked"))
            payload = bodyAllowed ? chunkedEncoding(of: payload, chunkSize: chunkSize) : []
        case .chunked:
            // HTTP/1.0 has no chunked coding: the body is delimited by closing the connection instead.
            closeAfter = true
        default:
            if status != 204 && status != 304 {
                headers.append(LoopbackHeader("Content-Length", String(response.body.count)))
            }
        }
        if connectionOptions.isEmpty {
            if case .closeMidBody = kind {
                // A real connection drop is not announced, so neither is this one.
            } else if closeAfter {
                headers.append(LoopbackHeader("Connection", "close"))
            } else if context.minorVersion == 0 {
                headers.append(LoopbackHeader("Connection", "keep-alive"))
            }
        }
        return (head(status: status, headers: headers), payload, closeAfter)
    }

    /// The response itself, or a 500 explaining what is wrong with it, so that a route can never corrupt the stream.
    private static func validated(_ response: LoopbackResponse) -> LoopbackResponse {
        guard (200...999).contains(response.status) else {
            return .text("LoopbackServer: route returned invalid status \(response.status)", status: 500)
        }
        for header in response.headers {
            let nameIsToken = !header.name.isEmpty && header.name.utf8.allSatisfy(HTTPRequestParser.isTokenByte)
            let valueIsSafe = !header.value.utf8.contains {
                $0 == 0 || $0 == UInt8(ascii: "\r") || $0 == UInt8(ascii: "\n")
            }
            guard nameIsToken && valueIsSafe else {
                return .text(
                    "LoopbackServer: route returned invalid header \(header.name.debugDescription)",
                    status: 500
                )
            }
        }
        return response
    }

    /// The status line and header block, ending with the empty line.
    private static func head(status: Int, headers: [LoopbackHeader]) -> [UInt8] {
        var text = "HTTP/1.1 \(status) \(HTTPStatus(code: status).reasonPhrase)\r\n"
        for header in headers {
            text += "\(header.name): \(header.value)\r\n"
        }
        text += "\r\n"
        return Array(text.utf8)
    }

    /// The body in chunked transfer coding: hexadecimal size, data, and the terminating zero-size chunk.
    private static func chunkedEncoding(of body: [UInt8], chunkSize: Int) -> [UInt8] {
        var encoded: [UInt8] = []
        encoded.reserveCapacity(body.count + (body.count / chunkSize + 2) * 12)
        for offset in stride(from: 0, to: body.count, by: chunkSize) {
            let chunk = body[offset..<min(offset + chunkSize, body.count)]
            encoded += Array("\(String(chunk.count, radix: 16))\r\n".utf8)
            encoded += chunk
            encoded += Array("\r\n".utf8)
        }
        encoded += Array("0\r\n\r\n".utf8)
        return encoded
    }
}

import Foundation
import SluiceCore

/// Serves the requests of one connection, one after another, on the connection's own thread.
///
/// Every blocking point (reading, writing, delays, drip pauses, the final drain) waits on the socket and on the
/// server's stop signal together, so ``LoopbackServer/stop()`` unblocks the thread at once. The only thing it cannot
/// interrupt is a route's own closure.
struct ConnectionHandler {
    /// How many leading empty lines are skipped before a request line (RFC 9112 asks to tolerate at least one).
    private static let maximumLeadingEmptyLines = 8

    /// How much a graceful close reads and discards, at most, while waiting for the client to close.
    private static let drainByteLimit = 1024 * 1024

    /// How long a graceful close waits, at most, for the client to close.
    private static let drainTimeout = Duration.seconds(1)

    /// The connection; closed by ``run()``.
    private let socket: Socket

    /// The server's stop signal.
    private let stop: StopSignal

    /// Routes and request log.
    private let state: ServerState

    /// Buffers what the client sends.
    private var reader: BufferedSocketReader

    /// Creates a handler for an accepted connection.
    ///
    /// - Parameters:
    ///   - socket: The connection; the handler closes it.
    ///   - stop: The server's stop signal.
    ///   - state: Routes and request log.
    init(socket: Socket, stop: StopSignal, state: ServerState) {
        self.socket = socket
        self.stop = stop
        self.state = state
        self.reader = BufferedSocketReader(socket: socket, stop: stop)
    }

    /// Serves requests until the client or the server ends the connection, then closes the socket.
    mutating func run() {
        switch serveRequests() {
        case .keepOpen, .abort:
            break
        case .close:
            socket.shutdownWriting()
            reader.drain(maxBytes: Self.drainByteLimit, timeout: Self.drainTimeout)
        case .reset:
            socket.enableResetOnClose()
        }
        socket.closeDescriptor()
    }

    /// Reads and answers requests until the connection should end.
    private mutating func serveRequests() -> ConnectionDisposition {
        let writer = ResponseWriter(socket: socket, stop: stop)
        while true {
            let head: RequestHead
            let body: [UInt8]
            do {
                guard let parsedHead = try readHead() else {
                    return .abort  // The client closed between requests: the normal end of a keep-alive connection.
                }
                head = parsedHead
                let framing = try HTTPRequestParser.bodyFraming(of: head)
                if try HTTPRequestParser.expectsContinue(head) && framing != .none {
                    guard socket.sendAll(ResponseWriter.continueResponse[...], stop: stop) else {
                        return .abort
                    }
                }
                body = try readBody(framing)
            } catch let rejection as RequestRejection {
                return writer.send(rejection)
            } catch ReadFailure.endOfStream {
                // The client half-closed in the middle of a request; it can still read why it is refused.
                return writer.send(RequestRejection(status: 400, reason: "request ended early"))
            } catch ReadFailure.lineTooLong {
                return writer.send(RequestRejection(status: 431, reason: "request head larger than 64 KiB"))
            } catch {
                return .abort  // Stopping, or a socket error: nobody is left to answer.
            }

            let request = LoopbackServer.Request(
                method: head.method,
                target: head.target,
                version: head.version,
                headers: head.headers,
                body: Data(body)
            )
            state.record(request)
            let response = state.handler(for: request)?(request) ?? ResponseWriter.notFound(request)
            if response.delay > .zero && !writer.waitOutDelay(response.delay) {
                return .abort
            }
            if let script = response.webSocket {
                return serveWebSocket(script, head: head, bodyLength: body.count, response: response, writer: writer)
            }
            let context = ResponseContext(
                method: head.method,
                minorVersion: head.minorVersion,
                keepAlive: HTTPRequestParser.keepsAlive(head) && !stop.hasFired,
                range: request.header("Range"),
                ifRange: request.header("If-Range")
            )
            let disposition = writer.send(response, context: context)
            guard disposition == .keepOpen else {
                return disposition
            }
        }
    }

    /// Answers a WebSocket handshake and runs the route's script, or refuses a request that is not a valid handshake.
    private mutating func serveWebSocket(
        _ script: WebSocketScript,
        head: RequestHead,
        bodyLength: Int,
        response: LoopbackServer.Response,
        writer: ResponseWriter
    ) -> ConnectionDisposition {
        let context = ResponseContext(method: head.method, minorVersion: head.minorVersion, keepAlive: false)
        if response.fault != nil {
            // The fault goes instead of the handshake, as on an empty 200 response.
            return writer.send(LoopbackServer.Response(fault: response.fault), context: context)
        }
        let headers = response.headers
        if let invalid = ResponseWriter.invalidHeader(in: headers) {
            let refusal = LoopbackServer.Response.text(
                "LoopbackServer: route returned invalid header \(invalid.name.name.debugDescription)",
                status: 500
            )
            return writer.send(refusal, context: context)
        }
        let outcome = WebSocketUpgrade.answer(
            head,
            bodyLength: bodyLength,
            headers: headers,
            subprotocols: script.subprotocols
        )
        switch outcome {
        case .refused(let refusal):
            return writer.send(refusal, context: context)
        case .accepted(let answer):
            guard socket.sendAll(answer[...], stop: stop) else { return .abort }
            var session = WebSocketSession(socket: socket, stop: stop, state: state)
            return session.run(script.steps, reader: &reader)
        }
    }

    /// Reads the request line and header fields.
    ///
    /// - Returns: The head, or `nil` when the client closed the connection before sending anything.
    /// - Throws: ``RequestRejection`` or ``ReadFailure``.
    private mutating func readHead() throws -> RequestHead? {
        var budget = HTTPRequestParser.maximumHeadBytes
        var skippedEmptyLines = 0
        var requestLine: [UInt8] = []
        while requestLine.isEmpty {
            let line: (line: [UInt8], consumed: Int)
            do {
                line = try reader.readLine(maxLength: budget)
            } catch {
                if error == .endOfStream && skippedEmptyLines == 0 && reader.bufferedCount == 0 {
                    return nil
                }
                throw error
            }
            budget -= line.consumed
            requestLine = line.line
            if requestLine.isEmpty {
                skippedEmptyLines += 1
                guard skippedEmptyLines <= Self.maximumLeadingEmptyLines else {
                    throw RequestRejection(status: 400, reason: "no request line")
                }
            }
        }
        var head = try HTTPRequestParser.parseRequestLine(requestLine)
        while true {
            let line = try reader.readLine(maxLength: budget)
            budget -= line.consumed
            if line.line.isEmpty {
                return head
            }
            head.headers.append(try HTTPRequestParser.parseHeaderLine(line.line))
        }
    }

    /// Reads the body the framing announces, de-chunking it if needed.
    ///
    /// - Parameter framing: How the body is delimited.
    /// - Returns: The body bytes.
    /// - Throws: ``RequestRejection`` or ``ReadFailure``.
    private mutating func readBody(_ framing: BodyFraming) throws -> [UInt8] {
        var body: [UInt8] = []
        switch framing {
        case .none:
            break
        case .length(let length):
            body.reserveCapacity(length)
            try reader.read(exactly: length, appendingTo: &body)
        case .chunked:
            while true {
                let size = try HTTPRequestParser.parseChunkSize(try readChunkLine(maxLength: 1024))
                if size == 0 {
                    break
                }
                guard size <= HTTPRequestParser.maximumBodyBytes - body.count else {
                    throw RequestRejection(
                        status: 413,
                        reason: "request body larger than \(HTTPRequestParser.maximumBodyBytes) bytes"
                    )
                }
                try reader.read(exactly: size, appendingTo: &body)
                guard try readChunkLine(maxLength: 2).isEmpty else {
                    throw RequestRejection(status: 400, reason: "chunk data longer than its size")
                }
            }
            // Trailer fields are read to keep the stream in step, and ignored.
            var budget = HTTPRequestParser.maximumHeadBytes
            while true {
                let line = try reader.readLine(maxLength: budget)
                budget -= line.consumed
                if line.line.isEmpty {
                    break
                }
            }
        }
        return body
    }

    /// Reads a chunk-size line or the line ending after chunk data; an overlong one is malformed framing.
    private mutating func readChunkLine(maxLength: Int) throws -> [UInt8] {
        do {
            return try reader.readLine(maxLength: maxLength).line
        } catch .lineTooLong {
            throw RequestRejection(status: 400, reason: "malformed chunked body")
        }
    }
}

import Foundation
import SluiceCore

/// Runs a WebSocket route's script on a connection whose handshake is done, on the connection's thread.
///
/// It reads the client's frames with the client's own frame parser in the server's role (every frame masked, checked
/// as strictly as the client checks a server's), records each in the server's log before acting on it, answers pings,
/// and fails the connection with the code the parser gives for a frame that breaks a rule.
struct WebSocketSession {
    /// The largest frame and message accepted from a client.
    private static let limits = WebSocketFrameParser.Limits(maximumFrameSize: 16 << 20, maximumMessageSize: 16 << 20)

    /// What reading the client's frames came to.
    private enum Reading {
        /// A text or binary message.
        case message(WebSocketFrameParser.Event)
        /// The client's closing frame.
        case close(code: UInt16?)
        /// The connection is over: the client went away, a frame broke a rule, or the server is stopping.
        case ended(ConnectionDisposition)
    }

    private let socket: Socket
    private let stop: StopSignal
    private let state: ServerState
    private var parser = WebSocketFrameParser(limits: Self.limits, role: .server)
    /// Events parsed and not yet acted on, in order.
    private var pending: [WebSocketFrameParser.Event] = []

    /// Creates a session on a connection.
    ///
    /// - Parameters:
    ///   - socket: The connection.
    ///   - stop: The server's stop signal.
    ///   - state: Where the client's frames are recorded.
    init(socket: Socket, stop: StopSignal, state: ServerState) {
        self.socket = socket
        self.stop = stop
        self.state = state
    }

    /// Runs the steps in order, reading from the bytes after the handshake.
    ///
    /// - Parameters:
    ///   - steps: The script.
    ///   - reader: The connection's reader, which may hold frames that came with the handshake.
    /// - Returns: What to do with the connection: closed gracefully (FIN, then the client's bytes drained) once the
    ///   script is over, at once when the client went away or the server is stopping.
    mutating func run(
        _ steps: [LoopbackServer.Response.WebSocketStep],
        reader: inout BufferedSocketReader
    ) -> ConnectionDisposition {
        for step in steps {
            switch step.kind {
            case .send(let bytes):
                guard send(bytes) else { return .abort }
            case .closeAbruptly:
                return .close
            case .receive:
                switch read(&reader) {
                case .message: continue
                case .close(let code): return answerClose(code)
                case .ended(let disposition): return disposition
                }
            case .echo:
                while true {
                    switch read(&reader) {
                    case .message(.text(let text)):
                        guard send(frame(.text, Array(text.utf8))) else { return .abort }
                    case .message(let event):
                        guard case .binary(let data) = event, send(frame(.binary, Array(data))) else { return .abort }
                    case .close(let code):
                        return answerClose(code)
                    case .ended(let disposition):
                        return disposition
                    }
                }
            case .awaitClose:
                while true {
                    switch read(&reader) {
                    case .message: continue
                    case .close(let code): return answerClose(code)
                    case .ended(let disposition): return disposition
                    }
                }
            case .close(let closingFrame):
                guard send(closingFrame) else { return .abort }
                while true {
                    switch read(&reader) {
                    case .message: continue
                    case .close: return .close
                    case .ended(let disposition): return disposition
                    }
                }
            }
        }
        return .close
    }

    /// Reads until the client's next message or closing frame, answering pings on the way.
    private mutating func read(_ reader: inout BufferedSocketReader) -> Reading {
        while true {
            while !pending.isEmpty {
                switch pending.removeFirst() {
                case .ping(let payload):
                    guard send(frame(.pong, Array(payload))) else { return .ended(.abort) }
                case .pong:
                    continue
                case .close(let code, _):
                    return .close(code: code)
                case let message:
                    return .message(message)
                }
            }
            let bytes: ArraySlice<UInt8>
            do {
                bytes = try reader.readAvailable()
            } catch {
                return .ended(.abort)
            }
            let state = self.state
            var parsed: [WebSocketFrameParser.Event] = []
            defer { pending += parsed }
            do {
                try bytes.withUnsafeBytes { buffer in
                    try parser.parse(buffer) { event in
                        state.recordWebSocket(Self.recorded(event))
                        parsed.append(event)
                    }
                }
            } catch {
                // Events the bytes completed before the broken frame still count: the client sent them.
                let reason = (error as? SluiceError)?.message ?? "\(error)"
                state.recordWebSocket(.rejected(code: WebSocket.CloseCode(rawValue: parser.closeCode), reason: reason))
                let short = String(decoding: Self.prefix(of: Array(reason.utf8), upTo: 123), as: UTF8.self)
                let closing = LoopbackServer.Response.WebSocketStep.closeFrame(
                    code: parser.closeCode,
                    reason: Array(short.utf8)
                )
                return .ended(send(closing) ? .close : .abort)
            }
        }
    }

    /// Answers the client's closing frame with its code, or with none when it gave none, and ends the connection.
    private func answerClose(_ code: UInt16?) -> ConnectionDisposition {
        send(LoopbackServer.Response.WebSocketStep.closeFrame(code: code, reason: [])) ? .close : .abort
    }

    private func send(_ bytes: [UInt8]) -> Bool {
        socket.sendAll(bytes[...], stop: stop)
    }

    /// One unmasked frame, as a server sends it.
    private func frame(_ opcode: WebSocketOpcode, _ payload: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        payload.withUnsafeBytes { WebSocketFrameEncoder.encode(opcode, payload: $0, maskKey: nil, into: &bytes) }
        return bytes
    }

    /// The longest prefix of UTF-8 bytes that fits the limit without cutting a character.
    private static func prefix(of bytes: [UInt8], upTo limit: Int) -> ArraySlice<UInt8> {
        var end = min(limit, bytes.count)
        while end < bytes.count && end > 0 && bytes[end] & 0xC0 == 0x80 {
            end -= 1
        }
        return bytes[..<end]
    }

    /// A parsed event as the log records it.
    private static func recorded(_ event: WebSocketFrameParser.Event) -> LoopbackServer.WebSocketEvent {
        switch event {
        case .text(let text): .text(text)
        case .binary(let data): .binary(data)
        case .ping(let data): .ping(data)
        case .pong(let data): .pong(data)
        case .close(let code, let reason): .close(code: code.map(WebSocket.CloseCode.init(rawValue:)), reason: reason)
        }
    }
}

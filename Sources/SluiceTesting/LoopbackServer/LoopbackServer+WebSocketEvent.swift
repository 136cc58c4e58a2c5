public import Foundation
public import SluiceCore

extension LoopbackServer {
    /// A frame a client sent on a WebSocket route of ``LoopbackServer``, or the server's refusal of one.
    ///
    /// The server records them in ``LoopbackServer/receivedWebSocketEvents`` as they arrive, before acting on them: a
    /// test that waits for the server's answer (an echo, a pong, the server's closing frame) finds the client's frame
    /// recorded.
    public enum WebSocketEvent: Sendable, Equatable, CustomStringConvertible {
        /// A text message, reassembled from its fragments.
        case text(String)
        /// A binary message, reassembled from its fragments.
        case binary(Data)
        /// A ping, which the server answered with a pong.
        case ping(Data)
        /// A pong.
        case pong(Data)
        /// The client's closing frame: its code, or `nil` when it carried none, and its reason.
        case close(code: WebSocket.CloseCode?, reason: String)
        /// A frame that broke RFC 6455 or the server's limits: the code the server closed the connection with (1002,
        /// 1007 or 1009) and the rule, as in `invalid WebSocket frame from the client at byte 0: the client sent an
        /// unmasked frame, ...`.
        case rejected(code: WebSocket.CloseCode, reason: String)

        /// A short summary, such as `text("hello")` or `close(1000 (normal closure), "bye")`.
        public var description: String {
            switch self {
            case .text(let text): "text(\(text.debugDescription))"
            case .binary(let data): "binary(\(data.count) bytes)"
            case .ping(let data): "ping(\(data.count) bytes)"
            case .pong(let data): "pong(\(data.count) bytes)"
            case .close(let code, let reason): "close(\(code.map { "\($0)" } ?? "no code"), \(reason.debugDescription))"
            case .rejected(let code, let reason): "rejected(\(code), \(reason.debugDescription))"
            }
        }
    }
}

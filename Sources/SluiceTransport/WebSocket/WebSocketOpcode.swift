/// A WebSocket frame's opcode (RFC 6455, section 5.2): what its payload is.
package struct WebSocketOpcode: Hashable, Sendable, CustomStringConvertible {
    /// The four bits on the wire.
    package let rawValue: UInt8

    /// An opcode from its four bits, defined or reserved.
    ///
    /// - Parameter rawValue: The bits, 0x0 to 0xF.
    package init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// A frame continuing a fragmented message.
    package static let continuation = WebSocketOpcode(rawValue: 0x0)
    /// The first frame of a text message.
    package static let text = WebSocketOpcode(rawValue: 0x1)
    /// The first frame of a binary message.
    package static let binary = WebSocketOpcode(rawValue: 0x2)
    /// The closing handshake.
    package static let close = WebSocketOpcode(rawValue: 0x8)
    /// A ping, to be answered with a pong.
    package static let ping = WebSocketOpcode(rawValue: 0x9)
    /// A pong, the answer to a ping or a heartbeat of its own.
    package static let pong = WebSocketOpcode(rawValue: 0xA)

    /// Whether it is a control frame's (close, ping, pong and the reserved 0xB to 0xF).
    package var isControl: Bool { rawValue & 0x8 != 0 }

    /// Whether RFC 6455 defines it; the others are reserved.
    package var isDefined: Bool { [0x0, 0x1, 0x2, 0x8, 0x9, 0xA].contains(rawValue) }

    /// The frame's name as messages say it: `text`, `ping`, or `reserved opcode 0x3`.
    package var description: String {
        switch rawValue {
        case 0x0: "continuation"
        case 0x1: "text"
        case 0x2: "binary"
        case 0x8: "close"
        case 0x9: "ping"
        case 0xA: "pong"
        default: "reserved opcode 0x" + String(rawValue, radix: 16, uppercase: true)
        }
    }
}

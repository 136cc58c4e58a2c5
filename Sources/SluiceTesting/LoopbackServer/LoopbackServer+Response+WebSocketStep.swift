public import Foundation
public import SluiceCore

extension LoopbackServer.Response {
    /// One step of the script a ``LoopbackServer/Response/webSocket(_:subprotocols:)`` route runs once the handshake is done.
    ///
    /// The steps run in order on the connection's thread. Sending steps write their frames at once; the steps that
    /// read (``receive``, ``echo``, ``awaitClose`` and ``close(_:reason:)``) record every frame of the client in
    /// ``LoopbackServer/receivedWebSocketEvents`` before acting on it, answer its pings with pongs, and check every
    /// frame as strictly as a real server: a frame that is not masked, sets a reserved bit, uses a reserved opcode,
    /// carries invalid UTF-8 in a text message, or breaks any other rule of RFC 6455 fails the connection with the
    /// code the rule calls for (1002, 1007 or 1009), and is recorded as ``LoopbackServer/WebSocketEvent/rejected(code:reason:)``.
    ///
    /// Some steps are faults, to test that a client rejects what a broken server sends: ``maskedFrame(text:)``,
    /// ``invalidUTF8(midFragment:)``, ``oversizedFrame(announcing:)``, ``reservedBits(_:)``, ``reservedOpcode(_:)``,
    /// ``closeAbruptly`` and ``raw(_:)``.
    ///
    /// An open set of static members rather than an enum, so that steps can be added without breaking code.
    public struct WebSocketStep: Sendable, Equatable, CustomStringConvertible {
        /// What the server does; internal so that the public surface stays an open set.
        enum Kind: Sendable, Equatable {
            /// Writes these bytes: whole frames, or a fault's broken ones.
            case send([UInt8])
            /// Reads the client's next message.
            case receive
            /// Sends every message of the client back until it closes.
            case echo
            /// Waits for the client's closing frame, answers it, and closes the connection.
            case awaitClose
            /// Sends a closing frame, waits for the client's, and closes the connection.
            case close([UInt8])
            /// Closes the connection without a closing frame.
            case closeAbruptly
        }

        /// What the server does.
        let kind: Kind

        /// A short name for the step, such as `text("hello")`, for test output.
        public let description: String

        /// Sends a text message in one frame.
        ///
        /// - Parameter text: The message, sent as UTF-8.
        /// - Returns: The step.
        public static func text(_ text: String) -> WebSocketStep {
            frames(.text, Array(text.utf8), count: 1, name: "text(\(text.debugDescription))")
        }

        /// Sends a binary message in one frame.
        ///
        /// - Parameter data: The message.
        /// - Returns: The step.
        public static func binary(_ data: Data) -> WebSocketStep {
            frames(.binary, Array(data), count: 1, name: "binary(\(data.count) bytes)")
        }

        /// Sends a text message fragmented into frames of nearly equal size, cut anywhere, even inside a character.
        ///
        /// - Parameters:
        ///   - text: The message, sent as UTF-8.
        ///   - count: How many frames carry it; values below 1 are treated as 1. Frames past the message's length are
        ///     empty, which RFC 6455 allows.
        /// - Returns: The step.
        public static func fragmented(text: String, frames count: Int) -> WebSocketStep {
            frames(
                .text,
                Array(text.utf8),
                count: count,
                name: "fragmented(text: \(text.debugDescription), frames: \(count))"
            )
        }

        /// Sends a binary message fragmented into frames of nearly equal size.
        ///
        /// - Parameters:
        ///   - data: The message.
        ///   - count: How many frames carry it; values below 1 are treated as 1.
        /// - Returns: The step.
        public static func fragmented(binary data: Data, frames count: Int) -> WebSocketStep {
            frames(
                .binary,
                Array(data),
                count: count,
                name: "fragmented(binary: \(data.count) bytes, frames: \(count))"
            )
        }

        /// Sends a ping, which a client answers with a pong carrying the same payload.
        ///
        /// - Parameter payload: At most 125 bytes; more makes a frame a client must reject.
        /// - Returns: The step.
        public static func ping(_ payload: Data = Data()) -> WebSocketStep {
            frames(.ping, Array(payload), count: 1, name: "ping(\(payload.count) bytes)")
        }

        /// Sends a pong nobody asked for, which a client ignores (RFC 6455, section 5.5.3).
        ///
        /// - Parameter payload: At most 125 bytes.
        /// - Returns: The step.
        public static func pong(_ payload: Data = Data()) -> WebSocketStep {
            frames(.pong, Array(payload), count: 1, name: "pong(\(payload.count) bytes)")
        }

        /// Reads the client's next message, text or binary, recording it; the script ends if the client closes
        /// instead, after its closing frame has been answered.
        public static let receive = WebSocketStep(kind: .receive, description: "receive")

        /// Sends every message of the client back as it came, until the client closes.
        ///
        /// Text goes back as text and binary as binary; the client's closing frame is answered, and the connection
        /// closed. Ends the script.
        public static let echo = WebSocketStep(kind: .echo, description: "echo")

        /// Waits for the client to close: answers its closing frame with the same code, then closes the connection.
        ///
        /// What comes before the closing frame is recorded. Ends the script.
        public static let awaitClose = WebSocketStep(kind: .awaitClose, description: "awaitClose")

        /// Starts the closing handshake: sends a closing frame, waits for the client's, then closes the connection.
        ///
        /// What comes before the client's closing frame is recorded. Ends the script.
        ///
        /// - Parameters:
        ///   - code: The code, or `nil` for a closing frame without one; any number goes, so a code a peer may not
        ///     send (such as 1005) tests the client's check.
        ///   - reason: The reason, sent as UTF-8; more than 123 bytes makes a frame a client must reject.
        /// - Returns: The step.
        public static func close(_ code: WebSocket.CloseCode? = .normalClosure, reason: String = "") -> WebSocketStep {
            WebSocketStep(
                kind: .close(closeFrame(code: code?.rawValue, reason: Array(reason.utf8))),
                description: "close(\(code.map { "\($0)" } ?? "no code"), reason: \(reason.debugDescription))"
            )
        }

        // MARK: - Faults

        /// Closes the connection without a closing frame, as a server that crashed does.
        ///
        /// A client reports 1006 (abnormal closure). Ends the script.
        public static let closeAbruptly = WebSocketStep(kind: .closeAbruptly, description: "closeAbruptly")

        /// Sends a text message in a masked frame, which only a client may send (RFC 6455, section 5.1).
        ///
        /// - Parameter text: The message.
        /// - Returns: The step.
        public static func maskedFrame(text: String) -> WebSocketStep {
            var bytes: [UInt8] = []
            Array(text.utf8).withUnsafeBytes {
                WebSocketFrameEncoder.encode(.text, payload: $0, maskKey: 0x3707_A5C1, into: &bytes)
            }
            return WebSocketStep(kind: .send(bytes), description: "maskedFrame(text: \(text.debugDescription))")
        }

        /// Sends a text message with invalid UTF-8 (`caf` then `0xC3 0x28`, whose second byte cannot continue the
        /// first): invalid at its byte 4.
        ///
        /// - Parameter midFragment: `true` to send instead a message begun with the frame `hello ` and continued with
        ///   one holding `wor`, `0xFF` and `ld`, neither of them final, so that a client must fail at its byte 9
        ///   without waiting for the message's end.
        /// - Returns: The step.
        public static func invalidUTF8(midFragment: Bool = false) -> WebSocketStep {
            var bytes: [UInt8] = []
            if midFragment {
                append(.text, Array("hello ".utf8), fin: false, into: &bytes)
                append(.continuation, Array("wor".utf8) + [0xFF] + Array("ld".utf8), fin: false, into: &bytes)
            } else {
                append(.text, Array("caf".utf8) + [0xC3, 0x28], into: &bytes)
            }
            return WebSocketStep(kind: .send(bytes), description: "invalidUTF8(midFragment: \(midFragment))")
        }

        /// Sends the header of a binary frame announcing more bytes than a client accepts, and none of them: a client
        /// must refuse it from its header (RFC 6455, section 10.4), with 1009.
        ///
        /// - Parameter length: The length the header announces, such as one past the client's
        ///   `WebSocket.Configuration.maximumFrameSize`; below 2^63.
        /// - Returns: The step.
        public static func oversizedFrame(announcing length: UInt64) -> WebSocketStep {
            var bytes: [UInt8] = []
            WebSocketFrameEncoder.appendHeader(.binary, length: length, masked: false, into: &bytes)
            return WebSocketStep(kind: .send(bytes), description: "oversizedFrame(announcing: \(length))")
        }

        /// Sends a text frame `x` with reserved bits set, which no negotiated extension defines (RFC 6455, section
        /// 5.2).
        ///
        /// - Parameter bits: The bits of the first byte to set: 0x40 (RSV1), 0x20 (RSV2), 0x10 (RSV3) or several;
        ///   others are ignored.
        /// - Returns: The step.
        public static func reservedBits(_ bits: UInt8) -> WebSocketStep {
            var bytes: [UInt8] = []
            Array("x".utf8).withUnsafeBytes {
                WebSocketFrameEncoder.encode(.text, payload: $0, reservedBits: bits, maskKey: nil, into: &bytes)
            }
            let hex = "0x" + String(bits & 0x70, radix: 16, uppercase: true)
            return WebSocketStep(kind: .send(bytes), description: "reservedBits(\(hex))")
        }

        /// Sends a frame with an opcode RFC 6455 reserves (0x3 to 0x7 for data, 0xB to 0xF for control), and an empty
        /// payload.
        ///
        /// - Parameter opcode: The four bits; others are ignored.
        /// - Returns: The step.
        public static func reservedOpcode(_ opcode: UInt8) -> WebSocketStep {
            var bytes: [UInt8] = []
            WebSocketFrameEncoder.appendHeader(
                WebSocketOpcode(rawValue: opcode & 0x0F),
                length: 0,
                masked: false,
                into: &bytes
            )
            let hex = "0x" + String(opcode & 0x0F, radix: 16, uppercase: true)
            return WebSocketStep(kind: .send(bytes), description: "reservedOpcode(\(hex))")
        }

        /// Sends these bytes verbatim, for any frame the other steps cannot make.
        ///
        /// - Parameter bytes: The bytes, such as a frame header and part of its payload.
        /// - Returns: The step.
        public static func raw(_ bytes: Data) -> WebSocketStep {
            WebSocketStep(kind: .send(Array(bytes)), description: "raw(\(bytes.count) bytes)")
        }

        // MARK: - Framing

        /// A message in `count` frames of nearly equal size, the first with the opcode and the rest continuations.
        private static func frames(
            _ opcode: WebSocketOpcode,
            _ payload: [UInt8],
            count: Int,
            name: String
        ) -> WebSocketStep {
            let count = max(1, count)
            let size = (payload.count + count - 1) / count
            var bytes: [UInt8] = []
            for index in 0..<count {
                let start = min(payload.count, index * size)
                let end = min(payload.count, start + size)
                append(
                    index == 0 ? opcode : .continuation,
                    Array(payload[start..<end]),
                    fin: index == count - 1,
                    into: &bytes
                )
            }
            return WebSocketStep(kind: .send(bytes), description: name)
        }

        /// Appends one unmasked frame, as a server sends it.
        private static func append(
            _ opcode: WebSocketOpcode,
            _ payload: [UInt8],
            fin: Bool = true,
            into bytes: inout [UInt8]
        ) {
            payload.withUnsafeBytes {
                WebSocketFrameEncoder.encode(opcode, payload: $0, fin: fin, maskKey: nil, into: &bytes)
            }
        }

        /// A closing frame: the code, when there is one, then the reason.
        ///
        /// - Parameters:
        ///   - code: The code, or `nil` for none (and then no reason either).
        ///   - reason: The reason's bytes.
        /// - Returns: The frame.
        static func closeFrame(code: UInt16?, reason: [UInt8]) -> [UInt8] {
            var bytes: [UInt8] = []
            let payload = code.map { [UInt8($0 >> 8), UInt8($0 & 0xFF)] + reason } ?? []
            append(.close, payload, into: &bytes)
            return bytes
        }
    }
}

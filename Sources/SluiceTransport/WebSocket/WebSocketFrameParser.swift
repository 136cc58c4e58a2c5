import Foundation

/// Reads a peer's WebSocket frames (RFC 6455, section 5) from bytes split anywhere, and reassembles its messages.
///
/// I/O-free: bytes in, events out. Every rule a side must check is checked as soon as the byte that breaks it
/// arrives: a masked frame from a server or an unmasked one from a client, reserved bits no extension defines, a reserved opcode, a fragmented or oversized control
/// frame, a length not in its shortest form or past 2^63, a continuation with nothing to continue, a new message
/// before the last one ended, invalid UTF-8 in a text message (even in the middle of a fragment), and the limits on a
/// frame and a message, checked from the length before its payload is read. A violation throws a ``SluiceError`` of
/// the frame stage naming the rule and the byte of the stream where the frame began, and leaves in ``closeCode`` the
/// code to close the connection with.
package struct WebSocketFrameParser {
    /// Which side of the connection reads: the client reads a server's unmasked frames, the server a client's masked
    /// ones, which it unmasks.
    package enum Role: Sendable {
        /// Reads a server's frames, which must not be masked.
        case client
        /// Reads a client's frames, which must all be masked (RFC 6455, section 5.1).
        case server
    }

    /// What the peer sent: a whole message, or a control frame.
    package enum Event: Equatable {
        /// A text message, its UTF-8 checked.
        case text(String)
        /// A binary message.
        case binary(Data)
        /// A ping, to be answered with a pong carrying its payload.
        case ping(Data)
        /// A pong.
        case pong(Data)
        /// The peer's closing frame: its code, when it gave one, and its reason.
        case close(code: UInt16?, reason: String)
    }

    /// The largest frame and message accepted.
    package struct Limits: Sendable {
        /// The most payload bytes in one frame.
        package var maximumFrameSize: Int
        /// The most payload bytes in one message, its fragments added up.
        package var maximumMessageSize: Int

        /// A limit on compressed bytes: the limit on their inflated size, and deflate's most overhead on top.
        static func withDeflateOverhead(_ limit: Int) -> Int {
            limit + limit >> 10 + 64
        }

        /// Creates limits.
        package init(maximumFrameSize: Int, maximumMessageSize: Int) {
            self.maximumFrameSize = maximumFrameSize
            self.maximumMessageSize = maximumMessageSize
        }
    }

    private let limits: Limits
    private let role: Role
    /// The reserved bits a negotiated extension defines (0x40 for RSV1 under `permessage-deflate`), which frames may
    /// set.
    private let allowedReservedBits: UInt8
    /// Decompresses a message whose first frame set RSV1, under `permessage-deflate`, to at most the given size.
    private let inflate: ((Data, Int) throws(PerMessageDeflate.Refusal) -> Data)?

    /// The bytes of the frame header read so far (at most 10 from a server, 14 from a client with its mask key).
    private var header: [UInt8] = []
    /// The current frame's masking key, from a client, rotated so that its first byte masks the next payload byte.
    private var maskKey: UInt32 = 0
    /// The frame whose payload is being read, once its header is complete.
    private var frame: (opcode: WebSocketOpcode, fin: Bool, remaining: UInt64)?
    /// The offset in the stream of the first byte of the current frame.
    private var frameStart: Int64 = 0
    /// The bytes read so far.
    private var offset: Int64 = 0
    /// The payload of the control frame being read.
    private var control: [UInt8] = []
    /// The message being reassembled: its opcode (text or binary) and its bytes.
    private var messageOpcode: WebSocketOpcode?
    /// Whether the message being reassembled is compressed (its first frame set RSV1 under `permessage-deflate`).
    private var messageCompressed = false
    private var message = Data()
    private var utf8 = UTF8Validator()

    /// The code to close the connection with after the last violation: 1002 for a protocol error, 1007 for invalid
    /// UTF-8, 1009 for a frame or message over the limits (or a compressed one that decompresses past them).
    package private(set) var closeCode: UInt16 = 1002

    /// Creates a parser at the start of a connection's frames.
    ///
    /// - Parameters:
    ///   - limits: The largest frame and message accepted.
    ///   - allowedReservedBits: The reserved bits (0x70 at most) a negotiated extension lets frames set; none by
    ///     default.
    ///   - role: The side that reads: ``Role/client`` (the default) for a server's frames, ``Role/server`` for a
    ///     client's.
    package init(limits: Limits, allowedReservedBits: UInt8 = 0, role: Role = .client) {
        self.limits = limits
        self.role = role
        self.allowedReservedBits = allowedReservedBits & 0x70
        self.inflate = nil
        header.reserveCapacity(14)
    }

    /// Creates a parser for a connection that negotiated `permessage-deflate` (RFC 7692): a message whose first frame
    /// sets RSV1 is compressed, and is checked (UTF-8 for text) once decompressed, at its end.
    ///
    /// - Parameters:
    ///   - limits: The largest frame and message accepted; the message limit bounds the decompressed size too.
    ///   - inflate: Decompresses a message's payload to at most the given number of bytes.
    package init(limits: Limits, inflate: @escaping (Data, Int) throws(PerMessageDeflate.Refusal) -> Data) {
        self.limits = limits
        self.role = .client
        self.allowedReservedBits = 0x40
        self.inflate = inflate
        header.reserveCapacity(10)
    }

    /// Whether a frame or a fragmented message has begun and not ended: the stream ending now cuts it short.
    package var isInsideMessage: Bool { !header.isEmpty || frame != nil || messageOpcode != nil }

    /// Reads bytes, reporting each message and control frame they complete.
    ///
    /// - Parameters:
    ///   - bytes: The bytes, in the order they arrived.
    ///   - report: Called for each event; it may throw to stop reading.
    /// - Throws: ``SluiceError`` of the frame stage for a frame that breaks RFC 6455 or the limits, or what `report`
    ///   throws.
    package mutating func parse(_ bytes: UnsafeRawBufferPointer, _ report: (Event) throws -> Void) throws {
        var index = 0
        while index < bytes.count {
            guard let current = frame else {
                header.append(bytes[index])
                index += 1
                offset += 1
                try readHeader(report)
                continue
            }
            let take = Int(min(UInt64(bytes.count - index), current.remaining))
            let piece = UnsafeRawBufferPointer(rebasing: bytes[index..<index + take])
            if role == .server {
                // A client's payload is masked: unmask a copy, the key turned to where this piece starts.
                var plain = [UInt8](piece)
                plain.withUnsafeMutableBytes { WebSocketFrameEncoder.mask($0, key: maskKey) }
                let shift = UInt32(take & 3) * 8
                maskKey = shift == 0 ? maskKey : maskKey << shift | maskKey >> (32 - shift)
                try plain.withUnsafeBytes { try takePayload($0, of: current.opcode) }
            } else {
                try takePayload(piece, of: current.opcode)
            }
            index += take
            offset += Int64(take)
            frame?.remaining -= UInt64(take)
            if frame?.remaining == 0 {
                try finishFrame(report)
            }
        }
    }

    /// Keeps a piece of a frame's payload, unmasked: a control frame's for its end, a message's checked as UTF-8 if it
    /// is text.
    private mutating func takePayload(_ piece: UnsafeRawBufferPointer, of opcode: WebSocketOpcode) throws {
        if opcode.isControl {
            control.append(contentsOf: piece)
        } else {
            if messageOpcode == .text, !messageCompressed, let invalid = utf8.validate(piece) {
                closeCode = 1007
                throw violation(
                    "invalid UTF-8 at byte \(message.count + invalid) of a text message (RFC 6455, section 8.1)"
                )
            }
            message.append(contentsOf: piece)
        }
    }

    /// Checks the header read so far, and starts the payload once it is complete.
    private mutating func readHeader(_ report: (Event) throws -> Void) throws {
        if header.count == 1 {
            frameStart = offset - 1
            try checkFirstByte(header[0])
            return
        }
        let first = header[0]
        let second = header[1]
        let opcode = WebSocketOpcode(rawValue: first & 0x0F)
        if header.count == 2 {
            switch role {
            case .client where second & 0x80 != 0:
                throw violation("the server masked a frame, which only a client may do (RFC 6455, section 5.1)")
            case .server where second & 0x80 == 0:
                throw violation("the client sent an unmasked frame, which a client must mask (RFC 6455, section 5.1)")
            default:
                break
            }
            if opcode.isControl && second & 0x7F > 125 {
                throw violation(
                    "a \(opcode) frame announces more than 125 bytes, the most a control frame may carry (RFC 6455, section 5.5)"
                )
            }
        }
        let short = second & 0x7F
        let lengthBytes = short == 127 ? 8 : short == 126 ? 2 : 0
        let lengthEnd = 2 + lengthBytes
        guard header.count >= lengthEnd else { return }
        let length = lengthBytes == 0 ? UInt64(short) : header[2..<lengthEnd].reduce(0) { $0 << 8 | UInt64($1) }
        if header.count == lengthEnd {
            let compressed = opcode == .continuation ? messageCompressed : first & 0x40 != 0
            try checkLength(length, lengthBytes: lengthBytes, opcode: opcode, compressed: compressed)
        }
        // A client's frame goes on with its 4-byte masking key.
        guard header.count == lengthEnd + (role == .server ? 4 : 0) else { return }
        if role == .server {
            maskKey = header[lengthEnd...].reduce(0) { $0 << 8 | UInt32($1) }
        }
        header.removeAll(keepingCapacity: true)
        if opcode != .continuation && !opcode.isControl {
            messageOpcode = opcode
            messageCompressed = first & 0x40 != 0
        }
        if !opcode.isControl {
            // Room for the payload the header announced, within the limits just checked, and at most 1 MiB ahead of
            // the bytes: a frame announced and not sent holds little.
            message.reserveCapacity(message.count + Int(min(length, 1 << 20)))
        }
        frame = (opcode, first & 0x80 != 0, length)
        if length == 0 {
            try finishFrame(report)
        }
    }

    /// Checks a frame's length, once its header has given it all: its encoding, and the limits.
    private mutating func checkLength(
        _ length: UInt64,
        lengthBytes: Int,
        opcode: WebSocketOpcode,
        compressed: Bool
    ) throws {
        if lengthBytes > 0 {
            if lengthBytes == 8 && length >> 63 != 0 {
                throw violation(
                    "a 64-bit payload length with its most significant bit set (RFC 6455, section 5.2)"
                )
            }
            if (lengthBytes == 2 && length < 126) || (lengthBytes == 8 && length <= 0xFFFF) {
                throw violation(
                    "a payload length of \(length) in \(lengthBytes * 8) bits, not in the fewest bytes that hold it (RFC 6455, section 5.2)"
                )
            }
        }
        // Bytes deflate cannot shrink come out a little larger than they went in (zlib's deflateBound: about one byte
        // in 2,000 more): a compressed message of the largest size, and its frames, may be that much larger on the wire;
        // once inflated, the message is held to its limit.
        let compressed = compressed && !opcode.isControl && inflate != nil
        let frameLimit = compressed ? Limits.withDeflateOverhead(limits.maximumFrameSize) : limits.maximumFrameSize
        if length > UInt64(frameLimit) {
            closeCode = 1009
            throw violation("a \(opcode) frame of \(length) bytes, larger than the limit of \(frameLimit) bytes")
        }
        let messageLimit =
            compressed ? Limits.withDeflateOverhead(limits.maximumMessageSize) : limits.maximumMessageSize
        if !opcode.isControl && UInt64(message.count) + length > UInt64(messageLimit) {
            closeCode = 1009
            throw violation(
                "a message of more than \(messageLimit) bytes, the limit (\(UInt64(message.count) + length) bytes so far)"
            )
        }
    }

    /// Checks the bits of a frame's first byte: FIN, the reserved bits and the opcode.
    private mutating func checkFirstByte(_ first: UInt8) throws {
        let reserved = first & 0x70 & ~allowedReservedBits
        if reserved != 0 {
            let names = [(0x40, "RSV1"), (0x20, "RSV2"), (0x10, "RSV3")].filter { reserved & UInt8($0.0) != 0 }
            throw violation(
                "the frame sets \(names.map(\.1).joined(separator: " and ")), which no negotiated extension defines (RFC 6455, section 5.2)"
            )
        }
        let opcode = WebSocketOpcode(rawValue: first & 0x0F)
        if first & 0x40 != 0 && inflate != nil && (opcode.isControl || opcode == .continuation) {
            throw violation(
                "a \(opcode) frame sets RSV1, which permessage-deflate allows on a message's first frame only (RFC 7692, section 6)"
            )
        }
        guard opcode.isDefined else {
            throw violation("a frame with the \(opcode), which RFC 6455 does not define (section 5.2)")
        }
        if opcode.isControl {
            if first & 0x80 == 0 {
                throw violation(
                    "a fragmented \(opcode) frame: control frames are never fragmented (RFC 6455, section 5.5)"
                )
            }
        } else if opcode == .continuation {
            if messageOpcode == nil {
                throw violation("a continuation frame with no message to continue (RFC 6455, section 5.4)")
            }
        } else if let messageOpcode {
            throw violation(
                "a \(opcode) frame began a message before the fragmented \(messageOpcode) message ended (RFC 6455, section 5.4)"
            )
        }
    }

    /// Reports what a frame completes: a control frame, or a message at its final fragment.
    private mutating func finishFrame(_ report: (Event) throws -> Void) throws {
        guard let finished = frame else { return }
        frame = nil
        if finished.opcode.isControl {
            let payload = control
            control.removeAll(keepingCapacity: true)
            switch finished.opcode {
            case .ping: try report(.ping(Data(payload)))
            case .pong: try report(.pong(Data(payload)))
            default: try report(try closeEvent(payload))
            }
            return
        }
        guard finished.fin, let opcode = messageOpcode else { return }
        var bytes = message
        message = Data()
        messageOpcode = nil
        if messageCompressed, let inflate {
            messageCompressed = false
            do {
                bytes = try inflate(bytes, limits.maximumMessageSize)
            } catch {
                closeCode = error.exceedsBound ? 1009 : 1007
                throw violation("the compressed \(opcode) message \(error.reason) (RFC 7692, section 6.2)")
            }
            if opcode == .text {
                let invalid = bytes.withUnsafeBytes { utf8.validate($0) }
                if let invalid {
                    utf8 = UTF8Validator()
                    closeCode = 1007
                    throw violation(
                        "invalid UTF-8 at byte \(invalid) of a text message (RFC 6455, section 8.1)"
                    )
                }
            }
        }
        if opcode == .text {
            let complete = utf8.isComplete
            utf8 = UTF8Validator()
            guard complete else {
                closeCode = 1007
                throw violation(
                    "a text message that ends in the middle of a UTF-8 sequence (RFC 6455, section 8.1)"
                )
            }
            try report(.text(String(decoding: bytes, as: UTF8.self)))
        } else {
            try report(.binary(bytes))
        }
    }

    /// The close event of a close frame's payload: no code, or a code a peer may send and a UTF-8 reason.
    private mutating func closeEvent(_ payload: [UInt8]) throws -> Event {
        guard !payload.isEmpty else { return .close(code: nil, reason: "") }
        guard payload.count >= 2 else {
            throw violation("a close frame with a 1-byte payload, too short for a code (RFC 6455, section 5.5.1)")
        }
        let code = UInt16(payload[0]) << 8 | UInt16(payload[1])
        guard WebSocket.CloseCode.maySend(code) else {
            throw violation("a close frame with the code \(code), which a peer may not send (RFC 6455, section 7.4)")
        }
        var validator = UTF8Validator()
        let reason = payload[2...]
        let invalid = reason.withUnsafeBytes { validator.validate($0) }
        guard invalid == nil && validator.isComplete else {
            closeCode = 1007
            throw violation("a close frame whose reason is not valid UTF-8 (RFC 6455, section 5.5.1)")
        }
        return .close(code: code, reason: String(decoding: reason, as: UTF8.self))
    }

    /// The error for a broken rule, at the frame that broke it.
    private func violation(_ rule: String) -> SluiceError {
        let peer = role == .client ? "server" : "client"
        return SluiceError(.frame, message: "invalid WebSocket frame from the \(peer) at byte \(frameStart): \(rule)")
    }
}

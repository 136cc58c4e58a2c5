import Foundation
import Testing

@testable import SluiceTransport

/// The frame parser as a pure function over bytes: each input is read whole, a byte at a time, and in two pieces
/// split at every offset, and every way must give the same events or the same error.
@Suite struct WebSocketFrameParserTests {
    static let limits = WebSocketFrameParser.Limits(maximumFrameSize: 1 << 20, maximumMessageSize: 2 << 20)

    /// A server's frame: unmasked, the length in its shortest form unless `lengthBytes` forces one.
    static func frame(
        _ opcode: UInt8,
        _ payload: [UInt8] = [],
        fin: Bool = true,
        firstByteBits: UInt8 = 0,
        lengthBytes: Int? = nil
    ) -> [UInt8] {
        var bytes = [(fin ? 0x80 : 0) | firstByteBits | opcode]
        let width = lengthBytes ?? (payload.count < 126 ? 0 : payload.count <= 0xFFFF ? 2 : 8)
        switch width {
        case 0: bytes.append(UInt8(payload.count))
        case 2: bytes += [126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        default: bytes += [127] + (0..<8).reversed().map { UInt8(truncatingIfNeeded: payload.count >> ($0 * 8)) }
        }
        return bytes + payload
    }

    /// What reading the bytes in pieces gives: the events, or the error, with every split.
    static func read(
        _ bytes: [UInt8],
        limits: WebSocketFrameParser.Limits = limits
    ) throws -> [WebSocketFrameParser
        .Event]
    {
        func run(_ pieces: [ArraySlice<UInt8>]) throws -> [WebSocketFrameParser.Event] {
            var parser = WebSocketFrameParser(limits: limits)
            var events: [WebSocketFrameParser.Event] = []
            for piece in pieces {
                try piece.withUnsafeBytes { try parser.parse($0) { events.append($0) } }
            }
            return events
        }
        let whole = try run([bytes[...]])
        #expect(try run(bytes.indices.map { bytes[$0...$0] }) == whole)
        for split in 0...bytes.count {
            #expect(try run([bytes[..<split], bytes[split...]]) == whole)
        }
        return whole
    }

    /// The message of the error reading the bytes throws, the same however they are split.
    static func failure(_ bytes: [UInt8], limits: WebSocketFrameParser.Limits = limits) -> String? {
        let error = #expect(throws: SluiceError.self) { try read(bytes, limits: limits) }
        for split in [1, bytes.count / 2, bytes.count - 1] where split > 0 && split < bytes.count {
            var parser = WebSocketFrameParser(limits: limits)
            let other = #expect(throws: SluiceError.self) {
                try bytes[..<split].withUnsafeBytes { try parser.parse($0) { _ in } }
                try bytes[split...].withUnsafeBytes { try parser.parse($0) { _ in } }
            }
            #expect(other?.message == error?.message)
        }
        #expect(error?.code == .frame && error?.stage == .frame)
        return error?.message
    }

    @Test func messagesOfEveryLengthForm() throws {
        let large = (0..<70_000).map { UInt8(truncatingIfNeeded: $0) }
        let bytes =
            Self.frame(0x1, Array("héllo".utf8)) + Self.frame(0x2, []) + Self.frame(0x2, Array(large[..<300]))
            + Self.frame(0x2, large)
        #expect(
            try Self.read(bytes) == [
                .text("héllo"), .binary(Data()), .binary(Data(large[..<300])), .binary(Data(large)),
            ]
        )
    }

    @Test func fragmentsWithInterleavedControlFrames() throws {
        let text = Array("fragmented ✓ text".utf8)
        // The check mark's three bytes are split across fragments.
        let bytes =
            Self.frame(0x1, Array(text[..<12]), fin: false) + Self.frame(0x9, [1, 2])
            + Self.frame(0x0, Array(text[12..<13]), fin: false) + Self.frame(0xA, [])
            + Self.frame(0x0, Array(text[13...])) + Self.frame(0x8, [0x03, 0xE8] + Array("bye".utf8))
        #expect(
            try Self.read(bytes) == [
                .ping(Data([1, 2])), .pong(Data()), .text("fragmented ✓ text"), .close(code: 1000, reason: "bye"),
            ]
        )
        #expect(try Self.read(Self.frame(0x8)) == [.close(code: nil, reason: "")])
    }

    @Test func framesAServerMayNotSend() {
        let prefix = "invalid WebSocket frame from the server at byte"
        #expect(
            Self.failure([0x81, 0x81, 1, 2, 3, 4, 0x61])
                == "\(prefix) 0: the server masked a frame, which only a client may do (RFC 6455, section 5.1)"
        )
        #expect(
            Self.failure(Self.frame(0x1, [0x61]) + Self.frame(0x1, [], firstByteBits: 0x40))
                == "\(prefix) 3: the frame sets RSV1, which no negotiated extension defines (RFC 6455, section 5.2)"
        )
        #expect(
            Self.failure(Self.frame(0x2, [], firstByteBits: 0x30))
                == "\(prefix) 0: the frame sets RSV2 and RSV3, which no negotiated extension defines (RFC 6455, section 5.2)"
        )
        #expect(
            Self.failure(Self.frame(0x3))
                == "\(prefix) 0: a frame with the reserved opcode 0x3, which RFC 6455 does not define (section 5.2)"
        )
        #expect(
            Self.failure(Self.frame(0xB))
                == "\(prefix) 0: a frame with the reserved opcode 0xB, which RFC 6455 does not define (section 5.2)"
        )
        #expect(
            Self.failure(Self.frame(0x9, [], fin: false))
                == "\(prefix) 0: a fragmented ping frame: control frames are never fragmented (RFC 6455, section 5.5)"
        )
        #expect(
            Self.failure(Self.frame(0x9, Array(repeating: 0, count: 126)))
                == "\(prefix) 0: a ping frame announces more than 125 bytes, the most a control frame may carry (RFC 6455, section 5.5)"
        )
        #expect(
            Self.failure(Self.frame(0x0, [1]))
                == "\(prefix) 0: a continuation frame with no message to continue (RFC 6455, section 5.4)"
        )
        #expect(
            Self.failure(Self.frame(0x1, [0x61], fin: false) + Self.frame(0x2, [1]))
                == "\(prefix) 3: a binary frame began a message before the fragmented text message ended (RFC 6455, section 5.4)"
        )
    }

    @Test func lengthsInTheirShortestFormBelow2To63() {
        let prefix = "invalid WebSocket frame from the server at byte 0"
        #expect(
            Self.failure(Self.frame(0x2, [1, 2], lengthBytes: 2))
                == "\(prefix): a payload length of 2 in 16 bits, not in the fewest bytes that hold it (RFC 6455, section 5.2)"
        )
        #expect(
            Self.failure(Self.frame(0x2, Array(repeating: 0, count: 200), lengthBytes: 8))
                == "\(prefix): a payload length of 200 in 64 bits, not in the fewest bytes that hold it (RFC 6455, section 5.2)"
        )
        #expect(
            Self.failure([0x82, 127, 0x80, 0, 0, 0, 0, 0, 0, 0])
                == "\(prefix): a 64-bit payload length with its most significant bit set (RFC 6455, section 5.2)"
        )
    }

    @Test func limitsOnFramesAndMessages() {
        let limits = WebSocketFrameParser.Limits(maximumFrameSize: 1_000, maximumMessageSize: 1_500)
        let prefix = "invalid WebSocket frame from the server at byte"
        #expect(
            Self.failure([0x82, 127, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF], limits: limits)
                == "\(prefix) 0: a binary frame of 9223372036854775807 bytes, larger than the limit of 1000 bytes"
        )
        let fragment = Array(repeating: UInt8(0x61), count: 800)
        #expect(
            Self.failure(Self.frame(0x1, fragment, fin: false) + Self.frame(0x0, fragment), limits: limits)
                == "\(prefix) 804: a message of more than 1500 bytes, the limit (1600 bytes so far)"
        )
        var parser = WebSocketFrameParser(limits: limits)
        #expect(throws: SluiceError.self) {
            try [UInt8]([0x82, 126, 0x03, 0xE9]).withUnsafeBytes { try parser.parse($0) { _ in } }
        }
        #expect(parser.closeCode == 1009)
    }

    @Test func invalidUTF8FailsAtTheFirstBadByteEvenMidFragment() {
        let prefix = "invalid WebSocket frame from the server at byte"
        // The bad byte arrives in a first fragment whose message never ends: the parser fails at once.
        var parser = WebSocketFrameParser(limits: Self.limits)
        let error = #expect(throws: SluiceError.self) {
            try Self.frame(0x1, [0x61, 0x62, 0xC0, 0xAF], fin: false).withUnsafeBytes {
                try parser.parse($0) { _ in }
            }
        }
        #expect(
            error?.message
                == "\(prefix) 0: invalid UTF-8 at byte 2 of a text message (RFC 6455, section 8.1)"
        )
        #expect(parser.closeCode == 1007)
        for invalid: [UInt8] in [[0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE0, 0x80, 0x80], [0xFF]] {
            #expect(
                Self.failure(Self.frame(0x1, [0x61] + invalid))
                    == "\(prefix) 0: invalid UTF-8 at byte \(invalid[0] == 0xFF ? 1 : 2) of a text message (RFC 6455, section 8.1)"
            )
        }
        #expect(
            Self.failure(Self.frame(0x1, [0x61, 0xE2, 0x9C]))
                == "\(prefix) 0: a text message that ends in the middle of a UTF-8 sequence (RFC 6455, section 8.1)"
        )
    }

    @Test func closeFrames() {
        let prefix = "invalid WebSocket frame from the server at byte 0"
        #expect(
            Self.failure(Self.frame(0x8, [0x03]))
                == "\(prefix): a close frame with a 1-byte payload, too short for a code (RFC 6455, section 5.5.1)"
        )
        for code: UInt16 in [0, 999, 1004, 1005, 1006, 1015, 2999, 5000] {
            #expect(
                Self.failure(Self.frame(0x8, [UInt8(code >> 8), UInt8(code & 0xFF)]))
                    == "\(prefix): a close frame with the code \(code), which a peer may not send (RFC 6455, section 7.4)"
            )
        }
        #expect(
            Self.failure(Self.frame(0x8, [0x03, 0xE8, 0xC3]))
                == "\(prefix): a close frame whose reason is not valid UTF-8 (RFC 6455, section 5.5.1)"
        )
    }

    @Test func renderedLikeACompilerDiagnostic() {
        let error = #expect(throws: SluiceError.self) { try Self.read(Self.frame(0x3)) }
        #expect(
            error.map(String.init(describing:))
                == """
                error: invalid WebSocket frame from the server at byte 0: a frame with the reserved opcode 0x3, which RFC 6455 does not define (section 5.2)
                  --> (request not built) [stage: frame]
                   |
                """
        )
    }
}

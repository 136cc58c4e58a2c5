import Foundation
import Testing

@testable import SluiceTransport

/// The frame parser in the server's role, reading a client's masked frames, as the loopback server does.
@Suite struct WebSocketFrameParserServerRoleTests {
    static let limits = WebSocketFrameParser.Limits(maximumFrameSize: 1 << 20, maximumMessageSize: 2 << 20)

    /// A client's frame, masked with the key.
    static func clientFrame(_ opcode: WebSocketOpcode, _ payload: [UInt8], fin: Bool = true, key: UInt32) -> [UInt8] {
        var bytes: [UInt8] = []
        payload.withUnsafeBytes {
            WebSocketFrameEncoder.encode(opcode, payload: $0, fin: fin, maskKey: key, into: &bytes)
        }
        return bytes
    }

    /// What a server-role parser reads from the bytes given in these pieces.
    static func read(_ pieces: [ArraySlice<UInt8>]) throws -> [WebSocketFrameParser.Event] {
        var parser = WebSocketFrameParser(limits: limits, role: .server)
        var events: [WebSocketFrameParser.Event] = []
        for piece in pieces {
            try piece.withUnsafeBytes { try parser.parse($0) { events.append($0) } }
        }
        return events
    }

    @Test func unmasksFramesOfEveryLengthFormWhereverTheyAreCut() throws {
        let large = (0..<70_000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let bytes =
            Self.clientFrame(.text, Array("héllo".utf8), fin: false, key: 0x0102_0304)
            + Self.clientFrame(.ping, [1, 2, 3], key: 0xFFFF_0000)
            + Self.clientFrame(.continuation, Array(" wörld".utf8), key: 0xA1B2_C3D4)
            + Self.clientFrame(.binary, Array(large[..<300]), key: 0x1357_9BDF)
            + Self.clientFrame(.binary, large, key: 0xDEAD_BEEF)
        let expected: [WebSocketFrameParser.Event] = [
            .ping(Data([1, 2, 3])), .text("héllo wörld"), .binary(Data(large[..<300])), .binary(Data(large)),
        ]
        #expect(try Self.read([bytes[...]]) == expected)
        for split in stride(from: 0, through: bytes.count, by: 97) {
            #expect(try Self.read([bytes[..<split], bytes[split...]]) == expected)
        }
        let small = Array(bytes[..<40])
        #expect(try Self.read(small.indices.map { small[$0...$0] }) == Array(expected.prefix(2)))
    }

    @Test func refusesAnUnmaskedFrameFromTheClient() throws {
        var bytes: [UInt8] = []
        Array("hi".utf8).withUnsafeBytes {
            WebSocketFrameEncoder.encode(.text, payload: $0, maskKey: nil, into: &bytes)
        }
        var parser = WebSocketFrameParser(limits: Self.limits, role: .server)
        let error = #expect(throws: SluiceError.self) {
            try bytes.withUnsafeBytes { try parser.parse($0) { _ in } }
        }
        #expect(
            error?.message
                == "invalid WebSocket frame from the client at byte 0: the client sent an unmasked frame, which a client must mask (RFC 6455, section 5.1)"
        )
        #expect(parser.closeCode == 1002)
    }

    @Test func checksTheUnmaskedTextAsUTF8() throws {
        let bytes = Self.clientFrame(.text, Array("ok".utf8), key: 1) + Self.clientFrame(.text, [0x61, 0xFF], key: 7)
        var parser = WebSocketFrameParser(limits: Self.limits, role: .server)
        var events: [WebSocketFrameParser.Event] = []
        let error = #expect(throws: SluiceError.self) {
            try bytes.withUnsafeBytes { try parser.parse($0) { events.append($0) } }
        }
        #expect(events == [.text("ok")])
        #expect(
            error?.message
                == "invalid WebSocket frame from the client at byte 8: invalid UTF-8 at byte 1 of a text message (RFC 6455, section 8.1)"
        )
        #expect(parser.closeCode == 1007)
    }

    @Test func aServersFrameGoesUnmaskedAndTheClientReadsIt() throws {
        var bytes: [UInt8] = []
        Array(repeating: UInt8(9), count: 200).withUnsafeBytes {
            WebSocketFrameEncoder.encode(.binary, payload: $0, maskKey: nil, into: &bytes)
        }
        #expect(bytes[..<4] == [0x82, 126, 0, 200])
        #expect(bytes.count == 204)
        var parser = WebSocketFrameParser(limits: Self.limits)
        var events: [WebSocketFrameParser.Event] = []
        try bytes.withUnsafeBytes { try parser.parse($0) { events.append($0) } }
        #expect(events == [.binary(Data(repeating: 9, count: 200))])
    }
}

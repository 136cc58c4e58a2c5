import ClientFixtures
import Foundation
import Testing

@testable import SluiceTransport

/// `permessage-deflate` (RFC 7692): the server's answers, the codec, and compressed frames read whole and split at
/// every byte.
@Suite struct PerMessageDeflateTests {
    static func zlib() throws -> ZLib {
        try ZLib.shared.get()
    }

    @Test func answersAServerMayGive() throws {
        #expect(try PerMessageDeflate(answer: "permessage-deflate") == PerMessageDeflate())
        let all = try PerMessageDeflate(
            answer:
                "permessage-deflate; server_no_context_takeover; client_no_context_takeover; server_max_window_bits=10; client_max_window_bits=\"12\""
        )
        #expect(all.serverNoContextTakeover && all.clientNoContextTakeover)
        #expect(all.serverMaxWindowBits == 10 && all.clientMaxWindowBits == 12)
    }

    @Test(arguments: [
        (
            "x-webkit-deflate-frame",
            "the server chose the extension \"x-webkit-deflate-frame\", which the client did not offer"
        ),
        (
            "permessage-deflate, permessage-deflate",
            "the server chose several extensions, \"permessage-deflate, permessage-deflate\", and only one was offered"
        ),
        (
            "permessage-deflate; server_max_window_bits=16",
            "permessage-deflate's server_max_window_bits=16 is not 8 to 15 (RFC 7692, section 7.1)"
        ),
        (
            "permessage-deflate; server_max_window_bits",
            "permessage-deflate's parameter \"server_max_window_bits\" is not one a server may answer (RFC 7692, section 7.1)"
        ),
        (
            "permessage-deflate; mystery",
            "permessage-deflate's parameter \"mystery\" is not one a server may answer (RFC 7692, section 7.1)"
        ),
        (
            "permessage-deflate; server_no_context_takeover; server_no_context_takeover",
            "permessage-deflate's parameter server_no_context_takeover appears twice (RFC 7692, section 7.1)"
        ),
        (
            "permessage-deflate; client_max_window_bits=8",
            "permessage-deflate's client_max_window_bits=8 cannot be honoured by zlib"
        ),
        // A Greek question mark is a semicolon to Swift's characters, not to the bytes a server sends.
        (
            "permessage-deflate\u{37E} server_no_context_takeover",
            "the server chose the extension \"permessage-deflate\u{37E} server_no_context_takeover\", which the client did not offer"
        ),
        (
            "permessage-deflate; server_max_window_bits\u{37E}10",
            "permessage-deflate's parameter \"server_max_window_bits\u{37E}10\" is not one a server may answer (RFC 7692, section 7.1)"
        ),
    ])
    func answersThatAreRefused(answer: String, reason: String) {
        let error = #expect(throws: PerMessageDeflate.Refusal.self) { try PerMessageDeflate(answer: answer) }
        #expect(error?.reason == reason)
    }

    /// The examples of RFC 7692, section 7.2.3: "Hello" compressed, in one frame and in two fragments.
    @Test func readsTheExamplesOfRFC7692() throws {
        let bytes: [UInt8] =
            [0xC1, 0x07, 0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00]
            + [0x41, 0x03, 0xF2, 0x48, 0xCD, 0x80, 0x04, 0xC9, 0xC9, 0x07, 0x00]
            // Context takeover: the third "Hello" refers back to the ones before.
            + [0xC1, 0x05, 0xF2, 0x00, 0x11, 0x00, 0x00]
        for split in 0...bytes.count {
            let codec = try MessageDeflateCodec(
                zlib: Self.zlib(),
                compresses: false,
                windowBits: 15,
                resetsEachMessage: false
            )
            var parser = WebSocketFrameParser(
                limits: .init(maximumFrameSize: 1_000, maximumMessageSize: 1_000),
                inflate: { (payload, limit) throws(PerMessageDeflate.Refusal) in
                    try codec.decompress(payload, limit: limit, maximumRatio: nil)
                }
            )
            var events: [WebSocketFrameParser.Event] = []
            try bytes[..<split].withUnsafeBytes { try parser.parse($0) { events.append($0) } }
            try bytes[split...].withUnsafeBytes { try parser.parse($0) { events.append($0) } }
            #expect(events == [.text("Hello"), .text("Hello"), .text("Hello")], "split at \(split)")
        }
    }

    @Test(arguments: [false, true])
    func compressesAndDecompressesWithAndWithoutContextTakeover(resets: Bool) throws {
        let zlib = try Self.zlib()
        let deflater = try MessageDeflateCodec(zlib: zlib, compresses: true, windowBits: 12, resetsEachMessage: resets)
        let inflater = try MessageDeflateCodec(zlib: zlib, compresses: false, windowBits: 15, resetsEachMessage: resets)
        let messages = [[UInt8](), Array("hello hello hello".utf8), (0..<200_000).map { UInt8($0 % 251) }]
        for message in messages + messages {
            let compressed = deflater.compress(message)
            #expect(try inflater.decompress(Data(compressed), limit: 1 << 20, maximumRatio: nil) == Data(message))
        }
    }

    @Test func boundsWhatAMessageInflatesTo() throws {
        let zlib = try Self.zlib()
        let deflater = try MessageDeflateCodec(zlib: zlib, compresses: true, windowBits: 15, resetsEachMessage: false)
        let bomb = deflater.compress([UInt8](repeating: 0, count: 1 << 20))
        #expect(bomb.count < 2_000)
        var frame: [UInt8] = [0xC2, 126, UInt8(bomb.count >> 8), UInt8(bomb.count & 0xFF)] + bomb
        let inflater = try MessageDeflateCodec(zlib: zlib, compresses: false, windowBits: 15, resetsEachMessage: false)
        var parser = WebSocketFrameParser(
            limits: .init(maximumFrameSize: 1 << 16, maximumMessageSize: 100_000),
            inflate: { (payload, limit) throws(PerMessageDeflate.Refusal) in
                try inflater.decompress(payload, limit: limit, maximumRatio: nil)
            }
        )
        let error = #expect(throws: SluiceError.self) {
            try frame.withUnsafeBytes { try parser.parse($0) { _ in } }
        }
        #expect(
            error?.message
                == "invalid WebSocket frame from the server at byte 0: the compressed binary message inflates to more than 100000 bytes, the limit (RFC 7692, section 6.2)"
        )
        #expect(parser.closeCode == 1009)
        // RSV1 on a continuation frame.
        frame = [0x41, 0x01, 0x00, 0xC0, 0x00]
        var another = WebSocketFrameParser(
            limits: .init(maximumFrameSize: 100, maximumMessageSize: 100),
            inflate: { (payload, _) throws(PerMessageDeflate.Refusal) in payload }
        )
        let continuation = #expect(throws: SluiceError.self) {
            try frame.withUnsafeBytes { try another.parse($0) { _ in } }
        }
        #expect(
            continuation?.message
                == "invalid WebSocket frame from the server at byte 3: a continuation frame sets RSV1, which permessage-deflate allows on a message's first frame only (RFC 7692, section 6)"
        )
    }

    /// A message that expands past the ratio bound fails once its output passes 64 KiB and the ratio, long before the
    /// size limit, with 1009 and the ratio and the bytes in and out named; under a looser bound it inflates whole.
    @Test func boundsTheRatioAMessageExpandsBy() throws {
        let zlib = try Self.zlib()
        let deflater = try MessageDeflateCodec(zlib: zlib, compresses: true, windowBits: 15, resetsEachMessage: false)
        let bomb = deflater.compress([UInt8](repeating: 0, count: 4 << 20))
        let frame: [UInt8] = [0xC2, 126, UInt8(bomb.count >> 8), UInt8(bomb.count & 0xFF)] + bomb
        for ratio in [100, 10_000] {
            let inflater = try MessageDeflateCodec(
                zlib: zlib,
                compresses: false,
                windowBits: 15,
                resetsEachMessage: false
            )
            var parser = WebSocketFrameParser(
                limits: .init(maximumFrameSize: 1 << 16, maximumMessageSize: 16 << 20),
                inflate: { (payload, limit) throws(PerMessageDeflate.Refusal) in
                    try inflater.decompress(payload, limit: limit, maximumRatio: ratio)
                }
            )
            if ratio == 10_000 {
                var events: [WebSocketFrameParser.Event] = []
                try frame.withUnsafeBytes { try parser.parse($0) { events.append($0) } }
                #expect(events == [.binary(Data(count: 4 << 20))])
                continue
            }
            let error = #expect(throws: SluiceError.self) {
                try frame.withUnsafeBytes { try parser.parse($0) { _ in } }
            }
            let message = try #require(error?.message)
            let prefix =
                "invalid WebSocket frame from the server at byte 0: the compressed binary message expands more than 100 times, a likely decompression bomb: "
            let decoded = try #require(Int(message.dropFirst(prefix.count).prefix { $0 != " " }))
            #expect(
                message
                    == prefix
                    + "\(decoded) bytes decompressed from \(bomb.count) bytes received; the bound is the WebSocket's maximumDecompressionRatio (RFC 7692, section 6.2)"
            )
            #expect(decoded > ContentDecoder.ratioFloor && decoded >= 100 * bomb.count)
            #expect(decoded <= 100 * bomb.count + (64 << 10))
            #expect(error?.stage == .frame)
            #expect(parser.closeCode == 1009)
        }
    }

    /// Bytes deflate cannot shrink grow a little: a compressed message of the largest size, and its frame, pass with
    /// deflate's overhead on top of the limits, and no further.
    @Test func aCompressedFrameMayCarryDeflatesOverhead() throws {
        let zlib = try ZLib.shared.get()
        let deflater = try MessageDeflateCodec(zlib: zlib, compresses: true, windowBits: 15, resetsEachMessage: false)
        let message = [UInt8](sampleBytes(4_096))
        let compressed = deflater.compress(message)
        #expect(compressed.count > message.count, "random bytes do not shrink")
        let frame = [0xC2, 126, UInt8(compressed.count >> 8), UInt8(compressed.count & 0xFF)] + compressed
        func parser(limit: Int) throws -> WebSocketFrameParser {
            let inflater = try MessageDeflateCodec(
                zlib: zlib,
                compresses: false,
                windowBits: 15,
                resetsEachMessage: false
            )
            return WebSocketFrameParser(
                limits: .init(maximumFrameSize: limit, maximumMessageSize: limit),
                inflate: { (payload, limit) throws(PerMessageDeflate.Refusal) in
                    try inflater.decompress(payload, limit: limit, maximumRatio: nil)
                }
            )
        }
        var exact = try parser(limit: message.count)
        var events: [WebSocketFrameParser.Event] = []
        try frame.withUnsafeBytes { try exact.parse($0) { events.append($0) } }
        #expect(events == [.binary(Data(message))])

        var smaller = try parser(limit: 1_000)
        let error = #expect(throws: SluiceError.self) {
            try frame.withUnsafeBytes { try smaller.parse($0) { _ in } }
        }
        #expect(
            error?.message
                == "invalid WebSocket frame from the server at byte 0: a binary frame of \(compressed.count) bytes, larger than the limit of 1064 bytes"
        )
        #expect(smaller.closeCode == 1009)
    }
}
